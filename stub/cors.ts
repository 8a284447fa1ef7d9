/** CORS for browser clients on other origins: what every answer carries, and what a preflight allows. */

/** Response headers a page may read: the deprecation headers, the challenge, and the controls' answers. */
export const EXPOSED = 'Deprecation, Sunset, Link, WWW-Authenticate, Retry-After, Preference-Applied'

/** Request headers a preflight allows when asked: what the stub reads, and what clients commonly add. */
const SAFE_HEADERS = new Set([
  'authorization',
  'content-type',
  'prefer',
  'accept',
  'accept-language',
  'content-language',
  'cache-control',
  'pragma',
  'if-match',
  'if-none-match',
  'idempotency-key',
  'traceparent',
  'tracestate',
  'baggage',
])

/** How long a browser may cache a preflight, in seconds. */
const MAX_AGE = '600'

/** True for a header a preflight may allow: a safe one, or a custom `X-` one (the stub ignores both kinds it does not read). */
function isSafe(name: string): boolean {
  return SAFE_HEADERS.has(name) || /^x-[a-z0-9-]+$/.test(name)
}

/** The headers of a preflight answer: the path's methods, and the asked-for headers within the safe set. */
export function preflightHeaders(allow: string, requested: string | undefined): string[] {
  const asked = (requested ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && isSafe(name))
  const headers = asked.length > 0 ? [...new Set(asked)].join(', ') : 'authorization, content-type, prefer'
  return [
    'Access-Control-Allow-Origin',
    '*',
    'Access-Control-Allow-Methods',
    allow,
    'Access-Control-Allow-Headers',
    headers,
    'Access-Control-Max-Age',
    MAX_AGE,
    'Access-Control-Expose-Headers',
    EXPOSED,
    'Vary',
    'Access-Control-Request-Headers',
  ]
}
