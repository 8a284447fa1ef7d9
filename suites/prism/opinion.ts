/** Prism's verdict, read from each answer that came through its proxy, as a second opinion on the exchange. */
import type { Exchange, Request } from '../../model/index.js'
import type { Transport } from '../transport/transport.js'
import { parseViolations, PRISM_CHECKS, VIOLATIONS_HEADER } from './violations.js'

/** A transport through Prism's proxy: each exchange carries Prism's verdict on it, one entry per Prism check. */
export class PrismOpinion implements Transport {
  readonly baseUrl: string
  readonly #inner: Transport

  constructor(inner: Transport) {
    this.#inner = inner
    this.baseUrl = inner.baseUrl
  }

  async send(request: Request): Promise<Exchange> {
    const exchange = await this.#inner.send(request)
    const header = exchange.response?.headers[VIOLATIONS_HEADER]
    if (header === undefined) return exchange
    const findings = parseViolations(header, exchange)
    const secondOpinion = PRISM_CHECKS.flatMap(({ id, title }) => {
      const own = findings.filter((f) => f.checkId === id)
      return own.length ? own.map((f) => ({ checkId: id, title, message: f.message })) : [{ checkId: id, title }]
    })
    return { ...exchange, secondOpinion }
  }

  close(): Promise<void> {
    return this.#inner.close()
  }
}
