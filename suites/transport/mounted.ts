/**
 * A transport with no socket: each request is handed to a Fetch handler (`(Request) => Promise<Response>`),
 * such as the stub's in-process `fetch`. It records exchanges exactly as live HTTP does, so the engine and the
 * checks cannot tell the two apart; tests run the whole suite this way in milliseconds.
 */
import type { Exchange, Request } from '../../model/index.js'
import { answered, MAX_BODY_BYTES, prepare, unanswered, type Transport, type TransportOptions } from './transport.js'

/** A Fetch API handler: what the stub's `createStub().fetch` is. */
export type FetchHandler = (request: globalThis.Request) => Promise<Response>

/** Reads a body stream up to the bound; throws when it is larger. */
async function readBounded(response: Response): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array()
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength
    if (size > MAX_BODY_BYTES) throw new Error(`response body larger than ${MAX_BODY_BYTES} bytes (read no further)`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
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
    const signal = AbortSignal.timeout(timeoutMs)
    try {
      const fetchRequest = new globalThis.Request(prepared.sent, {
        method: request.method,
        headers: prepared.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal,
      })
      const response = await this.#handler(fetchRequest)
      const body = await Promise.race([
        readBounded(response),
        new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
      ])
      const headers: Record<string, string> = {}
      response.headers.forEach((value, name) => {
        headers[name] = value
      })
      return answered(prepared, response.status, headers, body, elapsed())
    } catch (error) {
      const name = (error as Error)?.name
      const reason = name === 'TimeoutError' || name === 'AbortError' ? `timeout after ${timeoutMs} ms` : describe(error)
      return unanswered(prepared, reason, elapsed())
    }
  }

  async close(): Promise<void> {}
}

function describe(error: unknown): string {
  const message = (error as Error)?.message ?? String(error)
  // A handler that rejects is a connection that broke: the in-process form of a reset.
  return /fetch failed|network|reset|socket/i.test(message) ? 'connection closed before a complete response (reset)' : message
}
