/**
 * The stub as a Fetch API handler (`Request` -> `Promise<Response>`), with no socket: for MSW, undici's
 * MockAgent, or any fetch-based test. It drives the same {@link Handler} as the node server, with the same
 * body limit, and maps socket directives onto what `fetch` shows for them.
 */
import { isAdmin } from './admin-path.js'
import type { Journal } from './journal.js'
import { asRouted, TRICKLE_MS, type AppRequest, type AppResponse, type Handler, type RequestHeaders } from './app.js'

/** The request headers the app reads (Fetch joins repeated ones with `, `, so two keys read as one bad key). */
const READ = [
  'authorization',
  'origin',
  'content-type',
  'content-length',
  'content-encoding',
  'prefer',
  'access-control-request-headers',
  'access-control-request-method',
  'accept',
  'sec-fetch-site',
  'referer',
] as const

/** Statuses whose responses can have no body (Fetch refuses to build them with one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304])

/** Answers one request as the node server would answer it over HTTP, recording it in `journal` if given. */
export async function fetchWith(handler: Handler, request: Request, journal?: Journal): Promise<Response> {
  const started = performance.now()
  // A URL, a text or a plain object is no Request: said so, rather than failing on a property it lacks.
  if (!(request instanceof Request) && !isRequestLike(request))
    throw new TypeError("the stub's fetch takes a Request: stub.fetch(new Request(url, init))")
  const signal = request.signal
  signal.throwIfAborted()
  const url = new URL(request.url)
  const headers: RequestHeaders = {}
  for (const name of READ) {
    const value = request.headers.get(name)
    if (value !== null) headers[name] = value
  }
  headers.host = url.host // what a page's own origin is compared with; no Host is refused in-process
  const appRequest: AppRequest = { method: request.method, url: url.pathname + url.search, headers }
  let response: AppResponse
  let body: Uint8Array | undefined
  const record =
    journal && !isAdmin(appRequest.url)
      ? (answer?: AppResponse) => journal.record(appRequest, answer, performance.now() - started, body)
      : undefined
  const routed = handler.route(appRequest)
  if (!('kind' in routed)) response = routed
  else {
    const limit = routed.maxBody ?? handler.maxBody
    let read: Uint8Array | 'too large' | 'too slow'
    try {
      read = Number(headers['content-length']) > limit ? 'too large' : await readBody(request, limit)
    } catch (error) {
      if (signal.aborted) record?.(undefined) // the caller gave up mid-body: no answer, as over HTTP
      throw error
    }
    try {
      if (read === 'too large') response = asRouted(routed, handler.tooLarge(limit))
      else if (read === 'too slow')
        response = asRouted(
          routed,
          handler.protocolError(408, 'request_timeout', 'the request took too long to arrive'),
        )
      else response = await routed.accept((body = read))
    } catch (error) {
      response = asRouted(routed, handler.failure(error, routed.operationId))
    }
  }
  if (response.delayMs) {
    try {
      await sleep(response.delayMs, signal)
    } catch (error) {
      record?.(undefined) // the caller gave up during the delay: no answer
      throw error
    }
  }
  record?.(response)
  return toFetchResponse(response, request)
}

/** How long a body may take to arrive whole, as over HTTP (stub/server.ts): a 408 then. */
export const BODY_TIMEOUT_MS = 30_000

/**
 * The whole body, `'too large'` once it grows past `limit` (the rest is not read), or `'too slow'` when it has not
 * ended within {@link BODY_TIMEOUT_MS}, as the server answers over HTTP. Rejects with the caller's reason when it gives
 * up (aborts) before the body ended, as fetch does.
 */
async function readBody(request: Request, limit: number): Promise<Uint8Array | 'too large' | 'too slow'> {
  if (request.body === null) return new Uint8Array(0)
  const reader = request.body.getReader()
  const signal = request.signal
  signal.throwIfAborted()
  let stop!: (why: { stopped: 'too slow' } | { stopped: 'aborted'; reason: unknown }) => void
  const stopped = new Promise<{ stopped: 'too slow' } | { stopped: 'aborted'; reason: unknown }>(
    (resolve) => (stop = resolve),
  )
  const onAbort = () => stop({ stopped: 'aborted', reason: signal.reason })
  signal.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(() => stop({ stopped: 'too slow' }), BODY_TIMEOUT_MS)
  timer.unref?.()
  try {
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const next = await Promise.race([reader.read(), stopped])
      if ('stopped' in next) {
        reader.cancel().catch(() => undefined)
        if (next.stopped === 'too slow') return 'too slow'
        throw next.reason
      }
      if (next.done) break
      // As fetch sends a body stream's chunks over HTTP: text as UTF-8, any view's bytes; anything else it rejects.
      const chunk = bytesOfChunk(next.value as unknown)
      if (chunk === undefined) {
        reader.cancel().catch(() => undefined)
        throw new TypeError(
          `the request's body stream gave ${describe(next.value)}: fetch sends only text, typed arrays and DataViews`,
        )
      }
      size += chunk.byteLength
      if (size > limit) {
        await reader.cancel()
        return 'too large'
      }
      chunks.push(chunk)
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
  }
}

/** The requests answered with a hang, held until their caller gives up (see `toFetchResponse`). */
const hanging = new Set<Request>()

/** What `fetch` shows when a server closes or resets the connection instead of answering. */
function networkError(reason: string, code: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(reason), { code }) })
}

function toFetchResponse(response: AppResponse, request: Request): Promise<Response> | Response {
  const signal = request.signal
  switch (response.socket) {
    case 'reset':
      throw networkError('read ECONNRESET', 'ECONNRESET')
    case 'empty':
      throw networkError('other side closed', 'UND_ERR_SOCKET')
    case 'hang':
      // Settles only when the caller gives up, with the reason it gave (what fetch does), at once if it already has.
      if (signal.aborted) return Promise.reject(signal.reason as Error)
      return new Promise((_, reject) => {
        // A Request follows its caller's signal through a weak reference: held by nothing else, it could be collected
        // and would then never hear that the caller gave up. It is held until then.
        hanging.add(request)
        signal.addEventListener(
          'abort',
          () => {
            hanging.delete(request)
            reject(signal.reason)
          },
          { once: true },
        )
      })
  }
  const headers: [string, string][] = []
  for (let i = 0; i < response.headers.length; i += 2) headers.push([response.headers[i]!, response.headers[i + 1]!])
  const init = { status: response.status, headers }
  // HEAD and null-body statuses carry no body over HTTP either.
  if (request.method === 'HEAD' || NULL_BODY.has(response.status)) return new Response(null, init)
  if (response.pieces) return new Response(streamOf(response.pieces), init)
  if (response.socket === 'malformed-chunk') return new Response(brokenBody(response.body), init)
  if (response.socket === 'trickle')
    return new Response(trickledBody(response.body, response.trickleMs ?? TRICKLE_MS, signal), init)
  return new Response(response.body, init)
}

/** A body made a piece at a time, as the reader pulls: a reader that stops pulling holds no more of it. */
function streamOf(pieces: Iterator<string | Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      const piece = pieces.next()
      if (piece.done) controller.close()
      else controller.enqueue(typeof piece.value === 'string' ? Buffer.from(piece.value) : piece.value)
    },
  })
}

/** The first half of the body, then the error fetch raises on a malformed chunk. */
function brokenBody(text: string): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text)
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes.subarray(0, Math.ceil(bytes.length / 2)))
      controller.error(
        new TypeError('terminated', {
          cause: Object.assign(new Error('invalid chunk size'), { code: 'HPE_INVALID_CHUNK_SIZE' }),
        }),
      )
    },
  })
}

/** The body in up to ten pieces spread over `totalMs`; aborting the request errors it. */
function trickledBody(text: string, totalMs: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text)
  const pieces = Math.max(1, Math.min(10, bytes.length))
  let sent = 0
  let timer: NodeJS.Timeout | undefined
  return new ReadableStream({
    pull(controller) {
      return new Promise<void>((resolve) => {
        const onAbort = () => {
          clearTimeout(timer)
          controller.error(signal.reason)
          resolve()
        }
        if (signal.aborted) return onAbort()
        signal.addEventListener('abort', onAbort, { once: true })
        timer = setTimeout(() => {
          signal.removeEventListener('abort', onAbort)
          controller.enqueue(
            bytes.subarray(
              Math.round((bytes.length * sent) / pieces),
              Math.round((bytes.length * (sent + 1)) / pieces),
            ),
          )
          if (++sent === pieces) controller.close()
          resolve()
        }, totalMs / pieces)
      })
    },
    cancel() {
      clearTimeout(timer)
    },
  })
}

/** Waits `ms`, or rejects with the abort reason as soon as the caller gives up. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    if (signal.aborted) return reject(signal.reason as Error)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** A Request of another Fetch implementation (undici's own, a polyfill's): what the handler reads of one is there. */
function isRequestLike(value: unknown): value is Request {
  const request = value as Partial<Request> | null
  return (
    typeof request === 'object' &&
    request !== null &&
    typeof request.url === 'string' &&
    typeof request.method === 'string' &&
    typeof request.headers?.get === 'function' &&
    typeof request.signal?.throwIfAborted === 'function'
  )
}

/** A body stream's chunk as the bytes fetch would send for it, or `undefined` for one it refuses (an ArrayBuffer too). */
function bytesOfChunk(chunk: unknown): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8')
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  return undefined
}

/** What a stream gave instead of bytes, for a message: `a string`, `an ArrayBuffer`, `null`. */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  const name = typeof value === 'object' ? value.constructor?.name || 'object' : typeof value
  return `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`
}
