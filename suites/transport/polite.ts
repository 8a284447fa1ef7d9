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
  /** First wait after a 429 that names no longer one, in ms; it doubles for each further 429 of a request. */
  minWaitMs?: number
  /** How long the target may answer (nearly) nothing but 429 before the run gives up, in ms. */
  giveUpAfterMs?: number
}

const DEFAULT_MIN_WAIT_MS = 250
const DEFAULT_MAX_WAIT_MS = 30_000
const DEFAULT_GIVE_UP_MS = 120_000
/** Within a throttled stretch, a target that answers at least this share of requests is making progress. */
const ANSWERED_SHARE_TO_GO_ON = 0.1
/** Answers other than 429 in a row that end a throttled stretch. */
const ANSWERS_IN_A_ROW_TO_GO_ON = 3

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

/**
 * A transport that keeps to the manners, around another. A throttled stretch starts at a 429 and ends when the
 * target answers again in earnest (a few answers in a row, or a tenth of the requests since the stretch began);
 * a stretch longer than `giveUpAfterMs` stops the run. A target that lets one request in twenty through is
 * throttling throughout; one that lets every other through is slow, not stopped.
 */
export class PoliteTransport implements Transport {
  readonly baseUrl: string
  /** Why the run must stop (rate-limited throughout), once it must. */
  stopped: string | undefined
  /** HTTP requests sent, retries included. */
  requestsSent = 0
  /** Answers 429 waited out. */
  throttled = 0
  readonly #inner: Transport
  readonly #slots: Slots
  readonly #minWaitMs: number
  readonly #maxWaitMs: number
  readonly #giveUpMs: number
  #pausedUntil = 0
  #stretch: { since: number; limited: number; answered: number; inARow: number } | undefined

  constructor(inner: Transport, manners: Manners) {
    this.#inner = inner
    this.baseUrl = inner.baseUrl
    this.#slots = new Slots(Math.max(1, manners.concurrency))
    this.#maxWaitMs = manners.maxWaitMs ?? DEFAULT_MAX_WAIT_MS
    this.#minWaitMs = Math.min(manners.minWaitMs ?? DEFAULT_MIN_WAIT_MS, this.#maxWaitMs)
    this.#giveUpMs = manners.giveUpAfterMs ?? DEFAULT_GIVE_UP_MS
  }

  /** Sends a request, waiting out 429s; the exchange it returns carries no 429 unless the run gave up. */
  async send(request: Request): Promise<Exchange> {
    let attempts = 0
    for (let backoff = this.#minWaitMs; ; backoff = Math.min(backoff * 2, this.#maxWaitMs)) {
      const exchange = await this.#slots.run(async () => {
        // Every request waits out a pause, also one that began while it waited for a slot.
        for (let pause = this.#pausedUntil - Date.now(); pause > 0; pause = this.#pausedUntil - Date.now())
          await sleep(pause)
        const exchange = await this.#inner.send(request)
        // The pause starts before the slot is freed, so the request queued for it waits too.
        if (exchange.response?.status === 429) this.#pause(exchange, backoff)
        return exchange
      })
      attempts += exchange.attempts
      this.requestsSent += exchange.attempts
      if (exchange.response?.status !== 429) {
        if (exchange.response) this.#answered()
        return { ...exchange, attempts }
      }
      if (this.stopped || this.#givesUp()) return { ...exchange, attempts }
      this.throttled++
    }
  }

  // Retry-After of 0 from limiters counting whole seconds would spin: wait at least the backoff.
  #pause(exchange: Exchange, backoff: number): void {
    const asked = retryAfterMs(exchange.response?.headers['retry-after'], Date.now())
    const wait = Math.min(this.#maxWaitMs, Math.max(backoff, asked ?? backoff))
    this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + wait)
  }

  close(): Promise<void> {
    return this.#inner.close()
  }

  #answered(): void {
    const stretch = this.#stretch
    if (!stretch) return
    stretch.answered++
    stretch.inARow++
    if (
      stretch.inARow >= ANSWERS_IN_A_ROW_TO_GO_ON ||
      stretch.answered >= ANSWERED_SHARE_TO_GO_ON * (stretch.answered + stretch.limited)
    )
      this.#stretch = undefined
  }

  // A 429 came: true when the target has throttled (nearly) throughout for longer than the run waits.
  #givesUp(): boolean {
    const now = Date.now()
    const stretch = (this.#stretch ??= { since: now, limited: 0, answered: 0, inARow: 0 })
    stretch.limited++
    stretch.inARow = 0
    if (now - stretch.since <= this.#giveUpMs) return false
    const share = Math.round((100 * stretch.answered) / (stretch.answered + stretch.limited))
    this.stopped = `rate-limited throughout: the target answered 429 Too Many Requests to ${stretch.limited} of ${stretch.limited + stretch.answered} requests (${100 - share}%) for ${Math.round((now - stretch.since) / 1000)} s`
    return true
  }
}
