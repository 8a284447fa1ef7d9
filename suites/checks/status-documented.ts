import { everyOperation } from '../../spec/index.js'
import { refusedBeyondInterface } from './beyond.js'
import { exchangeCheck } from './check.js'
import { requestLine, withinDocumentedInput } from './util.js'

/** The response status is one the spec lists for the operation. */
export const statusDocumented = exchangeCheck({
  id: 'response.status-documented',
  title: 'Response status is documented for the operation',
  severity: 'fail',
  basis: (spec) => everyOperation(spec, 'responses'),
  // Outside the documented input (limit=0, ...) the interface leaves the answer open: observed, not judged; so is
  // HTTP's 413, 414, 415 or 431 to input beyond what it describes (a body of 1 MiB, a vendor media type).
  on: {
    operation: 'all',
    when: ({ exchange, facts }, spec) =>
      withinDocumentedInput(facts) && refusedBeyondInterface(exchange, spec) === undefined,
  },
  run: ({ exchange, response, operationId }, spec) => {
    const documented = spec.statuses(operationId)
    if (documented.includes(String(response.status))) return []
    return [
      `${requestLine(exchange)} answered ${response.status}; documented for ${operationId}: ${documented.join(', ')}`,
    ]
  },
})
