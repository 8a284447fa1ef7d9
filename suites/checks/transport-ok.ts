import { closedBeyondInterface } from './beyond.js'
import { transportCheck } from './check.js'
import { requestLine } from './util.js'

// The Fetch API refuses to build a request with a forbidden method (TRACE, TRACK, CONNECT): a request a Fetch
// handler mounted in-process cannot be sent, through no doing of the target's. Live HTTP sends them.
const UNSENDABLE = /'[A-Z]+' HTTP method is unsupported\.$/

/**
 * Every request gets a complete HTTP response: no timeout, reset or garbage. A connection closed before any answer to
 * a large body is observed instead (beyond.ts).
 */
export const transportOk = transportCheck({
  id: 'transport.ok',
  title: 'Every request gets a complete HTTP response (no timeout, reset or garbage)',
  severity: 'fail',
  basis: [{ rfc: 'RFC 9112 §2.1' }, { rfc: 'RFC 9112 §8' }],
  run: (exchange) =>
    exchange.error && !UNSENDABLE.test(exchange.error) && !closedBeyondInterface(exchange)
      ? [`${requestLine(exchange)}: no HTTP response: ${exchange.error}`]
      : [],
  // A connection closed while a large body was sent: a way to refuse it whose answer the reset may have lost.
  observedInstead: closedBeyondInterface,
})
