/**
 * The one way the suite reaches a target. A transport turns a `Request` into an `Exchange`, recorded once,
 * here: `Authorization` redacted, the body's exact text kept (bounded), parsed without losing int64 digits.
 * It never throws at a bad target: a timeout, reset or garbage is an exchange with `error`.
 */
import type { Credential, Exchange, Parsed, RecordedRequest, Request } from '../../model/index.js'
import { MAX_PARSED_CHARS, readBody } from './body.js'
import { authorizationFor, curlLine, redactedAuthorization } from './curl.js'

/** Sends requests to one target. */
export interface Transport {
  /** The target's base address as reports show it, `/v1` included. */
  readonly baseUrl: string
  /** Sends one request once; never throws at the target's behaviour. */
  send(request: Request): Promise<Exchange>
  /** Frees what it holds (kept-alive connections). */
  close(): Promise<void>
}

/** Largest response body the suite reads; a larger one is a transport error (and never held in memory whole). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024

// A timer this late means the process itself was busy (a property's generator, a large parse), not the target.
const LATE_MS = 50
// How often a timeout is put off for the process's own busy spells; each time by at most the timeout itself.
const MAX_DEFERRALS = 3

/**
 * Calls `onTimeout` after `ms`, not counting time the event loop was blocked by the suite's own work: a timer that
 * fires late gives answers that arrived meanwhile the chance to be read first. Returns a function that cancels it.
 */
export function requestTimer(ms: number, onTimeout: () => void): () => void {
  let due = performance.now() + ms
  let deferrals = 0
  let timer: ReturnType<typeof setTimeout>
  const fire = () => {
    const late = performance.now() - due
    if (late > LATE_MS && deferrals++ < MAX_DEFERRALS) {
      due = performance.now() + Math.min(late, ms)
      timer = setTimeout(fire, Math.min(late, ms))
      return
    }
    onTimeout()
  }
  timer = setTimeout(fire, ms)
  return () => clearTimeout(timer)
}

/** Most bytes of a body a transport keeps: all the suite parses, and one more to know there was more. */
const MAX_KEPT_BYTES = MAX_PARSED_CHARS + 1

/** Why a body was not read to its end. */
export const BODY_TOO_LARGE = `response body larger than ${MAX_BODY_BYTES} bytes (${MAX_BODY_BYTES / 1024 / 1024} MiB): read no further`

/**
 * A response body as it arrives, whatever the transport: every byte counted, the first `MAX_KEPT_BYTES` kept.
 * Past what the suite parses a body is counted, not held: 16 MiB bodies in flight side by side add up.
 */
export class BodyBuffer {
  /** Bytes received so far. */
  size = 0
  #kept = 0
  #chunks: Uint8Array[] = []

  /** Adds a chunk; false once the body is larger than `MAX_BODY_BYTES`, and then nothing is held any more. */
  add(chunk: Uint8Array): boolean {
    this.size += chunk.byteLength
    if (this.size > MAX_BODY_BYTES) {
      this.drop()
      return false
    }
    const room = MAX_KEPT_BYTES - this.#kept
    if (room > 0) {
      const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room)
      this.#chunks.push(part)
      this.#kept += part.byteLength
    }
    return true
  }

  /** What was kept: the whole body, or its beginning. */
  head(): Buffer {
    return Buffer.concat(this.#chunks)
  }

  /** Lets go of what was kept (a body the suite gave up on). */
  drop(): void {
    this.#chunks = []
  }
}

/** What every transport needs to know. */
export interface TransportOptions {
  /** The target's base address as reports show it, e.g. `https://staging.example/v1`. */
  baseUrl: string
  /** Where requests really go, when something sits in between (Prism's proxy). */
  sendBaseUrl?: string
  apiKey: string
  timeoutMs: number
}

/** A request made ready to send: the headers on the wire, and its record with the key redacted. */
export interface Prepared {
  /** The URL as reports show it. */
  shown: string
  /** The URL the request goes to. */
  sent: string
  headers: Record<string, string>
  credential: Credential
  record: Omit<Exchange, 'json' | 'durationMs'>
}

/** The path and query of a request, as written on the wire. */
export function pathAndQuery(request: Request): string {
  const search =
    request.rawQuery ??
    (request.query ?? []).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
  return `${request.path}${search ? `?${search}` : ''}`
}

/** Builds the headers of a request and its record (the key never in it). */
export function prepare(request: Request, options: TransportOptions): Prepared {
  const suffix = pathAndQuery(request)
  const shown = `${options.baseUrl}${suffix}`
  const sent = `${options.sendBaseUrl ?? options.baseUrl}${suffix}`
  const credential = request.credential ?? 'key'
  const contentType = request.body !== undefined ? (request.contentType ?? 'application/json') : request.contentType
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'petstore-conformance',
    ...request.headers,
  }
  if (contentType) headers['content-type'] = contentType
  const recordedHeaders = { ...headers }
  const authorization = authorizationFor(credential, options.apiKey)
  if (authorization !== undefined) {
    headers.authorization = authorization
    recordedHeaders.authorization = redactedAuthorization(credential)!
  }
  const recordedRequest: RecordedRequest = {
    method: request.method,
    url: shown,
    headers: recordedHeaders,
    ...(request.body !== undefined ? { body: request.body } : {}),
  }
  return {
    shown,
    sent,
    headers,
    credential,
    record: {
      ...(request.operationId ? { operationId: request.operationId } : {}),
      request: recordedRequest,
      curl: curlLine({
        method: request.method,
        url: shown,
        credential,
        contentType,
        body: request.body,
        headers: request.headers,
      }),
      credential,
      attempts: 1,
    },
  }
}

/**
 * The exchange of an answered request. `body` may be only the body's beginning (a transport keeps no more than
 * `MAX_KEPT_BYTES` of a body it reads to the end); `totalBytes` is then the size of the whole.
 */
export function answered(
  prepared: Prepared,
  {
    status,
    headers,
    body,
    totalBytes = body.byteLength,
  }: { status: number; headers: Record<string, string>; body: Uint8Array; totalBytes?: number },
  durationMs: number,
): Exchange {
  const { text, json } = readBody(body, totalBytes)
  return {
    ...prepared.record,
    response: { status, headers, rawBody: text },
    json,
    bodyBytes: totalBytes,
    durationMs,
  }
}

const EMPTY: Parsed = { kind: 'empty' }

/** The exchange of a request that got no HTTP answer. */
export function unanswered(prepared: Prepared, error: string, durationMs: number): Exchange {
  return { ...prepared.record, error, json: EMPTY, durationMs }
}
