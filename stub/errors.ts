/** The stub's one error type and what writes the spec's Error body. */
import type { JsonValue, Spec } from '../spec/index.js'
import { valueMaker } from './generate.js'

/** HTTP statuses the stub can answer with an Error body (429 and 503 only when a client asks for them). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 421 | 429 | 431 | 503

/** A request the stub refuses: HTTP status, a distinct machine-readable `code`, and a plain sentence. */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** The spec's Error body `{code, message, status}` (status repeats the HTTP status), as JSON text. */
export function errorBody(error: ApiError): string {
  return JSON.stringify({ code: error.code, message: error.message, status: error.status })
}

/** The properties the stub always writes in an Error body. */
const WRITTEN = ['code', 'message', 'status']

/**
 * Writes Error bodies by the served spec's Error schema. The bundled one is `{code, message, status}`; a revision may
 * require more (a `traceId`, made as {@link valueMaker} makes a value), enumerate the codes (the stub's code is then
 * replaced by the nearest listed one), or bound the message (cut to fit).
 */
export class ErrorWriter {
  readonly #more: { name: string; value: () => JsonValue }[]
  readonly #codes: readonly string[] | undefined
  readonly #maxMessage: number | undefined

  constructor(spec: Spec) {
    const properties = spec.propertiesOf('Error')
    this.#more = spec
      .requiredOf('Error')
      .filter((name) => !WRITTEN.includes(name) && properties[name] !== undefined)
      .map((name) => ({ name, value: valueMaker(spec, properties[name]!) }))
    const codes: unknown = properties.code?.enum
    this.#codes = Array.isArray(codes) && codes.every((c) => typeof c === 'string') ? codes : undefined
    const max: unknown = properties.message?.maxLength
    this.#maxMessage = typeof max === 'number' ? max : undefined
  }

  /** The Error body of `error` as JSON text. */
  write(error: ApiError): string {
    if (!this.#more.length && !this.#codes && this.#maxMessage === undefined) return errorBody(error)
    const body: Record<string, JsonValue> = {
      code: this.#codes ? nearest(error, this.#codes) : error.code,
      message: cut(error.message, this.#maxMessage),
      status: error.status,
    }
    for (const { name, value } of this.#more) body[name] = value()
    return JSON.stringify(body)
  }
}

/** The reason phrases of the statuses the stub answers with (RFC 9110 §15): words an Error code may share. */
const REASONS: Record<ErrorStatus, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  421: 'Misdirected Request',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable',
}

/**
 * The listed code nearest the stub's: the one sharing most words with it (`pet_not_found` -> `not_found`), then with
 * the status's reason phrase (`missing_credentials` on 401 -> `unauthorized`); else the first listed.
 */
function nearest(error: ApiError, codes: readonly string[]): string {
  if (codes.includes(error.code) || codes.length === 0) return error.code
  const words = (text: string) =>
    new Set(
      text
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean),
    )
  const mine = words(error.code)
  const reason = words(REASONS[error.status])
  let best = codes[0]!
  let score = 0
  for (const candidate of codes) {
    const theirs = [...words(candidate)]
    const count = 2 * theirs.filter((word) => mine.has(word)).length + theirs.filter((word) => reason.has(word)).length
    if (count > score) [best, score] = [candidate, count]
  }
  return best
}

/** `text` within `max` code points, ending in an ellipsis when cut. */
function cut(text: string, max: number | undefined): string {
  if (max === undefined) return text
  const points = [...text]
  return points.length <= max ? text : points.slice(0, Math.max(0, max - 1)).join('') + (max > 0 ? '…' : '')
}
