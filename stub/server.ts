/**
 * The node edge: binds a {@link Handler} (the app) to node:http, streams request bodies within the limit (and within
 * the room all bodies share), and shuts down gracefully. Reading the headers the app reads is stub/headers.ts's,
 * answering bad HTTP and CONNECT stub/refusals.ts's, writing the answers stub/answer.ts's, bounding the answers clients
 * leave unread stub/backlog.ts's, misbehaviour on demand stub/misbehave.ts's, the log stub/log.ts's.
 */
import { isAscii } from 'node:buffer'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { Answer, finished, note, Outbox, send, type BodyRoom, type Exchange, type State } from './answer.js'
import { Backlog } from './backlog.js'
import { Waiting } from './waiting.js'
import type { Journal } from './journal.js'
import { boundConnections, descriptorLimit, sheddingBounds } from './connections.js'
import { lengthOf, pickHeaders } from './headers.js'
import { respondSpecially } from './misbehave.js'
import { MAX_HEADER_LINES, misframed, onClientError, onConnect } from './refusals.js'
import { HostCheck, hostOf, misdirected } from './origin.js'
import {
  BASE_PATH,
  DEFAULT_MAX_BODY,
  asRouted,
  type AppRequest,
  type AppResponse,
  type BodyWanted,
  type ConnectionMemo,
  type Handler,
} from './app.js'

/** How to bind a server. */
export interface ServerOptions {
  /** TCP port; 0 picks a free one. */
  port: number
  host: string
  /** Receives one line per request (never a header value); none means no log. */
  log?: (line: string) => void
  /** Texts the log never shows (the API keys, the admin key), should a client send one in a request's target. */
  secrets?: readonly string[]
  /** Records every request to the app (the admin API's own are left out). */
  journal?: Journal
  /** Longest time to receive a whole request, in ms (slow bodies). */
  requestTimeout?: number
  /** Longest time to receive the request headers, in ms (slow headers). */
  headersTimeout?: number
  /** How long an idle keep-alive connection stays open, in ms. */
  keepAliveTimeout?: number
  /** The version prefix the interface is served under, for `url`: the bundled spec's `/v1` when not given. */
  basePath?: string
  /** The most bytes request bodies may hold at once while they are read: {@link MAX_BODY_BYTES} when not given. */
  bodyRoom?: number
  /**
   * How far past `bodyRoom` what bodies read before they waited, and bodies too small to wait, may take it before the
   * oldest still arriving are given up: a quarter of the room, and at least {@link MIN_BODY_SLACK}, when not given.
   */
  bodySlack?: number
  /** Names a request's `Host` may give besides loopback and the bound address (`*`: any); see stub/origin.ts. */
  allowHosts?: readonly string[]
  /** The most requests that may wait on connections at once: stub/waiting.ts's MAX_WAITING when not given. */
  maxWaiting?: number
  /** When to shed connections, and down to how many: stub/connections.ts's bounds from `ulimit -n` when not given. */
  connectionBounds?: { high: number; low: number }
}

/** A listening server. */
export interface RunningServer {
  /** The base address of the interface, e.g. `http://127.0.0.1:4010/v1`. */
  url: string
  port: number
  host: string
  server: Server
  /**
   * Stops accepting connections, lets requests in flight finish for up to `graceMs`, then ends every
   * connection, keep-alive ones included.
   */
  close(graceMs?: number): Promise<void>
}

/** Thrown when the server cannot listen (port in use, no permission). */
export class ListenError extends Error {
  override name = 'ListenError'
}

/** Starts `app` on a port and resolves once it listens. Rejects with {@link ListenError} when it cannot. */
export function serve(app: Handler, options: ServerOptions): Promise<RunningServer> {
  const state: State = {
    log: options.log,
    secrets: options.secrets ?? [],
    journal: options.journal,
    outbox: new Outbox(),
    backlog: new Backlog(options.log),
    waiting: new Waiting(options.log, options.maxWaiting),
    bodies: {
      bytes: 0,
      most: options.bodyRoom ?? MAX_BODY_BYTES,
      slack: options.bodySlack ?? Math.max((options.bodyRoom ?? MAX_BODY_BYTES) / 4, MIN_BODY_SLACK),
      lead: undefined,
      waiting: new Set(),
      shed: 0,
      shedLogged: -Infinity,
    },
    connections: new Set(),
    hosts: new HostCheck(options.host, options.allowHosts),
    inFlight: 0,
    closing: false,
  }
  const requestTimeout = options.requestTimeout ?? 30_000
  const headersTimeout = Math.min(options.headersTimeout ?? 10_000, requestTimeout) // Node requires headers within the request time
  const server = createServer({
    requestTimeout,
    headersTimeout,
    keepAliveTimeout: options.keepAliveTimeout ?? 5_000,
    connectionsCheckingInterval: 1_000, // how often the two timeouts above are enforced
    requireHostHeader: false, // answered by the app like any request, not with an empty 400
  })
  server.maxHeadersCount = MAX_HEADER_LINES // lines past it went unseen: a request that reaches it is refused (431)
  // A half-closed client still gets its answers (Node ended the connection: one waiting for the data file never came).
  ;(server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true
  const log = options.log
  state.connections = boundConnections(
    server,
    headersTimeout,
    log,
    state.waiting.holds,
    options.connectionBounds ?? sheddingBounds(descriptorLimit()),
  )
  const handle = (req: IncomingMessage, res: ServerResponse, continued: boolean) =>
    onRequest(app, state, req, res, continued)
  server.on('request', (req, res) => handle(req, res, false))
  // `Expect: 100-continue`: the app decides (auth, size) before the client sends the body.
  server.on('checkContinue', (req, res) => handle(req, res, true))
  // `Expect` with anything but 100-continue: answered like any request (RFC 9110 §10.1.1 lets a server ignore it),
  // not with Node's bodiless 417, which no operation documents.
  server.on('checkExpectation', (req, res) => handle(req, res, false))
  server.on('connect', (req: IncomingMessage, socket: Socket) => onConnect(app, state, req, socket))
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => onClientError(app, log, error, socket))
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${options.host}:${options.port}`
      const why =
        error.code === 'EADDRINUSE'
          ? `port ${options.port} on ${options.host} is already in use`
          : error.code === 'EACCES'
            ? `no permission to listen on ${where}`
            : error.code === 'EADDRNOTAVAIL'
              ? `${options.host} is not an address of this machine`
              : `cannot listen on ${where}: ${error.message}`
      reject(new ListenError(why))
    })
    server.listen(options.port, options.host, () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : options.port
      const host = options.host.includes(':') ? `[${options.host}]` : options.host
      resolve({
        url: `http://${host}:${port}${options.basePath ?? BASE_PATH}`,
        port,
        host: options.host,
        server,
        close: (graceMs) => (state.closed ??= shutDown(server, state, graceMs)),
      })
    })
  })
}

function onRequest(app: Handler, state: State, req: IncomingMessage, res: ServerResponse, continued: boolean): void {
  // A request pipelined behind one refused with `Connection: close` gets no answer (the connection closes after the
  // refusal), so it must not be carried out either: a create stored and never answered is created twice on a retry.
  if ((req.socket as ClosingSocket)[CLOSING]) return
  if (tooManyPipelined(req.socket as PipeliningSocket, res, state)) return
  const started = state.log || state.journal ? performance.now() : 0
  state.inFlight++
  const request: AppRequest = {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: pickHeaders(req.rawHeaders),
    connection: memoOf(req.socket),
  }
  // Waiting behind an unsent answer, a request lets go of Node's two copies of its header lines (55 KB for 199 lines).
  if (res.socket === null) [req.headers, req.rawHeaders] = [request.headers as IncomingMessage['headers'], []]
  let routed
  try {
    // A name the stub does not answer for is a DNS-rebinding page's, or one to allow with --allow-host.
    const host = hostOf(request.url, request.headers.host)
    const fromPage = request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined
    routed =
      misframed(app, req.httpVersion, request.headers, req.rawHeaders.length) ??
      (state.hosts.allows(host, fromPage) ? app.route(request) : misdirected(host, fromPage, request))
  } catch (error) {
    routed = app.failure(error)
  }
  // No upgrade is made (RFC 9110 §7.8), but llhttp reads nothing after it: the answer closes the connection.
  if (request.headers.upgrade !== undefined) {
    res.shouldKeepAlive = false
    closing(req)
  }
  const exchange: Exchange = { state, request, req, res, started }
  if ('kind' in routed) {
    return new BodyExchange(app, exchange, routed).read(continued, lengthOf(request.headers['content-length']))
  }
  // An answer that leaves a body unread (401, 404, 405): one over the limit is not read to its end either.
  const oversized = lengthOf(request.headers['content-length']) > app.maxBody
  if (oversized || closes(routed)) closing(req)
  respond(exchange, routed, oversized ? req : undefined)
}

/** Marks a connection whose last answer closes it: nothing it sent after is carried out (see {@link onRequest}). */
const CLOSING = Symbol('closing')

type ClosingSocket = Socket & { [CLOSING]?: true }

function closing(req: IncomingMessage): void {
  ;(req.socket as ClosingSocket)[CLOSING] = true
}

/** True when an answer says `Connection: close` (a refusal of the request's framing, Host or size). */
function closes(response: AppResponse): boolean {
  const at = response.headers.indexOf('Connection')
  return at >= 0 && at % 2 === 0 && response.headers[at + 1] === 'close'
}

/**
 * Sends the answer (if any), logs the request, and counts it as no longer in flight. An ordinary answer goes out with
 * the others of this turn of the event loop ({@link Outbox}).
 */
function respond(
  exchange: Exchange,
  response: AppResponse | undefined,
  unread?: IncomingMessage,
  body?: Uint8Array | string,
): void {
  if (response !== undefined && (response.delayMs !== undefined || response.socket !== undefined)) {
    return respondSpecially(exchange, response, body)
  }
  const { state } = exchange
  if (response !== undefined && unread === undefined) return state.outbox.add(new Answer(exchange, response, body))
  if (response) send(exchange.res, response, state, unread)
  if (state.log || state.journal) note(exchange, response, body)
  finished(state)
}

/**
 * The most requests that may wait on one connection behind an answer not yet sent. A client pipelines a few requests
 * ahead; one that sends thousands without reading the answers would have each made and kept in memory (a whole read of
 * the socket, 64 KiB of requests, is parsed at once), and a few hundred such connections exhausted the heap.
 */
export const MAX_PIPELINED = 128

/** How many requests wait on a connection behind an answer not yet sent. */
const PIPELINED = Symbol('pipelined')

type PipeliningSocket = Socket & { [PIPELINED]?: number }

/**
 * True when the request is not to be answered: its connection has more than {@link MAX_PIPELINED} requests waiting, and
 * is closed (RFC 9112 §9.3.2: a client retries the requests left unanswered), or was already.
 */
function tooManyPipelined(socket: PipeliningSocket, res: ServerResponse, state: State): boolean {
  // Node gives a response its socket at once unless an earlier answer on the connection is still being sent.
  if (res.socket !== null) {
    socket[PIPELINED] = 0
    return false
  }
  if (socket.destroyed) return true
  const waiting = (socket[PIPELINED] ?? 0) + 1
  socket[PIPELINED] = waiting
  if (waiting <= MAX_PIPELINED) {
    // It waits for the answers before it on its connection: counted among the server's waiting requests until sent.
    state.waiting.add(socket)
    res.once('finish', () => state.waiting.remove(socket))
    return false
  }
  socket.destroy()
  state.log?.(
    `- - 1 connection closed: more than ${MAX_PIPELINED} pipelined requests on it were waiting for answers it did not read`,
  )
  return true
}

/** Where a connection's {@link ConnectionMemo} is kept: on its socket, which lives exactly as long. */
const MEMO = Symbol('memo')

function memoOf(socket: Socket & { [MEMO]?: ConnectionMemo }): ConnectionMemo {
  return (socket[MEMO] ??= {})
}

/** Where a request's {@link BodyExchange} is kept, so that shared listeners find it from the request they are called on. */
const EXCHANGE = Symbol('exchange')

type CarryingRequest = IncomingMessage & { [EXCHANGE]?: BodyExchange }

/**
 * Where a connection keeps the request whose body it is receiving (`null` once none is), for the one 'close' listener
 * each connection gets: bodies arrive one after the other, so at most one is being received when the client leaves.
 */
const RECEIVING = Symbol('receiving')

type ReceivingSocket = Socket & { [RECEIVING]?: BodyExchange | null }

/**
 * The most bytes request bodies may hold at once while they are read (the admin API takes a restore of up to 64 MiB):
 * past it, every large body but one waits, its connection not read, until a body ends and makes room (a small one
 * never waits: {@link SMALL_BODY}).
 */
export const MAX_BODY_BYTES = 256 * 1024 * 1024

/** The least {@link ServerOptions.bodySlack}: room for hundreds of bodies' first reads however small the room. */
const MIN_BODY_SLACK = 16 * 1024 * 1024

/**
 * A body that holds no more than this never waits (a create, by the interface's default limit): its bytes cost little
 * even by the thousand, and creates are not held back behind restores.
 */
const SMALL_BODY = DEFAULT_MAX_BODY

/**
 * A request whose body is being read. Its listeners are shared functions that find it on the request,
 * not closures made per request: closures cost an allocation each (and, under tsx, a naming call).
 */
class BodyExchange {
  readonly #chunks: Buffer[] = []
  #size = 0
  /** The bytes kept of the body, counted in the server's {@link BodyRoom}. */
  #kept = 0
  #settled = false
  /** The connection the body comes on, once it is being read. */
  #socket: ReceivingSocket | undefined
  /** The body limit of this request: the app's, unless what it routed to says otherwise. */
  readonly limit: number

  constructor(
    readonly app: Handler,
    readonly exchange: Exchange,
    readonly wanted: BodyWanted,
  ) {
    this.limit = wanted.maxBody ?? app.maxBody
  }

  /** Streams the body up to the app's limit; past it, stops buffering and answers 400 at once. */
  read(continued: boolean, declared: number): void {
    if (declared > this.limit) {
      closing(this.exchange.req)
      return this.#done(asRouted(this.wanted, this.app.tooLarge(this.limit)), this.exchange.req)
    }
    if (continued) this.exchange.res.writeContinue()
    const req = this.exchange.req as CarryingRequest
    req[EXCHANGE] = this
    req.on('data', onBodyData)
    req.on('end', onBodyEnd)
    // A client that gives up mid-body gets no answer; its socket is already gone. The connection's one listener hears
    // it: a listener per request costs more, and a request's own 'close' comes after every answer too.
    const socket = (this.#socket = req.socket as ReceivingSocket)
    if (socket[RECEIVING] === undefined) socket.once('close', onSocketGone)
    socket[RECEIVING] = this
  }

  data(chunk: Buffer): void {
    if (this.#settled) return
    this.#size += chunk.length
    if (this.#size <= this.limit) {
      this.#chunks.push(chunk)
      this.#kept += chunk.length
      const room = this.exchange.state.bodies
      room.bytes += chunk.length
      if (room.bytes > room.most) {
        if (this.#kept > SMALL_BODY) this.#waitForRoom(room)
        if (room.bytes > room.most + room.slack) shedBodies(this.exchange.state, this)
      }
      return
    }
    this.#settle()
    this.#chunks.length = 0
    closing(this.exchange.req)
    this.#done(asRouted(this.wanted, this.app.tooLarge(this.limit)), this.exchange.req)
  }

  end(): void {
    if (!this.#settle()) return
    const { app, wanted } = this
    const chunks = this.#chunks
    const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size)
    // An ASCII body (what clients send) becomes text once, here, for the app and the journal alike; any other is
    // left to the app, which refuses what is not UTF-8.
    const body = isAscii(raw) ? raw.toString('latin1') : raw
    let answer
    try {
      answer = wanted.accept(body)
    } catch (error) {
      answer = asRouted(wanted, app.failure(error, wanted.operationId))
    }
    if (answer instanceof Promise) {
      answer.then(
        (response) => this.#done(response, undefined, body),
        (error: unknown) => this.#done(asRouted(wanted, app.failure(error, wanted.operationId)), undefined, body),
      )
    } else this.#done(answer, undefined, body)
  }

  gone(): void {
    if (this.#settle()) this.#done(undefined)
  }

  /**
   * Past the room's bytes of bodies held ({@link MAX_BODY_BYTES}): stops reading this connection (the client waits, as TCP makes it) until
   * a body ends and makes room, unless this is the lead, the one body read on whatever the others hold.
   */
  #waitForRoom(room: BodyRoom): void {
    room.lead ??= this
    if (room.lead === this) return
    this.exchange.req.pause()
    room.waiting.add(this)
  }

  resume(): void {
    this.exchange.state.bodies.waiting.delete(this)
    if (!this.#settled) this.exchange.req.resume()
  }

  /** Marks the body read (or given up), and the connection free of it; false when it already was. */
  #settle(): boolean {
    if (this.#settled) return false
    this.#settled = true
    const socket = this.#socket
    if (socket !== undefined && socket[RECEIVING] === this) socket[RECEIVING] = null
    const room = this.exchange.state.bodies
    room.bytes -= this.#kept
    room.waiting.delete(this)
    if (room.lead === this) room.lead = undefined
    if (room.waiting.size === 0) return true
    // Room again: the waiting bodies are read on, and wait again (one of them the lead) if they fill it. Still none:
    // the one that waited longest leads, so that a body is always read.
    if (room.bytes <= room.most) for (const waiting of room.waiting) waiting.resume()
    else if (room.lead === undefined) {
      const [next] = room.waiting
      room.lead = next
      next!.resume()
    }
    return true
  }

  #done(response: AppResponse | undefined, unread?: IncomingMessage, body?: Uint8Array | string): void {
    respond(this.exchange, response, unread, body)
  }
}

/** At most one log line a second about bodies given up for want of room. */
const SHED_LOG_MS = 1_000

/**
 * Gives up the bodies still arriving on the oldest connections, `keep`'s and the lead's excepted, and closes those
 * connections, until the room is back within its bound. What waits for room still holds what it read before (up to
 * 64 KiB and a read), and a body that never waits (a create's) holds its bytes until it ends: thousands of connections
 * each stalled short of the end of one held 64 KiB apiece for the 30 s of the request timeout (1.4 GB with 18,000).
 */
function shedBodies(state: State, keep: BodyExchange): void {
  const room = state.bodies
  for (const socket of state.connections) {
    if (room.bytes <= room.most) break
    const receiving = (socket as ReceivingSocket)[RECEIVING]
    if (!receiving || receiving === keep || receiving === room.lead) continue
    receiving.gone() // its bytes leave the room now; it gets no answer, and stored nothing
    socket.destroy()
    room.shed++
  }
  const now = performance.now()
  if (state.log && room.shed > 0 && now - room.shedLogged >= SHED_LOG_MS) {
    room.shedLogged = now
    state.log(
      `- - ${room.shed} connections closed: the request bodies still arriving held more than ${room.most + room.slack} bytes, the oldest first`,
    )
    room.shed = 0
  }
}

function onBodyData(this: CarryingRequest, chunk: Buffer): void {
  this[EXCHANGE]?.data(chunk)
}

function onBodyEnd(this: CarryingRequest): void {
  this[EXCHANGE]?.end()
}

function onSocketGone(this: ReceivingSocket): void {
  const receiving = this[RECEIVING]
  this[RECEIVING] = null
  receiving?.gone()
}

async function shutDown(server: Server, state: State, graceMs = 1_000): Promise<void> {
  state.closing = true
  state.backlog.stop()
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  server.closeIdleConnections()
  if (state.inFlight > 0) {
    let timer: NodeJS.Timeout | undefined
    const drained = new Promise<void>((resolve) => (state.drained = resolve))
    await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))])
    clearTimeout(timer)
  }
  server.closeAllConnections()
  await closed
}
