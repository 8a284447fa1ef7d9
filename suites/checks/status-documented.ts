import type { Check } from './check.js'
import { requestLine } from './util.js'

/** The response status is one the spec lists for the operation. */
export const statusDocumented: Check = {
  id: 'response.status-documented',
  title: 'Response status is documented for the operation',
  severity: 'fail',
  operationId: 'all',
  // Outside the documented input (limit=0, ...) the interface leaves the answer open: observed, not judged.
  applies: ({ exchange, undocumentedInput }) => exchange?.response !== undefined && !undocumentedInput,
  run: ({ exchange }, spec) => {
    const documented = spec.statuses(exchange!.operationId)
    const status = exchange!.response!.status
    if (documented.includes(String(status))) return []
    return [`${requestLine(exchange!)} answered ${status}; documented for ${exchange!.operationId}: ${documented.join(', ')}`]
  },
}
