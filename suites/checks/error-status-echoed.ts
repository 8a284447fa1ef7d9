import { exchangeCheck } from './check.js'
import { bodyOf, integerText, isObject, requestLine } from './util.js'

/** The `status` an Error-like body says, as decimal text, when it says one. */
const saidStatus = (body: ReturnType<typeof bodyOf>) => (isObject(body) ? integerText(body.status) : undefined)

/** An Error body's `status` repeats the HTTP status. */
export const errorStatusEchoed = exchangeCheck({
  id: 'error.status-echoed',
  title: 'Error.status repeats the HTTP status',
  severity: 'fail',
  basis: [{ spec: '#/components/schemas/Error/properties/status/description' }],
  on: {
    operation: 'all',
    when: ({ exchange, response }) => response.status >= 400 && saidStatus(bodyOf(exchange)) !== undefined,
  },
  run: ({ exchange, response }) => {
    const said = saidStatus(bodyOf(exchange))
    return said === String(response.status)
      ? []
      : [`${requestLine(exchange)} answered ${response.status} with Error.status ${said}; documented: the HTTP status`]
  },
})
