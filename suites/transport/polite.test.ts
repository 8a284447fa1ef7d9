/**
 * Manners on a shared target: 429s waited out however the target says when to come back (Retry-After in seconds,
 * as an HTTP-date, 0, or not at all), each wait bounded; a target that throttles (nearly) throughout stops the run
 * in bounded time; the concurrency bound holds at the target.
 */
import { describe, expect, it } from 'vitest'
import type { Request } from '../../model/index.js'
import { createStub } from '../../stub/index.js'
import {
  counted,
  slow,
  throttled,
  tokenBucket,
  tooMany,
  type FetchHandler,
  type RetryAfter,
} from '../../test-support/misbehaving.js'
import { MountedTransport } from './mounted.js'
import { isThrottling, PoliteTransport, retryAfterMs, Slots, TransportStopped } from './polite.js'

const KEY = 'polite-test-key-2b9e'
const list: Request = { operationId: 'listPets', method: 'GET', path: '/pets' }
const stub = createStub({ apiKeys: [KEY] })

function polite(handler: FetchHandler, manners: Partial<ConstructorParameters<typeof PoliteTransport>[1]> = {}) {
  const inner = new MountedTransport(handler, { baseUrl: 'http://polite.invalid/v1', apiKey: KEY, timeoutMs: 2000 })
  return new PoliteTransport(inner, { concurrency: 4, minWaitMs: 20, maxWaitMs: 2000, ...manners })
}

/** A handler answering 429 to the first `n` requests (the way `retryAfter` says), then passing on; with each request's time. */
function throttledFirst(n: number, retryAfter: RetryAfter, seconds = 1) {
  const times: number[] = []
  const fetch: FetchHandler = async (request) => {
    times.push(performance.now())
    return times.length <= n ? tooMany(retryAfter, seconds) : stub.fetch(request)
  }
  return { fetch, times }
}

describe('retryAfterMs', () => {
  it('reads delay-seconds and HTTP-dates; anything else is unknown', () => {
    const now = Date.parse('Sun, 06 Nov 1994 08:49:37 GMT')
    expect(retryAfterMs('3', now)).toBe(3000)
    expect(retryAfterMs(' 0 ', now)).toBe(0)
    expect(retryAfterMs('Sun, 06 Nov 1994 08:49:39 GMT', now)).toBe(2000)
    expect(retryAfterMs('Sun, 06 Nov 1994 08:49:30 GMT', now)).toBe(0) // in the past: at once (the backoff still applies)
    expect(retryAfterMs(undefined, now)).toBeUndefined()
    expect(retryAfterMs('soon', now)).toBeUndefined()
  })
})

// Each test has its own transport and target, and waits on timers: they run side by side.
describe.concurrent('PoliteTransport', () => {
  it.each([
    ['seconds', 1, 990],
    ['date', 1, 0], // an HTTP-date has whole seconds: up to a second, perhaps less
    // 19, not 20: a timer may fire a fraction of a millisecond early by the clock read here.
    ['zero', 2, 19],
    ['none', 2, 19],
  ] as const)(
    'a 429 with Retry-After as %s is waited out and never returned',
    async (retryAfter, throttledTimes, atLeastMs) => {
      const { fetch, times } = throttledFirst(throttledTimes, retryAfter)
      const t = polite(fetch)
      const exchange = await t.send(list)
      expect(exchange.response?.status).toBe(200)
      expect(exchange.attempts).toBe(throttledTimes + 1)
      expect(t.throttled).toBe(throttledTimes)
      expect(t.stopped).toBeUndefined()
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(atLeastMs)
      expect(times[1]! - times[0]!).toBeLessThan(1500)
      // Backoff without Retry-After doubles: 20 ms, then 40 ms.
      if (throttledTimes === 2) expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(38)
    },
  )

  it('counts what it waited out, by status, and tells of each wait as it starts', async () => {
    const { fetch } = throttledFirst(2, 'none')
    const t = polite(fetch)
    const notices: { waitMs: number; status: number; times: number }[] = []
    t.onWait = (notice) => notices.push(notice)
    await t.send(list)
    // Backoff without Retry-After: 20 ms, then 40 ms; each wait announced before it is made.
    expect(notices).toEqual([
      { waitMs: 20, status: 429, times: 1 },
      { waitMs: 40, status: 429, times: 2 },
    ])
    expect(t.throttling()).toEqual({ status429: 2, status503: 0, waitedMs: 60, longestWaitMs: 40 })
  })

  it('a Retry-After longer than the run waits stops the run at once, saying the wait asked', async () => {
    const { fetch, times } = throttledFirst(1, 'seconds', 86_400)
    const t = polite(fetch, { maxWaitMs: 60_000 })
    const started = performance.now()
    const exchange = await t.send(list)
    expect(performance.now() - started).toBeLessThan(10_000) // not a day
    expect(exchange.response?.status).toBe(429)
    expect(times).toHaveLength(1)
    expect(t.stopped).toMatch(
      /^the target asks to wait 86400 s \(Retry-After on 429\) before sending again, longer than/,
    )
    await expect(t.send(list)).rejects.toBeInstanceOf(TransportStopped)
  })

  it('a wait that would end past the deadline stops the run at once', async () => {
    const { fetch } = throttledFirst(1, 'seconds', 5)
    const t = polite(fetch, { maxWaitMs: 60_000, deadline: Date.now() + 1000 })
    expect((await t.send(list)).response?.status).toBe(429)
    expect(t.stopped).toMatch(/^--max-time reached: the target asks to wait 5 s/)
  })

  it('requests waiting when the run stops end at once', async () => {
    const { fetch } = throttledFirst(3, 'seconds', 30)
    const t = polite(fetch, { maxWaitMs: 60_000 })
    const waiting = Promise.allSettled([t.send(list), t.send(list), t.send(list)])
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = performance.now()
    t.interrupt('interrupted by SIGTERM')
    const settled = await waiting
    expect(performance.now() - started).toBeLessThan(10_000) // not the 30 s asked
    expect(settled.map((s) => s.status === 'rejected' && s.reason instanceof TransportStopped)).toEqual([
      true,
      true,
      true,
    ])
    expect(t.stopped).toBe('interrupted by SIGTERM')
  })

  it('a 503 with Retry-After is waited out like a 429; a 503 without it is the answer', async () => {
    let count = 0
    const withRetry: FetchHandler = async (request) =>
      ++count === 1 ? tooMany('seconds', 1, 503) : stub.fetch(request)
    const t = polite(withRetry)
    const exchange = await t.send(list)
    expect(exchange.response?.status).toBe(200)
    expect(t.throttled).toBe(1)
    const without = polite(async () => tooMany('none', 1, 503))
    expect((await without.send(list)).response?.status).toBe(503)
    expect(without.throttled).toBe(0)
    expect(isThrottling({ response: { status: 503, headers: { 'retry-after': 'soon' } } as never })).toBe(false)
  })

  it('a throttled request waits exactly what Retry-After asks, while the others go on', async () => {
    let count = 0
    const times: number[] = []
    const fetch: FetchHandler = async (request) => {
      times.push(performance.now())
      return ++count === 1 ? tooMany('seconds', 1) : stub.fetch(request)
    }
    const t = polite(fetch, { concurrency: 1 })
    const done: number[] = []
    const exchanges = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const exchange = await t.send(list)
        done.push(i)
        return exchange
      }),
    )
    expect(exchanges.map((r) => r.response?.status)).toEqual([200, 200, 200])
    // The two others were answered before the first one went again: its wait held no one else up.
    expect(done).toEqual([1, 2, 0])
    // It went again no sooner than asked, and waited what was asked, no backoff on top.
    expect(times[3]! - times[0]!).toBeGreaterThanOrEqual(990)
    expect(t.longestWaitMs).toBe(1000)
  })

  it('behind a token-bucket limiter the pace adapts: every request passes, no wait is longer than asked', async () => {
    const limiter = tokenBucket(stub.fetch, { rate: 100, burst: 5 })
    const t = polite(limiter.fetch, { concurrency: 4 })
    const exchanges = await Promise.all(Array.from({ length: 150 }, () => t.send(list)))
    expect(exchanges.every((e) => e.response?.status === 200)).toBe(true)
    expect(t.pace).toBeLessThan(Infinity)
    expect(t.longestWaitMs).toBeLessThanOrEqual(1000)
    expect(limiter.stats.passed).toBe(150)
    // Unpaced, the requests refused in the first millisecond would each be refused again a second later.
    expect(limiter.stats.refused).toBeLessThan(150)
  })

  it('a target answering 429 to one request in five, whatever the rate, is no limit: the pace is never cut', async () => {
    const t = polite(throttled(stub.fetch, { every: 5, retryAfter: 'zero' }), { concurrency: 4 })
    const exchanges = await Promise.all(Array.from({ length: 100 }, () => t.send(list)))
    expect(exchanges.every((e) => e.response?.status === 200)).toBe(true)
    expect(t.throttled).toBeGreaterThan(20)
    expect(t.pace).toBe(Infinity)
  })

  it.each([
    ['every request', { every: 1 }],
    ['all but one request in twenty', { answerEvery: 20 }],
  ])('a target answering 429 to %s stops the run in bounded time, saying why', async (_name, how) => {
    const t = polite(throttled(stub.fetch, { ...how, retryAfter: 'none' }), {
      giveUpAfterMs: 400,
    })
    const started = performance.now()
    const settled = await Promise.allSettled(Array.from({ length: 8 }, () => t.send(list)))
    expect(performance.now() - started).toBeLessThan(3000)
    expect(t.stopped).toMatch(
      /^rate-limited throughout: the target answered 429 Too Many Requests \(or 503 with Retry-After\) to \d+ of \d+ requests \(\d+%\) for \d+ s$/,
    )
    // What comes back once it gave up is the 429 itself, or for requests still waiting, TransportStopped: the engine
    // stops on either and judges nothing.
    const exchanges = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
    expect(exchanges.some((e) => e.response?.status === 429)).toBe(true)
    expect(exchanges.every((e) => e.response?.status === 429)).toBe(true)
    for (const s of settled) if (s.status === 'rejected') expect(s.reason).toBeInstanceOf(TransportStopped)
  })

  it('a target that lets every other request through is slow, not stopped', async () => {
    const t = polite(throttled(stub.fetch, { every: 2, retryAfter: 'none' }), { maxWaitMs: 30, giveUpAfterMs: 300 })
    const exchanges = await Promise.all(Array.from({ length: 24 }, () => t.send(list)))
    expect(t.stopped).toBeUndefined()
    expect(exchanges.every((e) => e.response?.status === 200)).toBe(true)
  })

  it('a target that throttled for a while and recovered goes on', async () => {
    let throttling = true
    setTimeout(() => (throttling = false), 300)
    const handler: FetchHandler = async (request) => (throttling ? tooMany('none') : stub.fetch(request))
    const t = polite(handler, { maxWaitMs: 30, giveUpAfterMs: 1000 })
    expect((await t.send(list)).response?.status).toBe(200)
    // A later throttled stretch is judged on its own: it starts fresh.
    expect(
      (await Promise.all(Array.from({ length: 10 }, () => t.send(list)))).every((e) => e.response?.status === 200),
    ).toBe(true)
    expect(t.stopped).toBeUndefined()
  })

  it('holds the concurrency bound, counted at the target', async () => {
    const target = counted(slow(stub.fetch, 15))
    const t = polite(target.fetch, { concurrency: 3 })
    await Promise.all(Array.from({ length: 30 }, () => t.send(list)))
    expect(target.stats.requests).toBe(30)
    expect(target.stats.maxInFlight).toBe(3)
  })

  it('Slots runs at most `size` at once and frees a slot when work throws', async () => {
    const slots = new Slots(2)
    let now = 0
    let most = 0
    const work = (fail: boolean) =>
      slots.run(async () => {
        most = Math.max(most, ++now)
        await new Promise((resolve) => setTimeout(resolve, 5))
        now--
        if (fail) throw new Error('x')
      })
    await Promise.allSettled(Array.from({ length: 10 }, (_, i) => work(i % 3 === 0)))
    expect(most).toBe(2)
    await expect(work(false)).resolves.toBeUndefined()
  })
})
