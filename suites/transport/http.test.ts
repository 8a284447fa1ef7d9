/**
 * Live HTTP against misbehaving targets on loopback ports (test-support/misbehaving.ts): what a server may legally
 * do never becomes a transport error, and what it must not do becomes one clear, bounded error, in bounded time.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Exchange, Request } from '../../model/index.js'
import { createStub } from '../../stub/index.js'
import * as target from '../../test-support/misbehaving.js'
import { PRIVATE_CA_LEAF_CERT, PRIVATE_CA_LEAF_KEY } from '../../test-support/private-ca.js'
import { describeTransportError, HttpTransport } from './http.js'
import { MAX_BODY_BYTES } from './transport.js'
import { targets } from '../../test-support/targets.js'

const start = targets(afterEach)

const KEY = 'http-test-key-5d2a'
const stub = createStub({ apiKeys: [KEY] })
const opened: { close(): Promise<void> }[] = []

function transport(baseUrl: string, timeoutMs = 2000): HttpTransport {
  const t = new HttpTransport({ baseUrl, apiKey: KEY, timeoutMs })
  opened.push(t)
  return t
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()))
})

const list: Request = { operationId: 'listPets', method: 'GET', path: '/pets' }
const create: Request = {
  operationId: 'createPet',
  method: 'POST',
  path: '/pets',
  body: '{"name":"transport-test","categoryId":1}',
}

/** The exchange's outcome in one line: the error, or the status and what the body parsed to. */
const outcome = (e: Exchange) => e.error ?? `${e.response!.status} ${e.json.kind}`

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await work()
  return { value, ms: performance.now() - started }
}

describe('HttpTransport: what a server may do is no error', () => {
  it('a server that says keep-alive, then closes every connection 1 ms after answering: GETs retried on a fresh connection, POSTs never replayed', async () => {
    const s = await start({ fetch: stub.fetch, edge: { closeAfterMs: 1 } })
    const t = transport(s.url)
    const exchanges: Exchange[] = []
    let posts = 0
    for (let i = 0; i < 60; i++) {
      // Back to back, side by side, and 1-2 ms apart: the close races the next request in every way.
      const batch = Array.from({ length: i % 3 === 0 ? 4 : 1 }, (_, j) =>
        (i + j) % 4 === 0 ? (posts++, create) : list,
      )
      exchanges.push(...(await Promise.all(batch.map((r) => t.send(r)))))
      if (i % 2) await new Promise((resolve) => setTimeout(resolve, i % 4 === 1 ? 1 : 2))
    }
    expect(exchanges.filter((e) => e.error).map(outcome)).toEqual([])
    expect(
      exchanges.filter((e) => e.request.method === 'POST').every((e) => e.attempts === 1 && e.response?.status === 201),
    ).toBe(true)
    // Each POST reached the target once: none was sent again after a close.
    expect(s.stats.methods.POST).toBe(posts)
    expect(exchanges.every((e) => e.attempts <= 2)).toBe(true)
  })

  it.each(['gzip', 'deflate', 'br'] as const)('decompresses a %s body', async (encoding) => {
    const s = await start({ fetch: stub.fetch, edge: { encoding } })
    const exchange = await transport(s.url).send(list)
    expect(outcome(exchange)).toBe('200 json')
    expect(exchange.response!.headers['content-encoding']).toBe(encoding)
    expect(JSON.parse(exchange.response!.rawBody)).toBeInstanceOf(Array)
  })

  it('reads a chunked body, compressed or not', async () => {
    for (const edge of [{ chunked: 7 }, { chunked: 5, encoding: 'gzip' as const }]) {
      const s = await start({ fetch: stub.fetch, edge: edge })
      const exchange = await transport(s.url).send(list)
      expect(outcome(exchange)).toBe('200 json')
      expect(exchange.response!.headers['content-length']).toBeUndefined()
    }
  })

  it('waits past 1xx interim answers (100 Continue, 103 Early Hints) for the final one', async () => {
    const s = await start({ fetch: stub.fetch, edge: { interim: [100, 103, 103] } })
    const t = transport(s.url)
    expect(outcome(await t.send(list))).toBe('200 json')
    expect(outcome(await t.send(create))).toBe('201 json')
  })
})

describe('HttpTransport: what a server must not do is one clear error', () => {
  it('a body shorter than its Content-Length: the connection closed early', async () => {
    const s = await start({ serve: target.shortBody })
    expect(outcome(await transport(s.url).send(list))).toBe('connection closed before a complete response (reset)')
  })

  it('a body longer than its Content-Length: bytes that are not HTTP where the next answer should start', async () => {
    const s = await start({ serve: target.longBody })
    const exchange = await transport(s.url).send(list)
    expect(outcome(exchange)).toMatch(/^not a valid HTTP response/)
  })

  it.each([
    ['Content-Length', () => target.hugeBody(MAX_BODY_BYTES + 1024 * 1024, 'length')],
    ['chunked', () => target.hugeBody(MAX_BODY_BYTES + 1024 * 1024, 'chunked')],
    ['endless', () => target.endlessBody()],
  ])('a body over 16 MiB (%s): read no further than the cap, said so, nothing held', async (_name, serve) => {
    const s = await start({ serve })
    const { value: exchange, ms } = await timed(() => transport(s.url, 20_000).send(list))
    expect(exchange.error).toBe(`response body larger than ${MAX_BODY_BYTES} bytes (16 MiB): read no further`)
    expect(exchange.response).toBeUndefined()
    expect(ms).toBeLessThan(10_000)
    // The connection was dropped at the cap: the target could not push much past it (socket buffers only).
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(s.stats.bytesOut).toBeLessThan(MAX_BODY_BYTES + 8 * 1024 * 1024)
  })

  it('a compressed body that inflates past 16 MiB is stopped at the cap too', async () => {
    const big = `[${'0,'.repeat(9 * 1024 * 1024)}0]`
    const s = await start({
      fetch: async () => new Response(big, { headers: { 'content-type': 'application/json' } }),
      edge: {
        encoding: 'gzip',
      },
    })
    // Time enough to gzip 18 MB on a busy machine: the cap, not the timeout, must stop it.
    expect((await transport(s.url, 20_000).send(list)).error).toMatch(/^response body larger than/)
  })

  it('a body trickled a byte at a time: the timeout holds for the whole answer', async () => {
    const s = await start({ serve: () => target.trickle(50) })
    const { value: exchange, ms } = await timed(() => transport(s.url, 400).send(list))
    expect(outcome(exchange)).toBe('timeout after 400 ms')
    expect(ms).toBeGreaterThanOrEqual(390)
    expect(ms).toBeLessThan(1500)
  })

  it.each([
    ['many headers', () => target.headerFlood('many', 5000)],
    ['one huge header', () => target.headerFlood('huge', 1_000_000)],
  ])('a header flood (%s)', async (_name, serve) => {
    const s = await start({ serve })
    expect(outcome(await transport(s.url).send(list))).toMatch(
      /^not a valid HTTP response \(its headers are larger than the \d+ bytes the suite reads\)$/,
    )
  })

  it('garbage instead of HTTP', async () => {
    const s = await start({ serve: target.garbage })
    expect(outcome(await transport(s.url).send(list))).toMatch(/^not a valid HTTP response \(.+\)$/)
  })

  it('a TLS server on the port: plain HTTP is told to try https://; https:// meets its certificate', async () => {
    const s = await start({ serve: target.serveTls })
    expect(outcome(await transport(s.url.replace('https:', 'http:')).send(list))).toBe(
      'connection closed without any answer (reset); if the port speaks TLS, the URL should start with https://',
    )
    expect(outcome(await transport(s.url).send(list))).toMatch(
      /^TLS failed: self[- ]signed certificate.*NODE_EXTRA_CA_CERTS/,
    )
  })

  it('a leaf of a private CA sent without its chain names NODE_EXTRA_CA_CERTS', async () => {
    const s = await start({ serve: () => target.serveTls({ key: PRIVATE_CA_LEAF_KEY, cert: PRIVATE_CA_LEAF_CERT }) })
    expect(outcome(await transport(s.url).send(list))).toBe(
      "TLS failed: unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE); for a private CA, set NODE_EXTRA_CA_CERTS to its PEM file (and its intermediates', if the server does not send its chain)",
    )
  })

  it.each([
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'unable to get local issuer certificate'],
    ['UNABLE_TO_GET_ISSUER_CERT', 'unable to get issuer certificate'],
    ['CERT_UNTRUSTED', 'certificate not trusted'],
  ])('a certificate Node cannot trust (%s) names NODE_EXTRA_CA_CERTS', (code, message) => {
    const error = Object.assign(new Error(message), { code })
    expect(describeTransportError(error, 1000, { protocol: 'https:' })).toMatch(
      new RegExp(`^TLS failed: ${message} \\(${code}\\); for a private CA, set NODE_EXTRA_CA_CERTS to its PEM file`),
    )
  })

  it.each([
    ['CERT_HAS_EXPIRED', 'certificate has expired'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"],
  ])('a known but wrong certificate (%s) is a TLS failure, with no private-CA hint', (code, message) => {
    const line = describeTransportError(Object.assign(new Error(message), { code }), 1000)
    expect(line).toBe(`TLS failed: ${message} (${code})`)
  })

  it('https:// to a plain HTTP port is told to try http://', async () => {
    const s = await start({ serve: () => target.fixed(200, '[]') })
    expect(outcome(await transport(s.url.replace('http:', 'https:')).send(list))).toMatch(
      /^TLS failed: the port does not speak TLS .*http:\/\//,
    )
  })

  it('a closed port', async () => {
    expect(outcome(await transport(await target.closedPort()).send(list))).toBe('connection refused')
  })

  it('a server that never answers: the transport timeout, and a request’s own timeout, are honoured', async () => {
    const s = await start({ serve: target.hang })
    const t = transport(s.url, 500)
    const [byDefault, byRequest] = await Promise.all([
      timed(() => t.send(list)),
      timed(() => t.send({ ...list, timeoutMs: 150 })),
    ])
    expect(outcome(byDefault.value)).toBe('timeout after 500 ms')
    expect(byDefault.ms).toBeGreaterThanOrEqual(490)
    expect(byDefault.ms).toBeLessThan(1500)
    expect(outcome(byRequest.value)).toBe('timeout after 150 ms')
    expect(byRequest.ms).toBeLessThan(1000)
  })

  it('time the suite itself kept the event loop busy is not counted against the target', async () => {
    const s = await start({ fetch: stub.fetch })
    const t = transport(s.url, 100)
    const pending = t.send(list)
    const until = performance.now() + 400
    while (performance.now() < until); // the suite busy: a property's generator, a large parse
    expect(outcome(await pending)).toBe('200 json')
    // A target that really does not answer still times out, in bounded time.
    const hung = await start({ serve: target.hang })
    const { value, ms } = await timed(() => transport(hung.url, 100).send(list))
    expect(outcome(value)).toBe('timeout after 100 ms')
    expect(ms).toBeLessThan(1000)
  })

  it('a server that drops every connection unanswered: a POST is sent once, a GET at most twice', async () => {
    const s = await start({ serve: target.resets })
    const t = transport(s.url)
    const post = await t.send(create)
    // A request with a body: its size said, not the TLS hint (a server may close to refuse a body).
    expect(outcome(post)).toBe(
      `connection closed without any answer (reset), to a request with a body of ${Buffer.byteLength(create.body!)} bytes`,
    )
    expect(s.stats.methods.POST).toBe(1)
    const get = await t.send(list)
    expect(outcome(get)).toMatch(/^connection closed/)
    expect(s.stats.methods.GET).toBeLessThanOrEqual(2)
  })

  it('a POST the server took and then dropped the connection on is not sent again, even after a kept-alive GET', async () => {
    const s = await start({
      serve: () =>
        target.serveRawHttp((socket, head) => {
          if (head.startsWith('GET'))
            socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n[]')
          else socket.destroy()
        }),
    })
    const t = transport(s.url)
    expect(outcome(await t.send(list))).toBe('200 json')
    expect(outcome(await t.send(create))).toMatch(/^connection closed/)
    expect(s.stats.methods.POST).toBe(1)
  })

  it('a body that is not the encoding it claims', async () => {
    const s = await start({
      serve: () =>
        target.serveRawHttp((socket) =>
          socket.end('HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: 5\r\n\r\nhello'),
        ),
    })
    expect(outcome(await transport(s.url).send(list))).toMatch(/^the body could not be decompressed/)
  })
})
