/**
 * Manners on a shared target: at most `concurrency` requests in flight, and rate limiting waited out.
 * A 429 is never a finding: the request waits (`Retry-After` in seconds or as an HTTP-date, else a doubling
 * backoff), capped per wait, and every request pauses with it. A target that throttles without end makes the
 * run stop in bounded time: `stopped` then says why, and the run cannot be judged (exit 2).
 */
import type { Exchange, Request } from '../../model/index.js'
import type { Transport } from './transport.js'

/** How polite to be. */
export interface Manners {
  /** Requests in flight at most. */
  concurrency: number
  /** Longest single wait after a 429, in ms. */
  maxWaitMs?: number
  /** How long the target may answer nothing but 429 before the run gives up, in ms. */
  giveUpAfterMs?: number
}

const MIN_WAIT_MS = 250
const DEFAULT_MAX_WAIT_MS = 30_000
const DEFAULT_GIVE_UP_MS = 120_000

/** How long a `Retry-After` value (delay-seconds or an HTTP-date, RFC 9110 §10.2.3) asks to wait, in ms. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A counting semaphore. */
export class Slots {
  #free: number
  readonly #waiting: (() => void)[] = []
  constructor(size: number) {
    this.#free = size
  }
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--
    else await new Promise<void>((resolve) => this.#waiting.push(resolve))
    try {
      return await work()
    } finally {
      const next = this.#waiting.shift()
      if (next) next()
      else this.#free++
    }
  }
}

/** A transport that keeps to the manners, around another. */
export class PoliteTransport implements Transport {
  readonly baseUrl: string
  /** Why the run must stop (rate-limited throughout), once it must. */
  stopped: string | undefined
  /** HTTP requests sent, retries included. */
  requestsSent = 0
  readonly #inner: Transport
  readonly #slots: Slots
  readonly #maxWaitMs: number
  readonly #giveUpMs: number
  #pausedUntil = 0
  #lastAnswer = Date.now()

  constructor(inner: Transport, manners: Manners) {
    this.#inner = inner
    this.baseUrl = inner.baseUrl
    this.#slots = new Slots(Math.max(1, manners.concurrency))
    this.#maxWaitMs = manners.maxWaitMs ?? DEFAULT_MAX_WAIT_MS
    this.#giveUpMs = manners.giveUpAfterMs ?? DEFAULT_GIVE_UP_MS
  }

  /** Sends a request, waiting out 429s; the exchange it returns carries no 429 unless the run gave up. */
  async send(request: Request): Promise<Exchange> {
    let attempts = 0
    for (let backoff = MIN_WAIT_MS; ; backoff = Math.min(backoff * 2, this.#maxWaitMs)) {
      const pause = this.#pausedUntil - Date.now()
      if (pause > 0) await sleep(pause)
      const exchange = await this.#slots.run(() => this.#inner.send(request))
      attempts += exchange.attempts
      this.requestsSent += exchange.attempts
      if (exchange.response?.status !== 429) {
        if (exchange.response) this.#lastAnswer = Date.now()
        return { ...exchange, attempts }
      }
      if (Date.now() - this.#lastAnswer > this.#giveUpMs) {
        this.stopped ??= `the target answered only 429 Too Many Requests for ${Math.round(this.#giveUpMs / 1000)} s: rate-limited throughout`
        return { ...exchange, attempts }
      }
      // Retry-After of 0 from limiters counting whole seconds would spin: wait at least the backoff.
      const asked = retryAfterMs(exchange.response.headers['retry-after'], Date.now())
      const wait = Math.min(this.#maxWaitMs, Math.max(backoff, asked ?? backoff))
      this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + wait)
    }
  }

  close(): Promise<void> {
    return this.#inner.close()
  }
}
