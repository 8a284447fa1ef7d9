import type { Check } from './check.js'

/** Every documented status the suite can provoke from a conformant target was seen. */
export const documentedStatusesSeen: Check = {
  id: 'coverage.documented-statuses',
  title: 'Every documented status the suite can provoke was seen',
  severity: 'fail',
  operationId: 'all',
  applies: ({ coverage }) => coverage !== undefined,
  run: ({ coverage }) =>
    coverage!
      .filter((c) => c.provokable && !c.seen)
      .map((c) => `${c.operationId} never answered ${c.status}, though the suite sent requests that call for it`),
}
