/**
 * The only code that talks to the target. Each request becomes one `Exchange`: recorded once, here,
 * with `Authorization` redacted and the raw body kept so int64 digits survive. A misbehaving target
 * (timeout, reset, garbage) yields an exchange with `error`; this client never throws at it.
 */
import { Agent as HttpAgent } from 'node:http'
import { isUtf8 } from 'node:buffer'
import { Agent as HttpsAgent } from 'node:https'
import axios, { type AxiosResponse } from 'axios'
import { parseJson, type JsonValue, type OperationId } from '../spec/index.js'
import { authorizationFor, curlLine, redactedAuthorization, type Credential } from './curl.js'
import type { Finding, RecordedExchange, RecordedRequest, RecordedResponse } from './model.js'

export { type Credential } from './curl.js'

/** The response body as parsed without loss, or why it could not be. */
export type Parsed = { kind: 'json'; value: JsonValue } | { kind: 'empty' } | { kind: 'invalid'; error: string }

/** A request the suite wants sent. */
export interface Request {
  operationId: OperationId
  method: 'GET' | 'POST'
  /** Relative to the base address, e.g. `/pets` or `/pets/42`. */
  path: string
  /** Query parameters in order, sent exactly as given. */
  query?: [string, string][]
  /** The raw body; undefined sends none. */
  body?: string
  /** Defaults to `application/json` when a body is sent. */
  contentType?: string
  /** Defaults to the real key. */
  credential?: Credential
}

/** One request and what came of it, redacted and int64-exact, with what the suite needs to judge it. */
export interface Exchange extends RecordedExchange {
  operationId: OperationId
  /** The response body parsed (bigint beyond 2^53); never put into reports: use `recorded`. */
  json: Parsed
  curl: string
  credential: Credential
  /** Findings the response hook reported (Prism's violations header); undefined when it gave no verdict. */
  hookFindings?: Finding[]
  /** HTTP requests it took, retries after 429 included. */
  attempts: number
  /** The connection was a reused keep-alive one and was reset before any answer: worth one retry. */
  reusedSocketReset?: boolean
}

/** How the client reaches the target. */
export interface ClientOptions {
  /** The target's base address as reports show it, e.g. `https://staging.example/v1`. */
  baseUrl: string
  /** Where requests really go, when something sits in between (Prism's proxy routes without `/v1`). */
  sendBaseUrl?: string
  apiKey: string
  timeoutMs: number
  /** Called on every response; what it returns lands in `exchange.hookFindings` (undefined: no verdict). */
  onResponse?: (exchange: Exchange) => Finding[] | undefined
  /** Longest a run waits out rate limiting for one request. */
  maxRateLimitWaitMs?: number
}

const MAX_BODY_BYTES = 16 * 1024 * 1024
// Keeps a byte order mark, so the checks can see one; bad bytes become U+FFFD for display.
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true })
const MAX_RATE_LIMIT_RETRIES = 5
const MAX_SINGLE_WAIT_MS = 10_000
/** The shortest wait after a 429, doubled on each further 429 of the same request. */
const MIN_RATE_LIMIT_WAIT_MS = 250

/** Parses a response body without losing int64 digits. */
export function parseBody(raw: string): Parsed {
  if (raw.trim() === '') return { kind: 'empty' }
  if (raw.startsWith('\uFEFF')) return { kind: 'invalid', error: 'it starts with a byte order mark, which RFC 8259 §8.1 forbids' }
  try {
    return { kind: 'json', value: parseJson(raw) }
  } catch (error) {
    return { kind: 'invalid', error: (error as Error).message }
  }
}

/** How long a `Retry-After` value (seconds or an HTTP date) asks to wait, in ms; 1 s when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number {
  if (value === undefined) return 1000
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? 1000 : Math.max(0, date - now)
}

/** Replaces every occurrence of `secret` in `text` (a target may echo the key back). */
export function scrubSecret(text: string, secret: string): string {
  return secret.length >= 3 && text.includes(secret) ? text.split(secret).join('[REDACTED]') : text
}

/** The exchange as reports hold it: plain JSON, no parsed body, no bigint. */
export function recorded(exchange: Exchange | RecordedExchange): RecordedExchange {
  const { operationId, request, response, error, durationMs } = exchange as RecordedExchange
  return {
    ...(operationId ? { operationId } : {}),
    request,
    ...(response ? { response } : {}),
    ...(error !== undefined ? { error } : {}),
    durationMs,
  }
}

function headersOf(response: AxiosResponse): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    if (value === undefined || value === null) continue
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return headers
}

/** One line saying why no response came. */
export function describeTransportError(error: unknown, timeoutMs: number): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } }
  const code = e.code ?? e.cause?.code
  const message = e.message ?? String(error)
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ERR_CANCELED' || /timeout/i.test(message)) {
    return `timeout after ${timeoutMs} ms`
  }
  if (code === 'ECONNREFUSED') return 'connection refused'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${code})`
  if (code === 'ECONNRESET' || /socket hang up|aborted/i.test(message)) {
    return 'connection closed before a complete response (reset)'
  }
  if (code?.startsWith('HPE_') || /parse error/i.test(message)) return `not a valid HTTP response (${message})`
  if (code === 'ERR_FR_MAX_BODY_LENGTH_EXCEEDED' || /maxContentLength/i.test(message)) {
    return `response body larger than ${MAX_BODY_BYTES} bytes`
  }
  return code ? `${message} (${code})` : message
}

/** Sends requests to the target and records each exchange once. */
export class Client {
  readonly options: ClientOptions
  /** HTTP requests sent, retries after 429 included. */
  requestsSent = 0
  /** Pets the target said it created (2xx to createPet). */
  petsCreated = 0
  /** Per-request timeout; the run may shorten it once a target has shown it lets requests hang. */
  timeoutMs: number
  #pausedUntil = 0
  readonly #http = new HttpAgent({ keepAlive: true, maxSockets: 32 })
  readonly #https = new HttpsAgent({ keepAlive: true, maxSockets: 32 })

  constructor(options: ClientOptions) {
    this.options = options
    this.timeoutMs = options.timeoutMs
  }

  /** Sends one request; waits out 429 (bounded) and returns the exchange, never throws at a bad target. */
  async send(request: Request): Promise<Exchange> {
    const started = performance.now()
    let waited = 0
    let retries = 0
    for (let attempt = 1; ; attempt++) {
      const pause = this.#pausedUntil - Date.now()
      if (pause > 0) await sleep(pause) // another request of this client met a 429
      let exchange = await this.#once(request)
      if (exchange.reusedSocketReset) {
        retries++ // the server closed an idle keep-alive connection just as it was reused
        exchange = await this.#once(request)
      }
      const status = exchange.response?.status
      if (status === 429 && attempt <= MAX_RATE_LIMIT_RETRIES) {
        // Retry-After rounds down to 0 on limiters counting in seconds: back off at least 250 ms, doubling.
        const backoff = MIN_RATE_LIMIT_WAIT_MS * 2 ** (attempt - 1)
        const wait = Math.min(MAX_SINGLE_WAIT_MS, Math.max(backoff, retryAfterMs(exchange.response?.headers['retry-after'], Date.now())))
        if (waited + wait <= (this.options.maxRateLimitWaitMs ?? 20_000)) {
          waited += wait
          this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + wait)
          continue
        }
      }
      exchange.durationMs = Math.round(performance.now() - started)
      exchange.attempts = attempt + retries
      if (request.operationId === 'createPet' && status !== undefined && status >= 200 && status < 300) this.petsCreated++
      if (exchange.response && this.options.onResponse) exchange.hookFindings = this.options.onResponse(exchange)
      return exchange
    }
  }

  /** Frees the connections kept alive. */
  close(): void {
    this.#http.destroy()
    this.#https.destroy()
  }

  /** The URL a path (and query) has on the target as reports show it, and where it is sent. */
  urls(path: string, query: [string, string][] = []): { shown: string; sent: string } {
    const search = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
    const suffix = `${path}${search ? `?${search}` : ''}`
    return { shown: `${this.options.baseUrl}${suffix}`, sent: `${this.options.sendBaseUrl ?? this.options.baseUrl}${suffix}` }
  }

  async #once(request: Request): Promise<Exchange> {
    const { apiKey } = this.options
    const timeoutMs = this.timeoutMs
    const credential = request.credential ?? 'key'
    const { shown, sent } = this.urls(request.path, request.query)
    const contentType = request.body !== undefined ? (request.contentType ?? 'application/json') : request.contentType
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'petstore-conformance' }
    if (contentType) headers['content-type'] = contentType
    const recordedHeaders = { ...headers }
    const authorization = authorizationFor(credential, apiKey)
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
    const base: Omit<Exchange, 'json'> = {
      operationId: request.operationId,
      request: recordedRequest,
      durationMs: 0,
      curl: curlLine({ method: request.method, url: shown, credential, contentType, body: request.body }),
      credential,
      attempts: 1,
    }
    this.requestsSent++
    const started = performance.now()
    try {
      const response = await axios.request<ArrayBuffer>({
        method: request.method,
        url: sent,
        headers,
        data: request.body,
        timeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs + 50), // the axios timeout is idle time; this bounds the whole exchange
        validateStatus: () => true,
        responseType: 'arraybuffer', // bytes: axios would strip a byte order mark from text
        transformRequest: [(data) => data], // send the body byte for byte
        transformResponse: [(data) => data], // keep the raw bytes: parseJson keeps int64 digits
        maxRedirects: 0,
        proxy: false,
        maxContentLength: MAX_BODY_BYTES,
        httpAgent: this.#http,
        httpsAgent: this.#https,
      })
      const bytes = Buffer.from(response.data ?? [])
      const raw = UTF8.decode(bytes)
      const json: Parsed = isUtf8(bytes) ? parseBody(raw) : { kind: 'invalid', error: 'it is not valid UTF-8' }
      const recordedResponse: RecordedResponse = {
        status: response.status,
        headers: Object.fromEntries(Object.entries(headersOf(response)).map(([k, v]) => [k, scrubSecret(v, apiKey)])),
        rawBody: scrubSecret(raw, apiKey),
      }
      return { ...base, response: recordedResponse, json, durationMs: Math.round(performance.now() - started) }
    } catch (error) {
      const reason = scrubSecret(describeTransportError(error, timeoutMs), apiKey)
      // A reset on a kept-alive socket before any answer is the usual keep-alive race, not the target's doing.
      const reusedSocketReset = (error as { request?: { reusedSocket?: boolean } }).request?.reusedSocket === true && /reset|closed before/.test(reason)
      return { ...base, error: reason, json: { kind: 'empty' }, durationMs: Math.round(performance.now() - started), reusedSocketReset }
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
