/**
 * A transport with no socket: each request is handed to a Fetch handler (`(Request) => Promise<Response>`),
 * such as the stub's in-process `fetch`. It records exchanges exactly as live HTTP does, so the engine and the
 * checks cannot tell the two apart; tests run the whole suite this way in milliseconds.
 */
import type { Exchange, Request } from '../../model/index.js'
import {
  answered,
  BODY_TOO_LARGE,
  BodyBuffer,
  prepare,
  requestTimer,
  unanswered,
  type Transport,
  type TransportOptions,
} from './transport.js'

/** A Fetch API handler: what the stub's `createStub().fetch` is. */
export type FetchHandler = (request: globalThis.Request) => Promise<Response>

/** Reads a body stream up to the bound; throws when it is larger or the signal aborts, and then cancels the stream. */
async function readBounded(response: Response, signal: AbortSignal): Promise<{ head: Uint8Array; size: number }> {
  if (!response.body) return { head: new Uint8Array(), size: 0 }
  const reader = response.body.getReader()
  const aborted = new Promise<never>((_, reject) => {
    const abort = () => reject(signal.reason)
    if (signal.aborted) abort()
    else signal.addEventListener('abort', abort, { once: true })
  })
  aborted.catch(() => undefined)
  const body = new BodyBuffer()
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted])
      if (done) break
      if (!body.add(value)) throw new Error(BODY_TOO_LARGE)
    }
  } catch (error) {
    // An endless or stalled body must not go on being read (or held) after the suite gave up on it.
    body.drop()
    reader.cancel().catch(() => undefined)
    throw error
  }
  return { head: body.head(), size: body.size }
}

/** Resolves as `work` does, or rejects when the signal aborts first (a handler that never answers). */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason)
    if (signal.aborted) return abort()
    signal.addEventListener('abort', abort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}

/** A transport that calls a Fetch handler in-process. */
export class MountedTransport implements Transport {
  readonly baseUrl: string
  readonly #handler: FetchHandler
  readonly #options: TransportOptions

  constructor(handler: FetchHandler, options: TransportOptions) {
    this.#handler = handler
    this.#options = options
    this.baseUrl = options.baseUrl
  }

  async send(request: Request): Promise<Exchange> {
    const prepared = prepare(request, this.#options)
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    const timeoutMs = request.timeoutMs ?? this.#options.timeoutMs
    const controller = new AbortController()
    const signal = controller.signal
    const cancelTimer = requestTimer(timeoutMs, () =>
      controller.abort(new DOMException(`timeout after ${timeoutMs} ms`, 'TimeoutError')),
    )
    try {
      const fetchRequest = new globalThis.Request(prepared.sent, {
        method: request.method,
        headers: prepared.headers,
        // As bytes: a string body would get a `text/plain` Content-Type the request did not ask for.
        ...(request.body !== undefined ? { body: new TextEncoder().encode(request.body) } : {}),
        // A redirect is the target's answer, judged as such: a handler that is a real fetch must not follow it.
        redirect: 'manual',
        signal,
      })
      // The timeout covers the handler's answer and its whole body: a handler may hang at either.
      const response = await abortable(
        Promise.resolve().then(() => this.#handler(fetchRequest)),
        signal,
      )
      const { head, size } = await readBounded(response, signal)
      const headers: Record<string, string> = {}
      response.headers.forEach((value, name) => {
        headers[name] = name in headers ? `${headers[name]}, ${value}` : value // Set-Cookie comes one value at a time
      })
      return answered(prepared, { status: response.status, headers, body: head, totalBytes: size }, elapsed())
    } catch (error) {
      const name = (error as Error)?.name
      const reason =
        name === 'TimeoutError' || name === 'AbortError' ? `timeout after ${timeoutMs} ms` : describe(error)
      return unanswered(prepared, reason, elapsed())
    } finally {
      cancelTimer()
    }
  }

  async close(): Promise<void> {}
}

function describe(error: unknown): string {
  const e = error as { message?: string; code?: string; cause?: { code?: string; message?: string } } | undefined
  const message = e?.message ?? String(error)
  const code = e?.cause?.code ?? e?.code
  if (message.startsWith('response body larger')) return message
  if (typeof code === 'string' && code.startsWith('HPE_'))
    return `not a valid HTTP response (${e?.cause?.message ?? message})`
  // A handler that rejects as fetch does when a connection breaks: the in-process form of a reset.
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || /fetch failed|network|reset|socket/i.test(message))
    return 'connection closed before a complete response (reset)'
  return `the handler failed: ${message.split('\n')[0]}`
}
