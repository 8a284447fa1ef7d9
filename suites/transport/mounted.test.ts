/**
 * The mounted transport against misbehaving Fetch handlers: one that rejects, hangs (before answering or in
 * the middle of its body), or answers with a huge or endless body. Each is an exchange with an error, in
 * bounded time, and the body is not read (or held) past the cap.
 */
import { describe, expect, it } from 'vitest'
import type { Request } from '../../model/index.js'
import { createStub } from '../../stub/index.js'
import { MountedTransport, type FetchHandler } from './mounted.js'
import { MAX_BODY_BYTES } from './transport.js'

const KEY = 'mounted-test-key-77c1'
const list: Request = { operationId: 'listPets', method: 'GET', path: '/pets' }
const mount = (handler: FetchHandler, timeoutMs = 2000) =>
  new MountedTransport(handler, { baseUrl: 'http://mounted.invalid/v1', apiKey: KEY, timeoutMs })

/** A body stream that yields `piece` for as long as it is read, counting what it gave and whether it was cancelled. */
function endless(piece = new Uint8Array(64 * 1024).fill(48)) {
  const seen = { bytes: 0, cancelled: false }
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.bytes += piece.byteLength
      controller.enqueue(piece)
    },
    cancel() {
      seen.cancelled = true
    },
  })
  return { body, seen }
}

describe('MountedTransport', () => {
  it('answers as the stub does', async () => {
    const exchange = await mount(createStub({ apiKeys: [KEY] }).fetch).send(list)
    expect(exchange.response?.status).toBe(200)
    expect(exchange.json.kind).toBe('json')
    expect(exchange.request.headers.authorization).not.toContain(KEY)
  })

  it('sends a body with exactly the Content-Type asked for, or none at all', async () => {
    const seen: (string | null)[] = []
    const echo: FetchHandler = async (request) => {
      seen.push(request.headers.get('content-type'))
      return new Response(await request.text(), { headers: { 'content-type': 'application/json' } })
    }
    const create = (contentType: string) =>
      mount(echo).send({ operationId: 'createPet', method: 'POST', path: '/pets', body: '{"a":1}', contentType })
    expect((await create('')).response?.rawBody).toBe('{"a":1}')
    await create('application/vnd.petstore+json')
    expect(seen).toEqual([null, 'application/vnd.petstore+json'])
  })

  it('a handler that rejects as fetch does on a dropped connection: a reset', async () => {
    const handler: FetchHandler = async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      })
    }
    expect((await mount(handler).send(list)).error).toBe('connection closed before a complete response (reset)')
  })

  it('a handler that throws (synchronously or not): the exchange says so, nothing is thrown', async () => {
    const sync = (() => {
      throw new Error('boom\nstack line')
    }) as unknown as FetchHandler
    expect((await mount(sync).send(list)).error).toBe('the handler failed: boom')
    expect((await mount(async () => Promise.reject(new RangeError('bad'))).send(list)).error).toBe(
      'the handler failed: bad',
    )
  })

  it('a handler that never answers: the timeout holds', async () => {
    const started = performance.now()
    const exchange = await mount(() => new Promise<Response>(() => undefined), 200).send(list)
    expect(exchange.error).toBe('timeout after 200 ms')
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('time the suite itself kept the event loop busy is not counted against the handler', async () => {
    const stub = createStub({ apiKeys: [KEY] })
    const handler: FetchHandler = async (request) => {
      await new Promise((resolve) => setImmediate(resolve)) // an answer that needs a turn of the event loop
      return stub.fetch(request)
    }
    const pending = mount(handler, 100).send(list)
    const until = performance.now() + 400
    while (performance.now() < until);
    expect((await pending).response?.status).toBe(200)
  })

  it('a handler whose body stalls after the head: the timeout holds, the stream is cancelled', async () => {
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('[1,'))
      },
      pull: () => new Promise<void>(() => undefined),
      cancel() {
        cancelled = true
      },
    })
    const exchange = await mount(async () => new Response(body, { status: 200 }), 200).send({ ...list, timeoutMs: 150 })
    expect(exchange.error).toBe('timeout after 150 ms')
    expect(cancelled).toBe(true)
  })

  it('a handler with an endless body: read to the cap, said so, the stream cancelled', async () => {
    const { body, seen } = endless()
    const exchange = await mount(
      async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }),
    ).send(list)
    expect(exchange.error).toBe(`response body larger than ${MAX_BODY_BYTES} bytes (16 MiB): read no further`)
    expect(exchange.response).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(seen.cancelled).toBe(true)
    expect(seen.bytes).toBeLessThan(MAX_BODY_BYTES + 1024 * 1024)
  })

  it('a handler with a large body just under the cap: answered, its size known', async () => {
    const text = `[${'0,'.repeat(3 * 1024 * 1024)}0]`
    const exchange = await mount(
      async () => new Response(text, { status: 200, headers: { 'content-type': 'application/json' } }),
    ).send(list)
    expect(exchange.response?.status).toBe(200)
    expect(exchange.bodyBytes).toBe(text.length)
  })
})
