import { transportCheck } from './check.js'
import { requestLine } from './util.js'

/** Every request gets a complete HTTP response: no timeout, reset or garbage. */
export const transportOk = transportCheck({
  id: 'transport.ok',
  title: 'Every request gets a complete HTTP response (no timeout, reset or garbage)',
  severity: 'fail',
  run: (exchange) => (exchange.error ? [`${requestLine(exchange)}: no HTTP response: ${exchange.error}`] : []),
})
