import { everyOperation } from '../../spec/index.js'
import { runCheck } from './check.js'

/** Every documented status the suite can provoke from a conformant target was seen. */
export const documentedStatusesSeen = runCheck({
  id: 'coverage.documented-statuses',
  title: 'Every documented status the suite can provoke was seen',
  severity: 'fail',
  basis: (spec) => everyOperation(spec, 'responses'),
  // Fed by a scenario that calls every selected operation with and without the key, valid, invalid and unknown.
  on: { operation: 'all', credentials: ['valid', 'invalid'], states: ['sent', 'invalid', 'unknown'] },
  applies: ({ coverage }) => coverage.length > 0,
  run: ({ coverage }) =>
    coverage
      .filter((c) => c.provokable && !c.seen)
      .map((c) => `${c.operationId} never answered ${c.status}, though the suite sent requests that call for it`),
})
