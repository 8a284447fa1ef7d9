import { everyOperation } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { requestLine } from './util.js'

/**
 * No response is a 5xx: the interface documents none, whatever the input, documented or not. One exception is
 * HTTP's own: 501 for a method the server implements on no resource (RFC 9110 §15.6.2), as routers such as
 * @koa/router answer TRACE; it stays a failure for any method an operation of the spec uses.
 */
export const noServerError = exchangeCheck({
  id: 'response.no-server-error',
  title: 'No response is a server error (5xx)',
  severity: 'fail',
  basis: (spec) => [{ rfc: 'RFC 9110 §15.6' }, ...everyOperation(spec, 'responses')],
  on: { operation: 'any' },
  run: ({ exchange, response, facts }, spec) => {
    if (response.status < 500) return []
    const method = exchange.request.method.toUpperCase()
    const unused = !Object.values(spec.operations).some((op) => op.method.toUpperCase() === method)
    if (response.status === 501 && facts.otherMethod !== undefined && unused) return []
    return [`${requestLine(exchange)} answered ${response.status}; a 5xx is never documented`]
  },
})
