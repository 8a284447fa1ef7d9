/**
 * What the transport records of each request: plain data that fixtures can hold and reports can print.
 * The `Authorization` value is never kept (only its scheme), and bodies keep their exact text so int64 digits survive.
 */
import type { JsonValue, OperationId } from '../spec/index.js'

/** The credential a request carried, as the suite chose it. */
export type Credential =
  | 'key' // `Bearer <key>`: the real key
  | 'none' // no Authorization header
  | 'empty' // `Bearer ` with no token
  | 'wrong' // `Bearer <a made-up key>`
  | 'basic' // the real key under another scheme: `Basic <key>`
  | 'extended' // the real key with a character appended
  | 'truncated' // the real key without its last character
  | 'lowercase-scheme' // `bearer <key>`: schemes are case-insensitive (RFC 9110 §11.1)
  | 'uppercase-scheme' // `BEARER <key>`: likewise
  | 'case-changed' // the real key with the case of its letters swapped: keys are compared exactly

/** A request a scenario wants sent. */
export interface Request {
  /** The documented operation it calls; undefined for an undocumented method or path variant. */
  operationId?: OperationId
  method: string
  /** Relative to the base address, e.g. `/pets` or `/pets/42`, sent as written (no re-encoding). */
  path: string
  /** Query parameters in order, percent-encoded by the transport (or sent as written with `rawQuery`). */
  query?: [string, string][]
  /** The query string exactly as it goes on the wire, without `?`; wins over `query`. */
  rawQuery?: string
  /** The raw body; undefined sends none. */
  body?: string
  /** Defaults to `application/json` when a body is sent. */
  contentType?: string
  /** More request headers (never Authorization). */
  headers?: Record<string, string>
  /** Defaults to the real key. */
  credential?: Credential
  /** This request's timeout in ms, when not the transport's own. */
  timeoutMs?: number
}

/** One HTTP request as sent, `Authorization` redacted. */
export interface RecordedRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: string
}

/** One HTTP response as received; `rawBody` is the exact text (bounded, see `truncated`), so int64 digits survive. */
export interface RecordedResponse {
  status: number
  headers: Record<string, string>
  rawBody: string
}

/**
 * How a transport's `error` begins when the connection was closed before any part of an answer arrived (a reset):
 * the one reason a check tells apart by its text.
 */
export const CLOSED_WITHOUT_ANSWER = 'connection closed without any answer (reset)'

/** A request and what came of it: a response, or a transport error (timeout, reset, garbage). */
export interface RecordedExchange {
  operationId?: OperationId
  request: RecordedRequest
  response?: RecordedResponse
  /** Why no response came, e.g. `timeout after 5000 ms`. */
  error?: string
  durationMs: number
}

/** The response body as parsed without loss, or why it could not be. */
export type Parsed = { kind: 'json'; value: JsonValue } | { kind: 'empty' } | { kind: 'invalid'; error: string }

/** One exchange as the engine and the checks see it: recorded once by the transport, parsed, int64-exact. */
export interface Exchange extends RecordedExchange {
  /** The response body parsed (bigint beyond 2^53); reports hold `rawBody`, never this. */
  json: Parsed
  /** A `curl` command that sends the same request, the key read from `$PETSTORE_API_KEY`. */
  curl: string
  credential: Credential
  /** HTTP requests it took, retries after 429 and safe retries after a closed connection included. */
  attempts: number
  /** Response body bytes received, before any bound was applied. */
  bodyBytes?: number
  /**
   * A second judge's verdict on this exchange (Prism's violations): one entry per check it judged, with a message
   * where it found a violation; undefined when it gave no verdict.
   */
  secondOpinion?: { checkId: string; title: string; message?: string }[]
}

/** The exchange as reports hold it: plain JSON, no parsed body, no bigint. */
export function recorded(exchange: RecordedExchange): RecordedExchange {
  const { operationId, request, response, error, durationMs } = exchange
  return {
    ...(operationId ? { operationId } : {}),
    request,
    ...(response ? { response } : {}),
    ...(error !== undefined ? { error } : {}),
    durationMs,
  }
}
