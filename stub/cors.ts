/** CORS for browser clients on other origins: what every answer carries, and what a preflight allows. */

/** Response headers a page may read: the deprecation headers, the challenge, and the controls' answers. */
export const EXPOSED = 'Deprecation, Sunset, Link, WWW-Authenticate, Retry-After, Preference-Applied'

/** The headers a preflight allows when the page names none: what the stub reads. */
const DEFAULT_HEADERS = 'authorization, content-type, prefer'

/** How long a browser may cache a preflight, in seconds. */
const MAX_AGE = '600'

/** An HTTP field name (RFC 9110 section 5.1: a token). */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/

/**
 * The request headers a preflight allows: every well-formed name the page asks for (tracing headers such as
 * `sentry-trace`, `baggage`, `b3` or `request-id` included), lower-cased, each once; the stub ignores what it
 * does not read. None asked means the headers the stub reads.
 */
export function allowedHeaders(requested: string | undefined): string {
  const asked = (requested ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => FIELD_NAME.test(name))
  return asked.length > 0 ? [...new Set(asked)].join(', ') : DEFAULT_HEADERS
}

/** The headers of a preflight answer: the path's methods, and the headers `allowedHeaders` allows. */
export function preflightHeaders(allow: string, headers: string): string[] {
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
