/**
 * Rate limiters in front of a Fetch handler, as proxies and API gateways throttle: a token bucket (nginx's
 * `limit_req`) and a 429 to every n-th request. The throttling benchmark runs the suite against them; tests do too.
 */

/** A Fetch handler (the stub's in-process form): a limiter knows HTTP, not the suite. */
type FetchHandler = (request: Request) => Promise<Response>

/** How a throttled target says when to come back. */
export type RetryAfter = 'seconds' | 'date' | 'none' | 'zero'

function retryAfterHeader(retryAfter: RetryAfter, seconds: number): Record<string, string> {
  switch (retryAfter) {
    case 'seconds':
      return { 'retry-after': String(seconds) }
    case 'zero':
      return { 'retry-after': '0' }
    case 'date':
      return { 'retry-after': new Date(Date.now() + seconds * 1000).toUTCString() }
    case 'none':
      return {}
  }
}

/** A 429 as a rate limiter sends it (or, with `status`, the 503 a proxy's limiter sends by default). */
export function tooMany(retryAfter: RetryAfter, seconds = 1, status: 429 | 503 = 429): Response {
  const body = JSON.stringify({ code: 'rate_limited', message: 'too many requests', status })
  return new Response(body, {
    status,
    headers: { 'content-type': 'application/json', ...retryAfterHeader(retryAfter, seconds) },
  })
}

/** What a token-bucket limiter did: requests it passed on and refused, and the times of those it passed on. */
export interface LimiterStats {
  passed: number
  refused: number
  /** `performance.now()` of each request passed on. */
  passedAt: number[]
}

/**
 * A rate limiter in front of the handler, as nginx's `limit_req` with `nodelay` is: a bucket of `burst` tokens
 * refilled at `rate` per second; a request finding a token is passed on, any other is refused at once with
 * `status` (429 by default) and `Retry-After: seconds`. Refused requests take no token.
 */
export function tokenBucket(
  next: FetchHandler,
  options: { rate: number; burst: number; seconds?: number; status?: 429 | 503 },
): { fetch: FetchHandler; stats: LimiterStats } {
  const { rate, burst, seconds = 1, status = 429 } = options
  const stats: LimiterStats = { passed: 0, refused: 0, passedAt: [] }
  let tokens = burst
  let at = performance.now()
  return {
    stats,
    fetch: async (request) => {
      const now = performance.now()
      tokens = Math.min(burst, tokens + ((now - at) * rate) / 1000)
      at = now
      if (tokens < 1) {
        stats.refused++
        return tooMany('seconds', seconds, status)
      }
      tokens -= 1
      stats.passed++
      stats.passedAt.push(now)
      return next(request)
    },
  }
}

/**
 * Answers 429 to every `every`-th request (`every: 1`: to every request), else passes it on. With `answerEvery`,
 * lets only every n-th request through (the rest 429): throttled nearly throughout.
 */
export function throttled(
  next: FetchHandler,
  options: { every?: number; answerEvery?: number; retryAfter?: RetryAfter; seconds?: number },
): FetchHandler {
  let count = 0
  const { every, answerEvery, retryAfter = 'seconds', seconds = 1 } = options
  return async (request) => {
    count++
    const limited = answerEvery !== undefined ? count % answerEvery !== 0 : every !== undefined && count % every === 0
    return limited ? tooMany(retryAfter, seconds) : next(request)
  }
}
