import type { Check } from './check.js'
import { requestLine } from './util.js'

/** No response is a 5xx: the interface documents none, whatever the input. */
export const noServerError: Check = {
  id: 'response.no-server-error',
  title: 'No response is a server error (5xx)',
  severity: 'fail',
  operationId: 'all',
  applies: ({ exchange }) => exchange?.response !== undefined,
  run: ({ exchange }) => {
    const status = exchange!.response!.status
    return status >= 500 ? [`${requestLine(exchange!)} answered ${status}; a 5xx is never documented`] : []
  },
}
