import type { Check } from './check.js'
import { requestLine } from './util.js'

/** Every request gets a complete HTTP response: no timeout, reset or garbage. */
export const transportOk: Check = {
  id: 'transport.ok',
  title: 'Every request gets a complete HTTP response (no timeout, reset or garbage)',
  severity: 'fail',
  operationId: 'all',
  run: ({ exchange }) => (exchange?.error ? [`${requestLine(exchange)}: no HTTP response: ${exchange.error}`] : []),
}
