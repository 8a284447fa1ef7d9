/**
 * Live HTTP to a target, with node:http. It tolerates what a server may legally do: close an idle
 * connection at any time, compress, chunk, send 1xx interim answers. It bounds what a server may send:
 * the body (decompressed too), the time a request takes. A GET that meets a connection closed under it is
 * sent again on a fresh one; a POST always goes on a fresh connection, so it is never replayed blindly. It never
 * follows a redirect: a 3xx is the target's answer, recorded with its `Location` for the checks to judge.
 */
import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import type { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { CLOSED_WITHOUT_ANSWER, type Exchange, type Request } from '../../model/index.js'
import {
  answered,
  BODY_TOO_LARGE,
  BodyBuffer,
  prepare,
  requestTimer,
  unanswered,
  type Prepared,
  type Transport,
  type TransportOptions,
} from './transport.js'

/** Methods a client may send again when a reused connection closed under them (RFC 9110 §9.2.2, idempotent). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE'])

/** Where a request was when it failed: whether any answer had begun, and over which scheme. */
export interface FailureContext {
  /** Some of the answer (a status line, an interim answer) had arrived. */
  answered?: boolean
  /** The URL's scheme, `http:` or `https:`. */
  protocol?: string
  /** Bytes of the request body sent, if it had one. */
  bodyBytes?: number
}

/**
 * The certificate-verification codes (OpenSSL's, as Node reports them) of a chain Node cannot trust, each with
 * its hint: a certificate of a private CA (Node reads more CAs from NODE_EXTRA_CA_CERTS), or, for a leaf whose
 * issuer is missing, a server that does not send its chain.
 */
const UNTRUSTED = new Map<string, string>([
  ...[
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'CERT_UNTRUSTED',
    'INVALID_CA',
  ].map((code): [string, string] => [code, '; for a private CA, set NODE_EXTRA_CA_CERTS to its PEM file']),
  [
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    "; for a private CA, set NODE_EXTRA_CA_CERTS to its PEM file (and its intermediates', if the server does not send its chain)",
  ],
])

/** The other certificate-verification codes: the certificate is known but wrong (expired, revoked, malformed). */
const CERTIFICATE = new Set([
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
])

/** One line saying why no response came. */
export function describeTransportError(error: unknown, timeoutMs: number, context: FailureContext = {}): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string } }
  const code = e.code ?? e.cause?.code
  const message = e.message ?? String(error)
  if (code === 'TIMEOUT') return `timeout after ${timeoutMs} ms`
  if (code === 'BODY_TOO_LARGE') return message
  if (code === 'ECONNREFUSED') return 'connection refused'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${code})`
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up|aborted/i.test(message)) {
    if (context.answered !== false) return 'connection closed before a complete response (reset)'
    // With a body: a server refusing it may close the connection while it is sent (RFC 9112 §9.6).
    if (context.bodyBytes) return `${CLOSED_WITHOUT_ANSWER}, to a request with a body of ${context.bodyBytes} bytes`
    // A TLS server on the port closes a plain-HTTP request's connection without a word.
    return `${CLOSED_WITHOUT_ANSWER}${context.protocol === 'http:' ? '; if the port speaks TLS, the URL should start with https://' : ''}`
  }
  if (code === 'HPE_HEADER_OVERFLOW')
    return `not a valid HTTP response (its headers are larger than the ${http.maxHeaderSize} bytes the suite reads)`
  if (code?.startsWith('HPE_')) return `not a valid HTTP response (${message.split('\n')[0]})`
  if (code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(message)) {
    return 'TLS failed: the port does not speak TLS (wrong version number); if it serves plain HTTP, the URL should start with http://'
  }
  if (
    code !== undefined &&
    (UNTRUSTED.has(code) || CERTIFICATE.has(code) || code.startsWith('ERR_TLS') || code === 'EPROTO')
  )
    return `TLS failed: ${message.split('\n')[0]} (${code})${UNTRUSTED.get(code) ?? ''}`
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code === 'ERR__ERROR_FORMAT_PADDING_1') {
    return `the body could not be decompressed (${message})`
  }
  return code ? `${message.split('\n')[0]} (${code})` : message.split('\n')[0]!
}

class TransportFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** The headers as received, names lower-cased, repeated fields joined as RFC 9110 §5.3 allows. */
function headersOf(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = Object.create(null)
  const raw = response.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    headers[name] = name in headers ? `${headers[name]}, ${raw[i + 1]}` : raw[i + 1]!
  }
  return { ...headers }
}

/** The body, decompressed as its Content-Encoding says, bounded in size before and after decompression. */
function bodyStream(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase()
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined
  if (!decoder) return response
  response.on('error', (error) => decoder.destroy(error))
  return response.pipe(decoder)
}

/** A transport over live HTTP(S). */
export class HttpTransport implements Transport {
  readonly baseUrl: string
  readonly #options: TransportOptions
  readonly #agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  }

  constructor(options: TransportOptions) {
    this.#options = options
    this.baseUrl = options.baseUrl
  }

  async send(request: Request): Promise<Exchange> {
    const prepared = prepare(request, this.#options)
    const timeoutMs = request.timeoutMs ?? this.#options.timeoutMs
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    // A POST never rides a kept-alive connection the server may be closing: it could not be sent again.
    const fresh = !IDEMPOTENT.has(request.method.toUpperCase())
    let attempts = 1
    let attempt = await this.#once(prepared, request.body, fresh, timeoutMs)
    if ('retry' in attempt) {
      // The server closed an idle connection as it was reused, before answering: nothing happened there.
      attempts++
      attempt = await this.#once(prepared, request.body, true, timeoutMs)
    }
    if ('retry' in attempt)
      attempt = { error: Object.assign(new Error('reset'), { code: 'ECONNRESET' }), answered: false }
    const exchange =
      'error' in attempt
        ? unanswered(
            prepared,
            describeTransportError(attempt.error, timeoutMs, {
              answered: attempt.answered,
              protocol: new URL(prepared.sent).protocol,
              ...(request.body ? { bodyBytes: Buffer.byteLength(request.body, 'utf8') } : {}),
            }),
            elapsed(),
          )
        : answered(
            prepared,
            { status: attempt.status, headers: attempt.headers, body: attempt.body, totalBytes: attempt.size },
            elapsed(),
          )
    return { ...exchange, attempts }
  }

  async close(): Promise<void> {
    this.#agents['http:'].destroy()
    this.#agents['https:'].destroy()
  }

  #once(
    prepared: Prepared,
    body: string | undefined,
    fresh: boolean,
    timeoutMs: number,
  ): Promise<
    | { status: number; headers: Record<string, string>; body: Buffer; size: number }
    | { error: unknown; answered: boolean }
    | { retry: true }
  > {
    return new Promise((resolve) => {
      let settled = false
      const url = new URL(prepared.sent)
      const lib = url.protocol === 'https:' ? https : http
      const agent = fresh ? false : this.#agents[url.protocol as 'http:' | 'https:']
      const payload = body === undefined ? undefined : Buffer.from(body, 'utf8')
      const headers = payload ? { ...prepared.headers, 'content-length': String(payload.byteLength) } : prepared.headers
      const req = lib.request(url, {
        method: prepared.record.request.method,
        headers: { 'accept-encoding': 'gzip, deflate, br', ...headers },
        agent,
      })
      let answeredAtAll = false
      const finish = (outcome: Parameters<typeof resolve>[0]) => {
        if (settled) return
        settled = true
        cancelTimer()
        resolve(outcome)
      }
      const fail = (error: unknown) => {
        const code = (error as { code?: string }).code
        const raced = !fresh && req.reusedSocket && !answeredAtAll && (code === 'ECONNRESET' || code === 'EPIPE')
        req.destroy()
        finish(raced ? { retry: true } : { error, answered: answeredAtAll })
      }
      const cancelTimer = requestTimer(timeoutMs, () => fail(new TransportFailure('TIMEOUT', 'timeout')))
      req.on('error', fail)
      req.on('information', () => {
        answeredAtAll = true // 1xx interim answers: the final one follows
      })
      req.on('response', (response) => {
        answeredAtAll = true
        const body = new BodyBuffer()
        const stream = bodyStream(response)
        stream.on('data', (chunk: Buffer) => {
          if (settled || body.add(chunk)) return
          // Said first: destroying the stream makes the request fail as a reset, which must not be the reason given.
          fail(new TransportFailure('BODY_TOO_LARGE', BODY_TOO_LARGE))
          stream.destroy()
        })
        stream.on('error', fail)
        response.on('aborted', () => fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })))
        stream.on('end', () =>
          finish({
            status: response.statusCode ?? 0,
            headers: headersOf(response),
            body: body.head(),
            size: body.size,
          }),
        )
      })
      req.end(payload)
    })
  }
}
