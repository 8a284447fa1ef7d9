import { spec, everyOperation } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { requestLine } from './util.js'

/** No response is a 5xx: the interface documents none, whatever the input, documented or not. */
export const noServerError = exchangeCheck({
  id: 'response.no-server-error',
  title: 'No response is a server error (5xx)',
  severity: 'fail',
  basis: [{ rfc: 'RFC 9110 §15.6' }, ...everyOperation(spec(), 'responses')],
  on: { operation: 'any' },
  run: ({ exchange, response }) =>
    response.status >= 500 ? [`${requestLine(exchange)} answered ${response.status}; a 5xx is never documented`] : [],
})
