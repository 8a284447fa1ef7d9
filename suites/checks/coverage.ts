import { spec, everyOperation } from '../../spec/index.js'
import { runCheck } from './check.js'

/** Every documented status the suite can provoke from a conformant target was seen. */
export const documentedStatusesSeen = runCheck({
  id: 'coverage.documented-statuses',
  title: 'Every documented status the suite can provoke was seen',
  severity: 'fail',
  basis: everyOperation(spec(), 'responses'),
  on: { operation: 'all' },
  applies: ({ coverage }) => coverage.length > 0,
  run: ({ coverage }) =>
    coverage
      .filter((c) => c.provokable && !c.seen)
      .map((c) => `${c.operationId} never answered ${c.status}, though the suite sent requests that call for it`),
})
