/** CORS for browser clients on other origins: what every answer carries, what it exposes, and what a preflight allows. */
import type { AppResponse } from './http.js'

/**
 * The headers the stub's answers may carry that a page cannot read unless they are exposed: the deprecation headers,
 * the challenge, and the controls' answers. A preflight names them all; an answer names those it carries
 * ({@link exposing}).
 */
export const EXPOSED = 'Deprecation, Sunset, Link, WWW-Authenticate, Retry-After, Preference-Applied'

/** Response headers every page reads without being told (the Fetch standard's CORS-safelisted names), and CORS's own. */
const READABLE =
  /^(cache-control|content-language|content-length|content-type|expires|last-modified|pragma|access-control-.*|connection)$/i

/**
 * An answer's flat header list with `Access-Control-Expose-Headers` naming every header in it that a page on another
 * origin could not read otherwise (`Deprecation`, `WWW-Authenticate`, a header a revision declares), in their
 * order, or without one when there is none: exposing a header the answer does not carry tells a page nothing, and
 * costs every answer (a list page, a created pet) its bytes.
 */
export function exposing(headers: readonly string[]): string[] {
  const names: string[] = []
  const kept: string[] = []
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!
    if (name.toLowerCase() === 'access-control-expose-headers') continue
    kept.push(name, headers[i + 1]!)
    if (!READABLE.test(name) && !names.some((seen) => seen.toLowerCase() === name.toLowerCase())) names.push(name)
  }
  return names.length > 0 ? kept.concat('Access-Control-Expose-Headers', names.join(', ')) : kept
}

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
export function preflightHeaders(allow: string, headers: string, origin = '*'): string[] {
  return [
    'Access-Control-Allow-Origin',
    origin,
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

/** `response` with no `Access-Control-*` header: a copy, its headers a new list. */
export function corsRemoved(response: AppResponse): AppResponse {
  const headers: string[] = []
  for (let i = 0; i < response.headers.length; i += 2) {
    const name = response.headers[i]!
    if (!/^access-control-/i.test(name)) headers.push(name, response.headers[i + 1]!)
  }
  return { ...response, headers }
}
