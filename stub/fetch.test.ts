import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { spec } from '../spec/index.js'
import { JSON_TYPE, type AppResponse, type Handler, type SocketDirective } from './app.js'
import { BODY_TIMEOUT_MS, fetchWith } from './fetch.js'
import { serve, type RunningServer } from './server.js'
import { createStub, DEFAULT_MAX_STORE, MAX_MAX_STORE, type InProcessStub } from './stub.js'
import { MAX_MAX_BODY } from './http.js'
import { AUTH, JSON_AUTH, KEY, NEW_PETS, exampleText, expectDocumented, fromFetch, type Answer } from './testing.js'

/** Headers that only a connection has (Node adds them on the wire; a Fetch handler has no connection). */
const WIRE_ONLY = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

const comparable = ({ status, headers, text }: Answer) => ({
  status,
  headers: Object.fromEntries(Object.entries(headers).filter(([name]) => !WIRE_ONLY.has(name))),
  text,
})

/** Requests that cover every operation, status and edge the app answers; sent in this order to both stubs. */
const REQUESTS: [string, string, RequestInit?][] = [
  ['GET', '/v1/pets', { headers: AUTH }],
  ['GET', '/v1/pets?limit=3&status=sold', { headers: AUTH }],
  ['GET', '/v1/pets?limit=0', { headers: AUTH }],
  ['GET', '/v1/pets?status=lost', { headers: AUTH }],
  ['GET', '/v1/pets'],
  ['GET', '/v1/pets', { headers: { authorization: 'Basic abc' } }],
  ['GET', '/v1/pets', { headers: { authorization: 'Bearer wrong' } }],
  ['GET', '/v1/pets/1', { headers: AUTH }],
  ['GET', '/v1/pets/424242', { headers: AUTH }],
  ['GET', '/v1/pets/abc', { headers: AUTH }],
  ['GET', '/v1/pets/9223372036854775808', { headers: AUTH }],
  [
    'POST',
    '/v1/pets',
    { headers: JSON_AUTH, body: '{"name":"Rex","categoryId":9223372036854775807,"status":"pending"}' },
  ],
  ['GET', '/v1/pets/37', { headers: AUTH }],
  ...NEW_PETS.invalid.map((example): [string, string, RequestInit] => [
    'POST',
    '/v1/pets',
    { headers: JSON_AUTH, body: exampleText(example) },
  ]),
  ['POST', '/v1/pets', { headers: { ...AUTH, 'content-type': 'text/plain' }, body: '{"name":"a","categoryId":1}' }],
  ['POST', '/v1/pets', { headers: JSON_AUTH, body: 'x'.repeat(70_000) }],
  ['POST', '/v1/pets', { headers: { 'content-type': 'application/json' }, body: '{"name":"a","categoryId":1}' }],
  ['DELETE', '/v1/pets/1', { headers: AUTH }],
  ['PUT', '/v1/pets', { headers: AUTH }],
  ['HEAD', '/v1/pets', { headers: AUTH }],
  ['OPTIONS', '/v1/pets', { headers: { origin: 'http://app.test', 'access-control-request-method': 'POST' } }],
  ['GET', '/v2/pets', { headers: AUTH }],
  ['GET', '/v1/pets/', { headers: AUTH }],
  ['GET', '/', {}],
  ['GET', '/v1/pets/1', { headers: { ...AUTH, prefer: 'code=404' } }],
  ['POST', '/v1/pets', { headers: { ...JSON_AUTH, prefer: 'example=created' }, body: '{}' }],
  ['GET', '/v1/pets', { headers: { ...AUTH, prefer: 'code=429' } }],
  ['GET', '/v1/pets', { headers: { ...AUTH, prefer: 'colour=blue' } }],
  [
    'OPTIONS',
    '/v1/pets',
    { headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'prefer, x-request-id' } },
  ],
  ['GET', '/__stub/state', {}],
  ['POST', '/__stub/reset', {}],
  ['GET', '/__stub/nope', {}],
  ['PATCH', '/__stub/state', {}],
  ['OPTIONS', '/__stub/requests', { headers: { 'access-control-request-method': 'DELETE' } }],
  ['PUT', '/__stub/state', { body: '{"pets":[{"id":"x"}]}' }],
]

describe('createStub().fetch', () => {
  let running: RunningServer
  let overHttp: InProcessStub
  let inProcess: InProcessStub

  beforeAll(async () => {
    overHttp = createStub({ apiKeys: [KEY] })
    inProcess = createStub({ apiKeys: [KEY] })
    running = await serve(overHttp.handler, { port: 0, host: '127.0.0.1' })
  })
  afterAll(() => running.close())

  it('says it takes a Request when given a URL, a text or a plain object', async () => {
    for (const wrong of ['http://stub.test/v1/pets', new URL('http://stub.test/v1/pets'), { url: '/v1/pets' }])
      await expect(inProcess.fetch(wrong as never)).rejects.toThrow("the stub's fetch takes a Request")
  })

  it('answers every request exactly as the node server does: status, headers, body', async () => {
    for (const [method, path, init] of REQUESTS) {
      const wire = await fromFetch(await fetch(`http://127.0.0.1:${running.port}${path}`, { ...init, method }))
      const local = await fromFetch(await inProcess.fetch(new Request(`http://stub.test${path}`, { ...init, method })))
      expect(comparable(local), `${method} ${path}`).toEqual(comparable(wire))
    }
    expect(inProcess.store.size).toBe(overHttp.store.size)
  })

  it('answers documented operations with documented bodies and Content-Type application/json exactly', async () => {
    const answer = await fromFetch(await inProcess.fetch(new Request('http://stub.test/v1/pets/1', { headers: AUTH })))
    expectDocumented('getPet', answer)
    expect(answer.headers['content-type']).toBe(JSON_TYPE)
    expect(answer.headers.deprecation).toBeDefined()
    expect(answer.headers.sunset).toBe(spec().operation('getPet').sunset!.toUTCString())
  })

  it('bounds what the pets take (128 MiB by default, 256 MiB at most): a create that would take them past it gets 400 store_full until a reset', async () => {
    expect(createStub({ apiKeys: [KEY] }).store.maxBytes).toBe(DEFAULT_MAX_STORE)
    expect(createStub({ apiKeys: [KEY], maxStore: 2 ** 40 }).store.maxBytes).toBe(MAX_MAX_STORE)
    // A body is read as one text: a limit past the longest text Node holds would let a body fail as it is read.
    expect(createStub({ apiKeys: [KEY], maxBody: 2 ** 31 }).handler.maxBody).toBe(MAX_MAX_BODY)
    // A limit that is no number, or below the least, is refused before anything starts (NaN refused every create).
    for (const [options, message] of [
      [{ maxBody: NaN }, 'maxBody must be a number of at least 1, got NaN'],
      [{ maxBody: 0 }, 'maxBody must be a number of at least 1, got 0'],
      [{ maxStore: -5 }, 'maxStore must be a number of at least 1, got -5'],
      [{ journal: { entries: NaN } }, 'journal.entries must be a number of at least 0, got NaN'],
    ] as const)
      expect(() => createStub({ apiKeys: [KEY], ...options })).toThrow(new RangeError(`createStub: ${message}`))
    // A journal of a billion entries allocated its columns whole and took the process down: it is capped.
    expect(createStub({ apiKeys: [KEY], journal: { entries: 1e9, bytes: 1e12 } }).journal.stats).toMatchObject({
      maxEntries: 1_000_000,
      maxBytes: 256 * 1024 * 1024,
    })
    const stub = createStub({ apiKeys: [KEY], maxStore: 10_000, seed: false })
    const create = async () =>
      fromFetch(
        await stub.fetch(
          new Request('http://stub.test/v1/pets', {
            method: 'POST',
            headers: JSON_AUTH,
            body: JSON.stringify({ name: 'x'.repeat(3000), categoryId: 1 }),
          }),
        ),
      )
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await create()).status)
    expect(statuses).toEqual([201, 201, 201, 400, 400]) // about 3 KB each: a fourth would take them past 10,000 bytes
    const refused = await create()
    expect((refused.body as { code: string }).code).toBe('store_full')
    await stub.fetch(
      new Request('http://stub.test/__stub/reset', { method: 'POST', headers: { 'x-petstore-admin': '1' } }),
    )
    expect((await create()).status).toBe(201)
  })

  it('applies the body limit to streamed bodies with no Content-Length', async () => {
    const stub = createStub({ apiKeys: [KEY], maxBody: 100 })
    const body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(50)))
        controller.close()
      },
    })
    const request = new Request('http://stub.test/v1/pets', {
      method: 'POST',
      headers: JSON_AUTH,
      body,
      duplex: 'half',
    } as RequestInit)
    const answer = await fromFetch(await stub.fetch(request))
    expect([answer.status, (answer.body as { code: string }).code]).toEqual([400, 'body_too_large'])
  })

  it('rejects at once when the request was aborted before it started', async () => {
    const controller = new AbortController()
    controller.abort(new Error('gave up'))
    await expect(
      inProcess.fetch(new Request('http://stub.test/v1/pets', { headers: AUTH, signal: controller.signal })),
    ).rejects.toThrow('gave up')
  })
})

/** A handler that answers every request with `response` (the socket directives are the edges' business). */
function fixed(response: Partial<AppResponse>): Handler {
  const app = createStub({ apiKeys: [KEY] }).handler
  const body = '{"code":"x","message":"a fixed answer for the test","status":400}'
  const answer: AppResponse = {
    status: 400,
    headers: ['Content-Type', JSON_TYPE, 'Content-Length', String(body.length)],
    body,
    ...response,
  }
  return { ...app, maxBody: app.maxBody, route: () => answer, operationOf: () => undefined }
}

const socketed = (socket: SocketDirective, extra: Partial<AppResponse> = {}) => fixed({ socket, ...extra })
/** The Fetch edge over `handler`. */
const local = (handler: Handler, signal?: AbortSignal) =>
  fetchWith(handler, new Request('http://stub.test/v1/pets', { signal }))

async function overHttp<T>(handler: Handler, use: (url: string) => Promise<T>): Promise<T> {
  const running = await serve(handler, { port: 0, host: '127.0.0.1' })
  try {
    return await use(`http://127.0.0.1:${running.port}/v1/pets`)
  } finally {
    await running.close(50)
  }
}

describe('a body that does not arrive, in-process as over HTTP', () => {
  const stalled = (signal?: AbortSignal) =>
    new Request('http://stub.test/v1/pets', {
      method: 'POST',
      headers: JSON_AUTH,
      body: new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode('{"name":')) }),
      duplex: 'half',
      signal,
    } as RequestInit)

  it("settles with the caller's reason when it gives up mid-body, storing nothing", async () => {
    const stub = createStub({ apiKeys: [KEY] })
    const before = stub.store.size
    const caller = new AbortController()
    const answer = stub.fetch(stalled(caller.signal))
    setTimeout(() => caller.abort(new Error('gave up')), 20)
    await expect(answer).rejects.toThrow('gave up')
    expect(stub.store.size).toBe(before)
  })

  it("reads a body stream's chunks as fetch sends them over HTTP: text, typed arrays and DataViews; refuses the rest", async () => {
    const stub = createStub({ apiKeys: [KEY] })
    /** A stream of these chunks, of any kind, as a test might build it. */
    const post = (...chunks: unknown[]) =>
      stub.fetch(
        new Request('http://stub.test/v1/pets', {
          method: 'POST',
          headers: JSON_AUTH,
          body: new ReadableStream<unknown>({
            start: (c) => (chunks.forEach((chunk) => c.enqueue(chunk)), c.close()),
          }) as ReadableStream<Uint8Array>,
          duplex: 'half',
        } as RequestInit),
      )
    const bytes = new TextEncoder().encode('{"name":"Rex","categoryId":1}')
    for (const chunks of [
      ['{"name":"Rex",', '"categoryId":1}'],
      [new DataView(bytes.buffer)],
      [new Int8Array(bytes.buffer, 0, 10), bytes.subarray(10)],
    ])
      expect((await post(...chunks)).status).toBe(201)
    // Text counts against the body limit as its bytes do: one over it is refused, and nothing more is read.
    const tooLarge = await post(`{"name":"${'x'.repeat(stub.handler.maxBody)}",`, '"categoryId":1}')
    expect([tooLarge.status, ((await tooLarge.json()) as { code: string }).code]).toEqual([400, 'body_too_large'])
    const before = stub.store.size
    for (const [chunk, said] of [
      [bytes.buffer, 'an ArrayBuffer'],
      [[123, 125], 'an Array'],
      [7, 'a number'],
    ] as const)
      await expect(post(chunk)).rejects.toThrow(`the request's body stream gave ${said}: fetch sends only`)
    expect(stub.store.size).toBe(before)
  })

  it('answers 408 once the body has not ended within the request timeout, as the server does', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const stub = createStub({ apiKeys: [KEY] })
      const answer = stub.fetch(stalled())
      await vi.advanceTimersByTimeAsync(BODY_TIMEOUT_MS)
      const response = await answer
      expect(response.status).toBe(408)
      expect(await response.json()).toMatchObject({ code: 'request_timeout', status: 408 })
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('socket directives, the same at both edges', () => {
  it('reset and empty: the request fails as a network error', async () => {
    for (const socket of ['reset', 'empty'] as const) {
      await expect(local(socketed(socket))).rejects.toThrow(new TypeError('fetch failed'))
      await overHttp(socketed(socket), (url) => expect(fetch(url)).rejects.toThrow(new TypeError('fetch failed')))
    }
  })

  it('hang: hears the caller give up even when nothing but the caller holds the request', async () => {
    // A Request follows its caller's signal through a weak reference; a collection while the answer hangs must not
    // leave the caller waiting for ever.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const controller = new AbortController()
    const settled = local(socketed('hang'), controller.signal).then(
      () => 'answered',
      () => 'rejected',
    )
    for (let i = 0; i < 3; i++) {
      gc()
      await new Promise((resolve) => setImmediate(resolve))
    }
    controller.abort()
    const waited = new Promise((resolve) => setTimeout(() => resolve('still hanging'), 1_000))
    expect(await Promise.race([settled, waited])).toBe('rejected')
  })

  it('hang: never settles until the caller aborts, then rejects with its reason', async () => {
    await expect(local(socketed('hang'), AbortSignal.timeout(50))).rejects.toThrow(/timed out|aborted/)
    // A caller that gives up while the answer is being made (its body read, say) gets its reason, not a hang.
    const controller = new AbortController()
    const hang = socketed('hang')
    const answer = hang.route({ method: 'GET', url: '/v1/pets', headers: {} }) as AppResponse
    const slow: Handler = {
      ...hang,
      route: () => ({
        kind: 'body',
        accept: async () => {
          controller.abort(new Error('gave up meanwhile'))
          return answer
        },
      }),
    }
    await expect(local(slow, controller.signal)).rejects.toThrow('gave up meanwhile')
    await overHttp(socketed('hang'), (url) =>
      expect(fetch(url, { signal: AbortSignal.timeout(100) })).rejects.toThrow(/timed out|aborted/),
    )
  })

  it('malformed-chunk: the head arrives, reading the body fails', async () => {
    const inProcess = await local(socketed('malformed-chunk'))
    expect(inProcess.status).toBe(400)
    await expect(inProcess.text()).rejects.toThrow(TypeError)
    await overHttp(socketed('malformed-chunk'), async (url) => {
      const response = await fetch(url)
      expect(response.status).toBe(400)
      await expect(response.text()).rejects.toThrow(TypeError)
    })
  })

  it('trickle: the whole body arrives, spread over the trickle time', async () => {
    const handler = socketed('trickle', { trickleMs: 200 })
    const bodies = [
      () => local(handler).then((r) => r.text()),
      () => overHttp(handler, async (url) => (await fetch(url)).text()),
    ]
    for (const body of bodies) {
      const started = performance.now()
      expect(JSON.parse(await body())).toEqual({ code: 'x', message: 'a fixed answer for the test', status: 400 })
      expect(performance.now() - started).toBeGreaterThanOrEqual(150)
    }
  })

  it('trickle: aborting stops the body', async () => {
    const controller = new AbortController()
    const response = await local(socketed('trickle', { trickleMs: 10_000 }), controller.signal)
    setTimeout(() => controller.abort(new Error('stopped')), 20)
    await expect(response.text()).rejects.toThrow('stopped')
  })

  it('delay: the answer comes after it, and an abort during it rejects', async () => {
    const handler = fixed({ delayMs: 100 })
    let started = performance.now()
    expect((await local(handler)).status).toBe(400)
    expect(performance.now() - started).toBeGreaterThanOrEqual(90)
    started = performance.now()
    await overHttp(handler, async (url) => expect((await fetch(url)).status).toBe(400))
    expect(performance.now() - started).toBeGreaterThanOrEqual(90)
    await expect(local(handler, AbortSignal.timeout(20))).rejects.toThrow(/timed out|aborted/)
  })
})
