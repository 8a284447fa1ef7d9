import type { Check } from './check.js'
import { bodyOf, integerText, isObject, requestLine } from './util.js'

/** An Error body's `status` repeats the HTTP status. */
export const errorStatusEchoed: Check = {
  id: 'error.status-echoed',
  title: 'Error.status repeats the HTTP status',
  severity: 'fail',
  operationId: 'all',
  applies: ({ exchange }) => {
    const body = bodyOf(exchange)
    return (exchange?.response?.status ?? 0) >= 400 && isObject(body) && integerText(body.status) !== undefined
  },
  run: ({ exchange }) => {
    const said = integerText((bodyOf(exchange) as { status: number }).status)
    const status = exchange!.response!.status
    return said === String(status) ? [] : [`${requestLine(exchange!)} answered ${status} with Error.status ${said}; documented: the HTTP status`]
  },
}
