/**
 * Manners on a shared target: at most `concurrency` requests in flight, and rate limiting waited out as the target
 * asks. A throttling answer (429, or 503 with `Retry-After`: a proxy's rate limit or a short overload, RFC 9110
 * §15.6.4) is never a finding: that request waits exactly what `Retry-After` asks (in seconds or as an HTTP-date;
 * without it, a doubling backoff) and is sent again, while the others go on at a pace that adapts to the throttle
 * (cut to what the target accepted when most answers throttle, raised a little with each answer it accepts). A
 * wait longer than the run can wait, or a target that throttles without end, stops the run at once: `stopped`
 * says why, and the run cannot be judged (exit 2).
 */
import { setMaxListeners } from 'node:events'
import type { Exchange, Request, Throttling, WaitNotice } from '../../model/index.js'
import type { Transport } from './transport.js'

/** How polite to be. */
export interface Manners {
  /** Requests in flight at most. */
  concurrency: number
  /** Longest `Retry-After` the run waits, in ms; a target asking more stops the run at once. */
  maxWaitMs?: number
  /** First wait after a throttling answer that names no wait, in ms; it doubles for each further one of a request. */
  minWaitMs?: number
  /** How long the target may answer (nearly) nothing but throttling before the run gives up, in ms. */
  giveUpAfterMs?: number
  /** Epoch ms after which the run sends nothing (`--max-time`): a wait past it stops the run at once. */
  deadline?: number
}

const DEFAULT_MIN_WAIT_MS = 250
/** Longest backoff for a throttling answer without `Retry-After`. */
const MAX_BACKOFF_MS = 8_000
const DEFAULT_MAX_WAIT_MS = 60_000
const DEFAULT_GIVE_UP_MS = 120_000
/** Within a throttled stretch, a target that answers at least this share of requests is making progress. */
const ANSWERED_SHARE_TO_GO_ON = 0.1
/** Answers other than throttling in a row that end a throttled stretch. */
const ANSWERS_IN_A_ROW_TO_GO_ON = 3
/** Throttling answers to one request, in a row, after which the run stops (the target never serves it). */
const MAX_THROTTLED_PER_REQUEST = 30
/** The window over which the share of throttling answers and the accepted rate are measured, in ms. */
const WINDOW_MS = 1000
/** The pace is cut when more than this share of the window's answers throttle (one in five now and then is not a limit). */
const CUT_SHARE = 0.35
/** Answers the window must hold before its share says anything. */
const CUT_SAMPLES = 12
/** The shortest span an accepted rate is measured over, in ms. */
const MIN_SPAN_MS = 100
/** Requests per second the pace grows by with each accepted answer (about 10 % a second at any pace). */
const GROWTH_PER_ANSWER = 0.1
/** A pace this fast is no pace. */
const UNPACED_PER_S = 1000

/** How long a `Retry-After` value (delay-seconds or an HTTP-date, RFC 9110 §10.2.3) asks to wait, in ms. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * Whether an answer asks the client to slow down rather than judging the request: 429, or 503 with a
 * `Retry-After` the client can read (RFC 9110 §15.6.4). A 503 without one is a server error like any other.
 */
export function isThrottling(exchange: Pick<Exchange, 'response'>): boolean {
  const status = exchange.response?.status
  if (status === 429) return true
  return status === 503 && retryAfterMs(exchange.response?.headers['retry-after'], Date.now()) !== undefined
}

/** Thrown by a send that did not go out because the run stopped (`stopped` says why). */
export class TransportStopped extends Error {
  override name = 'TransportStopped'
}

/** Resolves after `ms`, or rejects at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort)
      resolve()
    }, ms)
    const abort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', abort, { once: true })
  })
}

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
 * A transport that keeps to the manners, around another. A throttled stretch starts at a throttling answer and ends
 * when the target answers again in earnest (a few answers in a row, or a tenth of the requests since the stretch
 * began); a stretch longer than `giveUpAfterMs` stops the run. A target that lets one request in twenty through is
 * throttling throughout; one that lets every other through is slow, not stopped.
 */
export class PoliteTransport implements Transport {
  readonly baseUrl: string
  /** Why the run must stop (rate-limited throughout, a wait longer than the run waits), once it must. */
  stopped: string | undefined
  /** HTTP requests sent, retries included. */
  requestsSent = 0
  /** Throttling answers waited out. */
  throttled = 0
  /** Throttling answers waited out, by status: 429, and 503 with Retry-After. */
  throttled429 = 0
  throttled503 = 0
  /** Time requests waited before being sent again, added up, in ms. */
  waitedMs = 0
  /** The longest a request waited before it was sent again, in ms. */
  longestWaitMs = 0
  /** Told of each wait as it starts, so progress can say the run is waiting rather than stuck. */
  onWait: ((wait: WaitNotice) => void) | undefined
  readonly #inner: Transport
  readonly #slots: Slots
  readonly #minWaitMs: number
  readonly #maxWaitMs: number
  readonly #giveUpMs: number
  readonly #deadline: number | undefined
  readonly #stop = new AbortController()
  /** Requests per second at most, once a throttle was seen (Infinity: unpaced). */
  #pace = Infinity
  #nextStart = 0
  #lastCut = 0
  /** Recent answers: when, and whether they throttled. */
  readonly #window: { at: number; throttled: boolean }[] = []
  #stretch: { since: number; limited: number; answered: number; inARow: number } | undefined

  constructor(inner: Transport, manners: Manners) {
    this.#inner = inner
    this.baseUrl = inner.baseUrl
    this.#slots = new Slots(Math.max(1, manners.concurrency))
    this.#maxWaitMs = manners.maxWaitMs ?? DEFAULT_MAX_WAIT_MS
    this.#minWaitMs = Math.min(manners.minWaitMs ?? DEFAULT_MIN_WAIT_MS, this.#maxWaitMs)
    this.#giveUpMs = manners.giveUpAfterMs ?? DEFAULT_GIVE_UP_MS
    this.#deadline = manners.deadline
    setMaxListeners(0, this.#stop.signal) // every waiting request listens
  }

  /** The rate limiting met so far, for the run's reports. */
  throttling(): Throttling {
    return {
      status429: this.throttled429,
      status503: this.throttled503,
      waitedMs: Math.round(this.waitedMs),
      longestWaitMs: Math.round(this.longestWaitMs),
    }
  }

  /** Requests per second the transport keeps to now (Infinity until the target throttles). */
  get pace(): number {
    return this.#pace
  }

  /**
   * Sends a request, waiting out throttling answers; the exchange it returns is no throttling answer unless the
   * run gave up on it. Throws `TransportStopped` when the run stopped before the request could go out.
   */
  async send(request: Request): Promise<Exchange> {
    let attempts = 0
    let backoff = this.#minWaitMs
    for (let throttledInARow = 0; ; throttledInARow++) {
      if (this.stopped) throw new TransportStopped(this.stopped)
      const sent = await this.#slots.run(async () => {
        const startedAt = await this.#turn()
        return { startedAt, exchange: await this.#inner.send(request) }
      })
      const { exchange } = sent
      attempts += exchange.attempts
      this.requestsSent += exchange.attempts
      const throttling = isThrottling(exchange)
      if (exchange.response) this.#heard(throttling, sent.startedAt)
      if (!throttling) {
        if (exchange.response) this.#answered()
        return { ...exchange, attempts }
      }
      if (this.stopped || this.#givesUp(throttledInARow + 1)) return { ...exchange, attempts }
      const wait = this.#waitFor(exchange, backoff)
      if (wait === undefined) return { ...exchange, attempts }
      if (wait === backoff) backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)
      this.throttled++
      if (exchange.response!.status === 429) this.throttled429++
      else this.throttled503++
      this.waitedMs += wait
      this.longestWaitMs = Math.max(this.longestWaitMs, wait)
      this.onWait?.({ waitMs: wait, status: exchange.response!.status, times: this.throttled })
      await this.#sleep(wait)
    }
  }

  /** Stops the run at once: every request waiting to go out throws `TransportStopped`; those in flight end as they do. */
  interrupt(reason: string): void {
    this.stopped ??= reason
    this.#stop.abort(new TransportStopped(this.stopped))
  }

  close(): Promise<void> {
    return this.#inner.close()
  }

  async #sleep(ms: number): Promise<void> {
    if (ms <= 0) return
    try {
      await sleep(ms, this.#stop.signal)
    } catch {
      throw new TransportStopped(this.stopped ?? 'the run stopped')
    }
  }

  // When this request may start: at the pace, in the order requests asked. Resolves to the start time.
  async #turn(): Promise<number> {
    const now = Date.now()
    if (this.#pace === Infinity) return now
    const start = Math.max(now, this.#nextStart)
    this.#nextStart = start + 1000 / this.#pace
    await this.#sleep(start - now)
    return start
  }

  // What the target asks a throttled request to wait, exactly; a wait the run cannot make stops it (undefined).
  #waitFor(exchange: Exchange, backoff: number): number | undefined {
    const now = Date.now()
    const asked = retryAfterMs(exchange.response?.headers['retry-after'], now)
    // Retry-After of 0 from limiters counting whole seconds would spin: then the backoff.
    const wait = asked === undefined || asked === 0 ? backoff : asked
    if (asked !== undefined && asked > this.#maxWaitMs) {
      this.interrupt(
        `the target asks to wait ${Math.ceil(asked / 1000)} s (Retry-After on ${exchange.response!.status}) before sending again, longer than a run waits (${Math.round(this.#maxWaitMs / 1000)} s); run it again later`,
      )
      return undefined
    }
    if (this.#deadline !== undefined && now + wait > this.#deadline) {
      this.interrupt(
        `--max-time reached: the target asks to wait ${Math.ceil(wait / 1000)} s (Retry-After on ${exchange.response!.status}), past the time the run has left`,
      )
      return undefined
    }
    return wait
  }

  // One more answer: the window of recent answers moves on; a throttle (most of the window) cuts the pace to what
  // the target accepted, an accepted answer raises it a little.
  #heard(throttling: boolean, startedAt: number): void {
    const now = Date.now()
    this.#window.push({ at: now, throttled: throttling })
    while (this.#window.length && this.#window[0]!.at < now - WINDOW_MS) this.#window.shift()
    if (!throttling) {
      if (this.#pace !== Infinity) {
        this.#pace += GROWTH_PER_ANSWER
        if (this.#pace >= UNPACED_PER_S) this.#pace = Infinity
      }
      return
    }
    // Once per window, and only for requests sent after the last cut: they are what the cut did not yet change.
    if (startedAt < this.#lastCut || now - this.#lastCut < WINDOW_MS || this.#window.length < CUT_SAMPLES) return
    const limited = this.#window.filter((a) => a.throttled).length
    if (limited / this.#window.length <= CUT_SHARE) return
    const accepted = this.#window.length - limited
    // Over the time the window spans (a run's first answers span less than a window; a burst then counts high, and
    // the next cut, a window later, corrects it).
    const span = Math.max(MIN_SPAN_MS, now - this.#window[0]!.at)
    this.#pace = Math.max(1, Math.min(this.#pace, (accepted * 1000) / span))
    this.#lastCut = now
    this.#nextStart = Math.max(this.#nextStart, now)
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

  // A throttling answer came: true when the target has throttled (nearly) throughout for longer than the run waits,
  // or has never served this one request.
  #givesUp(inARow: number): boolean {
    const now = Date.now()
    const stretch = (this.#stretch ??= { since: now, limited: 0, answered: 0, inARow: 0 })
    stretch.limited++
    stretch.inARow = 0
    if (inARow >= MAX_THROTTLED_PER_REQUEST) {
      this.interrupt(
        `rate-limited throughout: the target answered one request ${inARow} times in a row with 429 Too Many Requests or 503 with Retry-After`,
      )
      return true
    }
    if (now - stretch.since <= this.#giveUpMs) return false
    const share = Math.round((100 * stretch.answered) / (stretch.answered + stretch.limited))
    this.interrupt(
      `rate-limited throughout: the target answered 429 Too Many Requests (or 503 with Retry-After) to ${stretch.limited} of ${stretch.limited + stretch.answered} requests (${100 - share}%) for ${Math.round((now - stretch.since) / 1000)} s`,
    )
    return true
  }
}
