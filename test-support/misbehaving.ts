/**
 * A catalogue of misbehaving targets, for proving the suite's verdict on what a real staging may do: answer
 * slowly, throttle, close connections, compress, send 1xx, lie about lengths, send endless, huge, deep or garbage
 * bodies, flood headers, speak TLS, hang, or echo the API key back. Each is an in-process node server on a free
 * 127.0.0.1 port, or a Fetch handler wrapper (for the mounted transport and `runConformance({ fetch })`).
 * Nothing here imports the suite: a target knows HTTP, not the checks.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import net, { type AddressInfo, type Socket } from 'node:net'
import tls from 'node:tls'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'

/** A Fetch API handler, as the stub's `createStub().fetch` is. */
export type FetchHandler = (request: Request) => Promise<Response>

/** What a served target saw: counted as requests arrive, so tests can assert bounds on the client's manners. */
export interface Stats {
  /** HTTP requests that reached the handler (raw-socket targets count connections instead). */
  requests: number
  /** TCP connections accepted. */
  connections: number
  /** TCP connections open now (a client process that is gone holds none). */
  open: number
  /** Requests being handled now. */
  inFlight: number
  /** The most requests handled at once. */
  maxInFlight: number
  /** Body bytes the target wrote (where it counts them: the huge and endless bodies). */
  bytesOut: number
  /** Requests by method. */
  methods: Record<string, number>
}

/** A running target. */
export interface Served {
  /** `http://127.0.0.1:<port>` (or `https://`). */
  origin: string
  /** The base URL a run is given: the origin and `/v1`. */
  url: string
  port: number
  stats: Stats
  /** Stops listening and destroys every open connection. */
  close(): Promise<void>
}

const newStats = (): Stats => ({
  requests: 0,
  connections: 0,
  open: 0,
  inFlight: 0,
  maxInFlight: 0,
  bytesOut: 0,
  methods: {},
})

async function listen(server: net.Server, stats: Stats, scheme: 'http' | 'https' = 'http'): Promise<Served> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    stats.connections++
    stats.open++
    sockets.add(socket)
    socket.on('close', () => {
      stats.open--
      sockets.delete(socket)
    })
    socket.on('error', () => undefined) // a client that gave up is not the target's problem
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const origin = `${scheme}://127.0.0.1:${port}`
  return {
    origin,
    url: `${origin}/v1`,
    port,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A target that speaks raw TCP: `onSocket` is handed each connection (garbage, hand-written HTTP, silence). */
export function serveSocket(onSocket: (socket: Socket, stats: Stats) => void): Promise<Served> {
  const stats = newStats()
  const server = net.createServer((socket) => onSocket(socket, stats))
  return listen(server, stats)
}

/** A target that writes the whole answer by hand to each request it reads (a head, and a body of its Content-Length). */
export function serveRawHttp(answer: (socket: Socket, head: string) => void): Promise<Served> {
  return serveSocket((socket, stats) => {
    let buffered = ''
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1')
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end < 0) return
        const head = buffered.slice(0, end)
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0)
        if (buffered.length < end + 4 + length) return
        buffered = buffered.slice(end + 4 + length)
        const method = head.split(' ')[0] ?? ''
        stats.requests++
        stats.methods[method] = (stats.methods[method] ?? 0) + 1
        answer(socket, head)
      }
    })
  })
}

/** A node:http target with a request listener of its own; counts requests in flight until the response ends. */
export function serveNode(
  handler: (req: IncomingMessage, res: ServerResponse, stats: Stats) => void,
  options: http.ServerOptions = {},
): Promise<Served> {
  const stats = newStats()
  const server = http.createServer(options, (req, res) => {
    stats.requests++
    stats.methods[req.method ?? ''] = (stats.methods[req.method ?? ''] ?? 0) + 1
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight)
    let done = false
    const ended = () => {
      if (!done) stats.inFlight--
      done = true
    }
    res.on('finish', ended)
    res.on('close', ended)
    handler(req, res, stats)
  })
  return listen(server, stats)
}

/** How `serveFetch` puts a Fetch handler's answers on the wire. */
export interface Edge {
  /** Says `Connection: keep-alive`, then closes the connection this many ms after each answer. */
  closeAfterMs?: number
  /** Compresses every non-empty body this way (whatever the request's Accept-Encoding says). */
  encoding?: 'gzip' | 'deflate' | 'br'
  /** Sends the body chunked, in pieces of this many bytes, without Content-Length. */
  chunked?: number
  /** Interim answers sent before the final one: 100 Continue, 103 Early Hints. */
  interim?: readonly (100 | 103)[]
  /** The reason phrase of each answer (the key echoed there, say). */
  reason?: (request: IncomingMessage) => string | undefined
  /** Extra header lines written raw (names a Fetch `Headers` would refuse, say). */
  rawHeaders?: (request: IncomingMessage) => [string, string][]
  /**
   * Closes the connection at once, without an answer, on a request declaring a body over this many bytes: a server
   * refusing a body by closing while it is sent, the reset losing whatever it answered.
   */
  resetBodiesOver?: number
}

/** A Fetch handler served over real HTTP on a free port, with the edge's manners. */
export function serveFetch(handler: FetchHandler, edge: Edge = {}): Promise<Served> {
  return serveNode((req, res) => {
    if (Number(req.headers['content-length'] ?? 0) > (edge.resetBodiesOver ?? Infinity))
      return void req.socket.destroy()
    void answerWith(handler, edge, req, res).catch(() => res.destroy())
  })
}

/** Methods the Fetch API cannot build a request of: the edge refuses them itself, as nginx and load balancers do. */
export const EDGE_REFUSES: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK'])

/** The edge's own refusal of such a method: 405 with an `Allow` header (RFC 9110 §15.5.6) and no body. */
export function refuseAtEdge(res: ServerResponse): void {
  res.writeHead(405, { allow: 'GET, HEAD', 'content-length': '0' }).end()
}

async function answerWith(handler: FetchHandler, edge: Edge, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  if (EDGE_REFUSES.has(req.method ?? '')) return refuseAtEdge(res)
  const headers = new Headers()
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url}`, {
    method: req.method,
    headers,
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
  })
  for (const status of edge.interim ?? []) {
    if (status === 100) res.writeContinue()
    else res.writeEarlyHints({ link: '</pets.css>; rel=preload; as=style' })
  }
  const response = await handler(request)
  const out: [string, string][] = []
  const { body: read, rest } = await readUpTo(response, STREAM_PAST)
  let body: Buffer = read
  response.headers.forEach((value, name) => {
    if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'set-cookie'].includes(name))
      out.push([name, value])
  })
  for (const cookie of response.headers.getSetCookie()) out.push(['set-cookie', cookie])
  if (edge.encoding && body.byteLength && !rest) {
    body =
      edge.encoding === 'gzip'
        ? gzipSync(body)
        : edge.encoding === 'deflate'
          ? deflateSync(body)
          : brotliCompressSync(body)
    out.push(['content-encoding', edge.encoding])
  }
  if (edge.chunked === undefined && !rest) out.push(['content-length', String(body.byteLength)])
  if (edge.closeAfterMs !== undefined) out.push(['connection', 'keep-alive'], ['keep-alive', 'timeout=60'])
  out.push(...(edge.rawHeaders?.(req) ?? []))
  const flat = out.flat()
  const reason = edge.reason?.(req)
  if (reason !== undefined) res.writeHead(response.status, reason, flat)
  else res.writeHead(response.status, flat)
  if (rest) {
    // A body too large to hold (an endless one): what was read, then the rest as it comes, for as long as the client reads.
    res.write(body)
    req.socket.once('close', () => void rest.cancel().catch(() => undefined))
    for (;;) {
      const { done, value } = await rest.read().catch(() => ({ done: true, value: undefined }))
      if (done || res.destroyed) break
      if (!res.write(value)) await new Promise((resolve) => (res.once('drain', resolve), res.once('close', resolve)))
    }
    res.end()
  } else if (edge.chunked !== undefined) {
    for (let at = 0; at < body.byteLength; at += edge.chunked) res.write(body.subarray(at, at + edge.chunked))
    res.end()
  } else res.end(body)
  if (edge.closeAfterMs !== undefined) {
    // A server may close an idle connection at any time (RFC 9112 §9.5): here, just after every answer.
    res.once('finish', () => setTimeout(() => req.socket.destroy(), edge.closeAfterMs))
  }
}

// Bodies larger than this are streamed through rather than held (and not compressed).
const STREAM_PAST = 32 * 1024 * 1024

/** A response's body up to `max` bytes, and the reader of the rest when there is more. */
async function readUpTo(
  response: Response,
  max: number,
): Promise<{ body: Buffer; rest?: ReadableStreamDefaultReader<Uint8Array> }> {
  if (!response.body) return { body: Buffer.alloc(0) }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { body: Buffer.concat(chunks) }
    chunks.push(value)
    size += value.byteLength
    if (size > max) return { body: Buffer.concat(chunks), rest: reader }
  }
}

/**
 * A TLS server on the port (a client speaking plain HTTP to it gets a TLS alert; an https client, a self-signed
 * certificate, or the one given).
 */
export function serveTls(
  credentials: { key: string; cert: string } = { key: TLS_KEY, cert: TLS_CERT },
): Promise<Served> {
  const stats = newStats()
  const server = tls.createServer(credentials, (socket) => {
    stats.requests++
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}')
  })
  server.on('tlsClientError', () => undefined)
  return listen(server, stats, 'https')
}

/** A base URL on a loopback port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<string> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}/v1`
}

// ---------------------------------------------------------------------------------------------------------
// Raw-protocol targets: each answers every request the same broken way.

const JSON_HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n'

/** Accepts connections and never answers. */
export const hang = (): Promise<Served> => serveSocket((_socket, stats) => void stats.requests++)

/** Answers with bytes that are not HTTP at all. */
export const garbage = (): Promise<Served> =>
  serveSocket((socket, stats) => {
    stats.requests++
    socket.once('data', () =>
      socket.end(Buffer.from('\u0000\u00ff garbage, not HTTP \u0007\r\n\r\n\u0001\u0002', 'latin1')),
    )
  })

/** Reads each request, then drops the connection without a word. */
export const resets = (): Promise<Served> => serveRawHttp((socket) => socket.destroy())

/** Says Content-Length 100, sends 10 bytes, closes. */
export const shortBody = (): Promise<Served> =>
  serveRawHttp((socket) => socket.end(`${JSON_HEAD}content-length: 100\r\n\r\n[1,2,3,4,5]`))

/** Says Content-Length 2, sends more (the rest is garbage where the next answer should start). */
export const longBody = (): Promise<Served> =>
  serveRawHttp((socket) =>
    socket.write(`${JSON_HEAD}content-length: 2\r\n\r\n[]   trailing bytes that are not HTTP\r\n\r\n`),
  )

/** A body of `bytes` bytes (a JSON array of zeros), with Content-Length or chunked, streamed without holding it. */
export const hugeBody = (bytes: number, framing: 'length' | 'chunked' = 'length'): Promise<Served> =>
  serveNode((req, res, stats) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(framing === 'length' ? { 'content-length': String(bytes) } : {}),
    })
    if (req.method === 'HEAD') return void res.end() // a HEAD answer has no body: writes to it go nowhere, at once
    const piece = Buffer.from('0,'.repeat(32 * 1024))
    let sent = 1
    let open = true
    req.socket.once('close', () => (open = false))
    res.write('[')
    const more = () => {
      while (open && sent + piece.byteLength + 2 <= bytes) {
        sent += piece.byteLength
        stats.bytesOut += piece.byteLength
        if (!res.write(piece)) return void res.once('drain', more)
      }
      if (open) res.end(`${'0,'.repeat(Math.max(0, Math.floor((bytes - sent - 2) / 2)))}0]`.padEnd(bytes - sent, ' '))
    }
    more()
  })

/** A body that never ends: chunks as fast as the client reads, forever. */
export const endlessBody = (): Promise<Served> =>
  serveNode((req, res, stats) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    if (req.method === 'HEAD') return void res.end() // a HEAD answer has no body: writes to it go nowhere, at once
    const piece = Buffer.from('[0,'.repeat(16 * 1024))
    let open = true
    req.socket.once('close', () => (open = false))
    // Written as fast as the client reads, and never faster: a bounded number of pieces per turn of the event loop.
    const more = () => {
      for (let i = 0; i < 64; i++) {
        if (!open || res.destroyed) return
        stats.bytesOut += piece.byteLength
        if (!res.write(piece)) return void res.once('drain', more)
      }
      setImmediate(more)
    }
    more()
  })

/** Sends the head at once, then one byte of body every `everyMs` ms. */
export const trickle = (everyMs = 200): Promise<Served> =>
  serveNode((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    if (req.method === 'HEAD') return void res.end()
    const timer = setInterval(() => res.write(' '), everyMs)
    req.socket.once('close', () => clearInterval(timer))
  })

/** A head with `count` headers, or one header of `count` bytes. */
export const headerFlood = (shape: 'many' | 'huge', count: number): Promise<Served> =>
  serveRawHttp((socket) => {
    const lines =
      shape === 'many'
        ? Array.from({ length: count }, (_, i) => `x-flood-${i}: ${i}\r\n`).join('')
        : `x-flood: ${'a'.repeat(count)}\r\n`
    socket.end(`${JSON_HEAD}${lines}content-length: 2\r\n\r\n[]`)
  })

/** Answers `status` with `body` as JSON (and any headers); the body is a string or a function of the request. */
export const fixed = (status: number, body: string, headers: Record<string, string> = {}): Promise<Served> =>
  serveNode((_req, res) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...headers,
    })
    res.end(body)
  })

// ---------------------------------------------------------------------------------------------------------
// Fetch handler wrappers: a correct handler (the stub's) made slow, throttled, echoing, or hostile in its bodies.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Every answer comes after `ms` milliseconds. */
export const slow =
  (next: FetchHandler, ms: number): FetchHandler =>
  async (request) => {
    await sleep(ms)
    return next(request)
  }

// The rate limiters live with the benchmarks that measure the suite against them; tests use them from here too.
export { throttled, tokenBucket, tooMany, type LimiterStats, type RetryAfter } from '../bench/limiters.js'

/** Counts requests in flight at the handler (for bounds on the client's concurrency). */
export function counted(next: FetchHandler): { fetch: FetchHandler; stats: Stats } {
  const stats = newStats()
  return {
    stats,
    fetch: async (request) => {
      stats.requests++
      stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight)
      try {
        return await next(request)
      } finally {
        stats.inFlight--
      }
    },
  }
}

/** The ways a target echoes the key back; `every` does them all at once. */
export const ECHOES = [
  'header-value',
  'header-name',
  'cookie',
  'body-field',
  'stored-name',
  'json-escaped',
  'url-encoded',
  'upper-case',
] as const

/** One way of echoing the key. */
export type Echo = (typeof ECHOES)[number]

/** The credentials of an Authorization header (after its scheme, any scheme), if any. */
export const tokenOf = (request: Request) => /^\S+\s+(.+)$/.exec(request.headers.get('authorization') ?? '')?.[1]

const jsonEscaped = (text: string) =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
const urlEncoded = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')

/**
 * Reflects the Authorization token (whatever the request carried) in the answer, in the ways asked: in headers,
 * a cookie, JSON bodies (as a field, as every pet's name, `\u`-escaped, percent-encoded, upper-cased). The
 * reason phrase and raw header names are the edge's (see `echoAtEdge`).
 */
export function echoing(next: FetchHandler, echoes: readonly Echo[] = ECHOES): FetchHandler {
  return async (request) => {
    const token = tokenOf(request)
    const response = await next(request)
    if (!token) return response
    const headers = new Headers(response.headers)
    if (echoes.includes('header-value')) headers.set('x-echo-authorization', `Bearer ${token}`)
    if (echoes.includes('header-name') && /^[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(token)) headers.set(`x-seen-${token}`, '1')
    if (echoes.includes('cookie')) headers.append('set-cookie', `session=${token}; Path=/; HttpOnly`)
    if (echoes.includes('url-encoded')) headers.set('location', `/v1/pets?key=${urlEncoded(token)}`)
    if (echoes.includes('upper-case')) headers.set('x-echo-upper', token.toUpperCase())
    let text = await response.text()
    if (text.trim().startsWith('{') || text.trim().startsWith('[')) {
      try {
        text = JSON.stringify(echoInto(JSON.parse(text) as unknown, token, echoes))
        // `\u`-escaped: the escapes survive only in the text, so they are written in after stringifying.
        if (echoes.includes('json-escaped')) text = text.replace('"__escaped__"', `"${jsonEscaped(token)}"`)
      } catch {
        // not JSON after all: left as it was
      }
    }
    headers.delete('content-length')
    return new Response(response.status === 204 ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers,
    })
  }
}

function echoInto(value: unknown, token: string, echoes: readonly Echo[]): unknown {
  const decorate = (object: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...object }
    if (echoes.includes('body-field')) out.seenAuthorization = `Bearer ${token}`
    if (echoes.includes('stored-name') && typeof out.name === 'string') out.name = token
    if (echoes.includes('json-escaped')) out.escaped = '__escaped__'
    if (echoes.includes('url-encoded')) out.link = `https://example.invalid/?k=${urlEncoded(token)}`
    if (echoes.includes('upper-case')) out.shout = token.toUpperCase()
    if (echoes.includes('header-name')) out[token] = true
    return out
  }
  if (Array.isArray(value))
    return value.map((v) =>
      v !== null && typeof v === 'object' && !Array.isArray(v) ? decorate(v as Record<string, unknown>) : v,
    )
  if (value !== null && typeof value === 'object') return decorate(value as Record<string, unknown>)
  return value
}

/** The edge's part of echoing: the token as the reason phrase and as a raw header name. */
export const echoAtEdge: Pick<Edge, 'reason' | 'rawHeaders'> = {
  reason: (req) => /^\S+\s+(.+)$/.exec(req.headers.authorization ?? '')?.[1]?.replace(/[^\x20-\x7e]/g, '?'),
  rawHeaders: (req) => {
    const token = /^\S+\s+(.+)$/.exec(req.headers.authorization ?? '')?.[1]
    return token && /^[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(token) ? [[`x-raw-${token}`, token]] : []
  },
}

/** What a hostile body looks like. */
export type Hostile = 'huge-list' | 'deep' | 'wide' | 'huge-number' | 'huge-string'

/** A JSON text of about `bytes` bytes of the given shape. */
export function hostileBody(shape: Hostile, bytes: number): string {
  switch (shape) {
    case 'huge-list': {
      const pet = '{"id":1,"name":"x","status":"available"},'
      return `[${pet.repeat(Math.floor(bytes / pet.length))}{"id":2,"name":"y"}]`
    }
    case 'deep': {
      const depth = Math.floor(bytes / 2)
      return `${'['.repeat(depth)}${']'.repeat(depth)}`
    }
    case 'wide': {
      const n = Math.floor(bytes / 12)
      return `{${Array.from({ length: n }, (_, i) => `"k${i}":${i % 10}`).join(',')}}`
    }
    case 'huge-number':
      return `{"id":${'9'.repeat(bytes)},"name":"x"}`
    case 'huge-string':
      return `{"id":1,"name":"${'x'.repeat(bytes)}"}`
  }
}

/**
 * Answers with a hostile JSON body instead of the handler's own, where the handler answered 200 or 201 and the
 * request is one `where` picks (every listPets by default: a list is where a large body is natural).
 */
export function hostile(
  next: FetchHandler,
  shape: Hostile,
  bytes: number,
  where: (request: Request) => boolean = isList,
): FetchHandler {
  const body = Buffer.from(hostileBody(shape, bytes))
  return async (request) => {
    const picked = where(request)
    const response = await next(request)
    if (!picked || (response.status !== 200 && response.status !== 201)) return response
    return new Response(body, { status: response.status, headers: { 'content-type': 'application/json' } })
  }
}

/** A 200 whose JSON body never ends (in-process: a stream that yields for as long as it is read). */
export function endlessResponse(): Response {
  const piece = new TextEncoder().encode('[0,'.repeat(16 * 1024))
  return new Response(new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(piece) }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  })
}

const MiB = 1024 * 1024

/**
 * The hostile list answers the staging tests send, with their sizes: a list just under the 16 MiB read cap, deep
 * and wide nesting, a body that never ends, an 8 MB number and an 8 MB string.
 */
export const HOSTILE_SHAPES = [
  ['huge-list', 16 * MiB - 64 * 1024],
  ['deep', 3 * MiB],
  ['wide', 2 * MiB],
  ['endless', 0],
  ['huge-number', 8 * MiB],
  ['huge-string', 8 * MiB],
] as const satisfies readonly (readonly [Hostile | 'endless', number])[]

/**
 * The first `count` requests that `where` picks get, in turn, each hostile body of `shapes` (`endless` for a body
 * without end); everything else is the handler's own answer.
 */
export function hostileMix(
  next: FetchHandler,
  shapes: readonly (readonly [Hostile | 'endless', number])[],
  count: number,
  where: (request: Request) => boolean = isList,
): FetchHandler {
  const bodies = shapes.map(([shape, bytes]) =>
    shape === 'endless' ? undefined : Buffer.from(hostileBody(shape, bytes)),
  )
  let picked = 0
  return async (request) => {
    const turn = where(request) && picked < count ? picked++ : undefined
    const response = await next(request)
    if (turn === undefined || (response.status !== 200 && response.status !== 201)) return response
    const body = bodies[turn % bodies.length]
    return body === undefined
      ? endlessResponse()
      : new Response(body, { status: response.status, headers: { 'content-type': 'application/json' } })
  }
}

/** A listPets request (`GET .../pets`, any query). */
export const isList = (request: Request) => request.method === 'GET' && /\/pets$/.test(new URL(request.url).pathname)

/** Answers everything (the key accepted or not) with the same status and body: a wrong key, a wrong base URL. */
export function everything(status: number, body: string, contentType = 'application/json'): FetchHandler {
  return async () => new Response(body, { status, headers: { 'content-type': contentType } })
}

/**
 * The interface mounted without its version prefix: `/pets` is what `/v1/pets` is to the handler, and a path under
 * the prefix gets a JSON 404, as a framework answers a route it does not know.
 */
export function withoutPrefix(next: FetchHandler, prefix = '/v1'): FetchHandler {
  return async (request) => {
    const url = new URL(request.url)
    if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`))
      return new Response(JSON.stringify({ code: 'not_found', message: 'no such route', status: 404 }), {
        status: 404,
        headers: { 'content-type': 'application/json' },
      })
    url.pathname = `${prefix}${url.pathname}`
    return next(new Request(url, request))
  }
}

/** An HTML 404 page, as a web server answers a path it does not serve. */
export const HTML_404 =
  '<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>'

/** An Error body for 401 with the documented shape. */
export const UNAUTHORIZED = JSON.stringify({ code: 'unauthorized', message: 'missing or invalid API key', status: 401 })

// A self-signed certificate for 127.0.0.1 (EC P-256, valid to 2126): for the TLS target only.
const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgouWquQ6ZL7fmXeZn
4ztExc/Y937OJa/odscFXvbphtyhRANCAATKfpZUiuypiTdt6bulC3hXk8uqI9c8
dY9sz26N94Au9jJV4Tto4cjy+m2jHVZnkoJakMSZKAxbvE5owL/jCCwC
-----END PRIVATE KEY-----
`
const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgIUap0/li+Xug9258oR2k+mjVqAolYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMzE0MTY0MFoYDzIxMjYxMDMw
MTQxNjQwWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAATKfpZUiuypiTdt6bulC3hXk8uqI9c8dY9sz26N94Au9jJV4Tto4cjy
+m2jHVZnkoJakMSZKAxbvE5owL/jCCwCo2QwYjAdBgNVHQ4EFgQU1oxHZPy+NlDn
A6ZAOFvzpDmbANYwHwYDVR0jBBgwFoAU1oxHZPy+NlDnA6ZAOFvzpDmbANYwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
IQD0G/pnzmXO3s8qb55bodDC1JJqnkkCCWzRvcnwNSAObAIgK7e/2W8hS5zZ21gX
rrDmmTw1FJdTP896cDTWsLU1+Xk=
-----END CERTIFICATE-----
`

// ---------------------------------------------------------------------------------------------------------
// Looking for a leaked key, independently of the kit's redactor: undo what targets and writers do to text.

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/** The text with `\u` escapes, HTML/XML character references and %-encoding undone, lower-cased. */
export function unescaped(text: string): string {
  let out = text
  for (let round = 0; round < 2; round++) {
    out = out
      .replace(/\\+u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
      .replace(/&#([0-9]+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
      .replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]!)
      .replace(/(?:%[0-9a-f]{2})+/gi, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'))
      .replace(/\+/g, ' ')
  }
  return out.toLowerCase()
}

/**
 * Where `secret` (or any `fragment`-character piece of it) shows in `text`, in any letter case or escaping:
 * each hit with a little context; [] when it shows nowhere.
 */
export function leaksOf(text: string, secret: string, fragment = 10): string[] {
  const plain = unescaped(text)
  const wanted = unescaped(secret)
  const pieces = new Set<string>([wanted])
  for (let i = 0; i + fragment <= wanted.length; i++) pieces.add(wanted.slice(i, i + fragment))
  const hits: string[] = []
  for (const piece of pieces) {
    const at = plain.indexOf(piece)
    if (at >= 0) hits.push(`…${plain.slice(Math.max(0, at - 40), at + piece.length + 40)}…`)
  }
  return hits
}
