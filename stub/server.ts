/**
 * Binds a {@link Handler} (the app) to node:http: streams request bodies within the limit, writes each response
 * in one call (the answers of one turn of the event loop together), honours delays and socket directives, answers
 * bad HTTP, logs one line per request, and shuts down gracefully.
 */
import { isAscii } from 'node:buffer'
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { isAdmin } from './admin-path.js'
import type { Journal } from './journal.js'
import { boundConnections } from './connections.js'
import { HostCheck, misdirected } from './origin.js'
import {
  BASE_PATH,
  TRICKLE_MS,
  type AppRequest,
  type AppResponse,
  type BodyWanted,
  type ConnectionMemo,
  type Handler,
  type RequestHeaders,
} from './app.js'

/** How to bind a server. */
export interface ServerOptions {
  /** TCP port; 0 picks a free one. */
  port: number
  host: string
  /** Receives one line per request (never a header value); none means no log. */
  log?: (line: string) => void
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
  /** Names a request's `Host` may give besides loopback and the bound address (`*`: any); see stub/origin.ts. */
  allowHosts?: readonly string[]
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

/** How long, and for how many more bytes, an oversized body is read and discarded after the answer. */
const LINGER_MS = 2_000
const LINGER_BYTES = 64 * 1024 * 1024

interface State {
  log: ((line: string) => void) | undefined
  journal: Journal | undefined
  hosts: HostCheck
  /** Answers waiting for the end of this turn of the event loop. */
  outbox: Outbox
  inFlight: number
  closing: boolean
  closed?: Promise<void>
  drained?: () => void
}

/** A log that gathers its lines and writes them together; {@link BufferedLog.flush} writes what it holds now. */
export interface BufferedLog {
  (line: string): void
  /** Writes every line gathered so far (before the process exits, say). */
  flush(): void
}

/** Log lines wait at most this long to be written together, so that a busy stub writes a few times a second. */
export const LOG_INTERVAL_MS = 100
/** Once this many bytes of lines wait, they are written at the next turn of the event loop, whatever the interval. */
const LOG_BATCH_BYTES = 64 * 1024
/** The room lines wait in; when a line could overflow it, what waits there is kept as text until the next write. */
const LOG_ROOM_BYTES = 4 * LOG_BATCH_BYTES

/**
 * A log writer that gathers lines and writes them in one call, in order: at once after a quiet spell, else at most
 * every {@link LOG_INTERVAL_MS} ms (sooner once {@link LOG_BATCH_BYTES} wait), so logging costs little under load.
 * Lines wait as UTF-8 bytes in one buffer, not as strings: a busy stub logs thousands of lines between two writes,
 * and strings kept that long outlive the young generation, which then copies each of them.
 */
export function bufferedLog(write: (text: string) => void): BufferedLog {
  const room = Buffer.allocUnsafe(LOG_ROOM_BYTES)
  let used = 0
  /** Text taken out of a full room (and any line longer than the room), written before the room's at the next write. */
  let spilled: string[] = []
  let timer: NodeJS.Timeout | undefined
  let soon = false
  let written = -Infinity
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    soon = false
    if (used === 0 && spilled.length === 0) return
    const text = spilled.join('') + room.toString('utf8', 0, used)
    spilled = []
    used = 0
    written = performance.now()
    write(text)
  }
  // Writes happen on a timer, never inside the request that logs: a failing write cannot break an answer.
  const log = (line: string) => {
    const most = line.length * 3 + 1 // UTF-8 takes at most 3 bytes per UTF-16 unit
    if (used + most > LOG_ROOM_BYTES) {
      spilled.push(room.toString('utf8', 0, used))
      used = 0
    }
    if (most > LOG_ROOM_BYTES) spilled.push(line + '\n')
    else {
      used += room.write(line, used)
      room[used++] = 0x0a
    }
    if (timer === undefined) timer = setTimeout(flush, Math.max(0, written + LOG_INTERVAL_MS - performance.now()))
    else if ((used >= LOG_BATCH_BYTES || spilled.length > 0) && !soon) {
      clearTimeout(timer)
      timer = setTimeout(flush, 0)
      soon = true
    }
  }
  return Object.assign(log, { flush })
}

/** Starts `app` on a port and resolves once it listens. Rejects with {@link ListenError} when it cannot. */
export function serve(app: Handler, options: ServerOptions): Promise<RunningServer> {
  const state: State = {
    log: options.log,
    journal: options.journal,
    outbox: new Outbox(),
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
  const log = options.log
  boundConnections(server, headersTimeout, log)
  const handle = (req: IncomingMessage, res: ServerResponse, continued: boolean) =>
    onRequest(app, state, req, res, continued)
  server.on('request', (req, res) => handle(req, res, false))
  // `Expect: 100-continue`: the app decides (auth, size) before the client sends the body.
  server.on('checkContinue', (req, res) => handle(req, res, true))
  // `Expect` with anything but 100-continue: answered like any request (RFC 9110 §10.1.1 lets a server ignore it),
  // not with Node's bodiless 417, which no operation documents.
  server.on('checkExpectation', (req, res) => handle(req, res, false))
  server.on('connect', (req: IncomingMessage, socket: Socket) => onConnect(app, log, req, socket))
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
  const started = state.log || state.journal ? performance.now() : 0
  state.inFlight++
  const request: AppRequest = {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: pickHeaders(req.rawHeaders),
    connection: memoOf(req.socket),
  }
  let routed
  try {
    // A name the stub does not answer for is a DNS-rebinding page's, or one to allow with --allow-host.
    routed = state.hosts.allows(request.headers.host) ? app.route(request) : misdirected(request.headers.host)
  } catch (error) {
    routed = app.failure(error)
  }
  if ('kind' in routed) {
    const exchange = new BodyExchange(app, state, request, req, res, routed, started)
    return exchange.read(continued, Number(request.headers['content-length']))
  }
  // An answer that leaves a body unread (401, 404, 405): one over the limit is not read to its end either.
  const oversized = Number(request.headers['content-length']) > app.maxBody
  respond(state, request, req, res, routed, started, oversized ? req : undefined)
}

/**
 * Sends the answer (if any), logs the request, and counts it as no longer in flight. An ordinary answer goes out with
 * the others of this turn of the event loop ({@link Outbox}).
 */
function respond(
  state: State,
  request: AppRequest,
  req: IncomingMessage,
  res: ServerResponse,
  response: AppResponse | undefined,
  started: number,
  unread?: IncomingMessage,
  body?: Uint8Array | string,
): void {
  if (response !== undefined && (response.delayMs !== undefined || response.socket !== undefined)) {
    return respondSpecially(state, request, req, res, response, started, body)
  }
  if (response !== undefined && unread === undefined) {
    return state.outbox.add(new Answer(state, request, res, response, started, body))
  }
  if (response) send(res, response, state, unread)
  if (state.log || state.journal) note(state, request, response, started, body)
  finished(state)
}

/** The real `setImmediate`, kept from load time: a test's fake clock must not hold back the answers of a real server. */
const afterPoll = setImmediate

/**
 * The answers ready in one turn of the event loop, written together at its end (`setImmediate` runs once the loop has
 * read every connection that had data). Under load one turn reads many requests; writing their answers in one burst
 * wakes a waiting client once for the lot instead of once per answer, and on a loaded machine that wake-up costs more
 * than making the answer. An answer alone in its turn waits only for the end of that turn, not for a timer.
 */
class Outbox {
  #answers: Answer[] = []

  add(answer: Answer): void {
    if (this.#answers.push(answer) === 1) afterPoll(this.#flush)
  }

  /** Every answer goes out first; logging and journaling them waits until the clients have theirs. */
  readonly #flush = (): void => {
    const answers = this.#answers
    this.#answers = []
    for (const answer of answers) answer.write()
    const sent = answers[0]!.noted ? performance.now() : 0 // one reading of the clock for the whole turn
    for (const answer of answers) answer.done(sent)
  }
}

/** An answer in the {@link Outbox}; the request stays in flight until it is written. */
class Answer {
  constructor(
    readonly state: State,
    readonly request: AppRequest,
    readonly res: ServerResponse,
    readonly response: AppResponse,
    readonly started: number,
    readonly body: Uint8Array | string | undefined,
  ) {}

  write(): void {
    try {
      send(this.res, this.response, this.state)
    } catch {
      this.res.destroy() // an answer Node refuses to write costs its own connection, never the others of the turn
    }
  }

  /** Whether the request is logged or journaled, so that its time is taken. */
  get noted(): boolean {
    return this.state.log !== undefined || this.state.journal !== undefined
  }

  /** Logs and journals the written answer (`sent` is when), and counts its request out. */
  done(sent: number): void {
    const { state } = this
    if (state.log || state.journal) note(state, this.request, this.response, this.started, this.body, sent)
    finished(state)
  }
}

/** Logs the request and records it in the journal (the admin API's own requests stay out of it). */
function note(
  state: State,
  request: AppRequest,
  response: AppResponse | undefined,
  started: number,
  body: Uint8Array | string | undefined,
  ended = performance.now(),
): void {
  const ms = ended - started
  if (state.log) state.log(logLine(request, response, ms))
  if (state.journal && !isAdmin(request.url)) state.journal.record(request, response, ms, body)
}

/**
 * `METHOD target status [code] [prefer="..."] [allow-headers="..."] [socket directive] time`: never a header
 * value, except the header names a CORS preflight asked for and was allowed.
 */
export function logLine(
  request: Pick<AppRequest, 'method' | 'url'>,
  response: AppResponse | undefined,
  ms: number,
): string {
  const status =
    response === undefined
      ? 'aborted'
      : response.code === undefined
        ? response.status
        : `${response.status} ${response.code}`
  const applied = response?.applied === undefined ? '' : ` prefer=${JSON.stringify(response.applied)}`
  const allowed =
    response?.allowedHeaders === undefined ? '' : ` allow-headers=${JSON.stringify(response.allowedHeaders)}`
  const socket = response?.socket === undefined ? '' : ` ${response.socket}`
  return `${request.method} ${printable(request.url)} ${status}${applied}${allowed}${socket} ${tenths(ms)}ms`
}

/** A duration in ms to one decimal (`0.4`, `12.0`), as `toFixed(1)` writes it (to within a rounding tie), at less cost. */
function tenths(ms: number): string {
  const count = Math.round(ms * 10)
  return count >= 0 && count < 1e15 ? `${(count - (count % 10)) / 10}.${count % 10}` : ms.toFixed(1)
}

/**
 * Answers after the response's delay, or misbehaves at the socket as it asks. The request stays in flight
 * until the connection is done with it (a hung one until the client or the shutdown ends it).
 */
function respondSpecially(
  state: State,
  request: AppRequest,
  req: IncomingMessage,
  res: ServerResponse,
  response: AppResponse,
  started: number,
  body: Uint8Array | string | undefined,
): void {
  let settled = false
  const settle = () => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    finished(state)
  }
  const act = () => {
    if (res.destroyed) {
      note(state, request, undefined, started, body)
      return settle() // the client left during the delay
    }
    note(state, request, response, started, body)
    const socket = res.socket
    switch (response.socket) {
      case undefined:
        send(res, response, state)
        return settle()
      case 'hang':
        return // settled when the connection closes
      case 'reset':
        socket?.resetAndDestroy()
        return settle()
      case 'empty':
        socket?.destroy()
        return settle()
      case 'malformed-chunk':
        socket?.end(malformedChunk(response))
        return settle()
      case 'trickle':
        return trickle(res, response, settle)
    }
  }
  res.once('close', settle)
  const timer = response.delayMs ? setTimeout(act, response.delayMs) : undefined
  if (!timer) act()
}

/** The head of the response, then one good chunk and one whose size line is not hex; the connection then ends. */
function malformedChunk(response: AppResponse): string {
  const head: string[] = []
  for (let i = 0; i < response.headers.length; i += 2) {
    const name = response.headers[i]!
    if (!/^(content-length|connection|transfer-encoding)$/i.test(name)) head.push(name, response.headers[i + 1]!)
  }
  const half = response.body.slice(0, Math.ceil(response.body.length / 2))
  const good = half === '' ? '' : `${Buffer.byteLength(half).toString(16)}\r\n${half}\r\n`
  return rawResponse({
    ...response,
    headers: head.concat('Transfer-Encoding', 'chunked', 'Connection', 'close'),
    body: `${good}zz\r\n`,
  })
}

/** Sends the head at once and the body in up to ten pieces spread over the response's trickle time. */
function trickle(res: ServerResponse, response: AppResponse, settle: () => void): void {
  const body = Buffer.from(response.body)
  const pieces = Math.max(1, Math.min(10, body.length))
  const every = (response.trickleMs ?? TRICKLE_MS) / pieces
  res.writeHead(response.status, response.headers)
  res.flushHeaders()
  let sent = 0
  const next = () => {
    if (res.destroyed) return settle()
    const piece = body.subarray(
      Math.round((body.length * sent) / pieces),
      Math.round((body.length * (sent + 1)) / pieces),
    )
    if (++sent < pieces) {
      res.write(piece)
      timer = setTimeout(next, every)
    } else {
      res.end(piece)
      settle()
    }
  }
  let timer = setTimeout(next, every)
  res.once('close', () => clearTimeout(timer))
}

/**
 * The few request headers the app reads, taken from the raw list: Node builds `req.headers` lazily, and
 * skipping that saves work on every request. The first occurrence wins, as in `req.headers`, except that
 * every `Authorization` is kept (the app refuses more than one) and every `Prefer` (they add up).
 */
function pickHeaders(raw: string[]): RequestHeaders {
  let authorization: string | string[] | undefined
  let prefer: string | string[] | undefined
  let contentType: string | undefined
  let contentLength: string | undefined
  let contentEncoding: string | undefined
  let corsHeaders: string | undefined
  let host: string | string[] | undefined
  let origin: string | undefined
  let accept: string | undefined
  let corsMethod: string | undefined
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!
    const length = name.length
    if (length === 13 && named(name, 'authorization')) authorization = more(authorization, raw[i + 1]!)
    else if (length === 12 && contentType === undefined && named(name, 'content-type')) contentType = raw[i + 1]
    else if (length === 14 && contentLength === undefined && named(name, 'content-length')) contentLength = raw[i + 1]
    else if (length === 6 && named(name, 'prefer')) prefer = more(prefer, raw[i + 1]!)
    else if (length === 4 && named(name, 'host'))
      host = more(host, raw[i + 1]!) // two are refused
    else if (length === 6 && origin === undefined && named(name, 'origin')) origin = raw[i + 1]
    else if (length === 16 && contentEncoding === undefined && named(name, 'content-encoding'))
      contentEncoding = raw[i + 1]
    else if (length === 30 && corsHeaders === undefined && named(name, 'access-control-request-headers'))
      corsHeaders = raw[i + 1]
    // Read by the admin API (a Markdown client report) and the client report (a browser's preflight is not the client's).
    else if (length === 6 && accept === undefined && named(name, 'accept')) accept = raw[i + 1]
    else if (length === 29 && corsMethod === undefined && named(name, 'access-control-request-method'))
      corsMethod = raw[i + 1]
  }
  const headers: RequestHeaders = {
    authorization,
    'content-type': contentType,
    'content-length': contentLength,
    'content-encoding': contentEncoding,
  }
  if (prefer !== undefined) headers.prefer = prefer
  if (corsHeaders !== undefined) headers['access-control-request-headers'] = corsHeaders
  if (host !== undefined) headers.host = host
  if (origin !== undefined) headers.origin = origin
  if (accept !== undefined) headers.accept = accept
  if (corsMethod !== undefined) headers['access-control-request-method'] = corsMethod
  return headers
}

/** True when a header name is `lower` in any case; most clients send it in lower case, which needs no copy to compare. */
function named(name: string, lower: string): boolean {
  return name === lower || name.toLowerCase() === lower
}

/** A header seen once more: a second value makes a list. */
function more(seen: string | string[] | undefined, value: string): string | string[] {
  return seen === undefined ? value : typeof seen === 'string' ? [seen, value] : [...seen, value]
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
 * A request whose body is being read. Its listeners are shared functions that find it on the request,
 * not closures made per request: closures cost an allocation each (and, under tsx, a naming call).
 */
class BodyExchange {
  readonly #chunks: Buffer[] = []
  #size = 0
  #settled = false

  constructor(
    readonly app: Handler,
    readonly state: State,
    readonly request: AppRequest,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly wanted: BodyWanted,
    readonly started: number,
  ) {}

  /** Streams the body up to the app's limit; past it, stops buffering and answers 400 at once. */
  read(continued: boolean, declared: number): void {
    if (declared > this.#limit) return this.#done(this.app.tooLarge(), this.req)
    if (continued) this.res.writeContinue()
    const req = this.req as CarryingRequest
    req[EXCHANGE] = this
    req.on('data', onBodyData)
    req.on('end', onBodyEnd)
    // A client that gives up mid-body gets no answer; its socket is already gone. A request emits 'close' then
    // (and 'error' only to a listener of its own, which it does not need).
    req.on('close', onBodyGone)
  }

  data(chunk: Buffer): void {
    if (this.#settled) return
    this.#size += chunk.length
    if (this.#size <= this.#limit) return void this.#chunks.push(chunk)
    this.#settled = true
    this.#chunks.length = 0
    this.#done(this.app.tooLarge(), this.req)
  }

  end(): void {
    if (this.#settled) return
    this.#settled = true
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
      answer = app.failure(error, wanted.operationId)
    }
    if (answer instanceof Promise) {
      answer.then(
        (response) => this.#done(response, undefined, body),
        (error: unknown) => this.#done(app.failure(error, wanted.operationId), undefined, body),
      )
    } else this.#done(answer, undefined, body)
  }

  gone(): void {
    if (this.#settled) return
    this.#settled = true
    this.#done(undefined)
  }

  /** The body limit of this request: the app's, unless what it routed to says otherwise. */
  get #limit(): number {
    return this.wanted.maxBody ?? this.app.maxBody
  }

  #done(response: AppResponse | undefined, unread?: IncomingMessage, body?: Uint8Array | string): void {
    respond(this.state, this.request, this.req, this.res, response, this.started, unread, body)
  }
}

function onBodyData(this: CarryingRequest, chunk: Buffer): void {
  this[EXCHANGE]?.data(chunk)
}

function onBodyEnd(this: CarryingRequest): void {
  this[EXCHANGE]?.end()
}

function onBodyGone(this: CarryingRequest): void {
  this[EXCHANGE]?.gone()
}

function send(res: ServerResponse, response: AppResponse, state: State, unread?: IncomingMessage): void {
  if (res.destroyed || res.headersSent) return
  const headers = state.closing ? response.headers.concat('Connection', 'close') : response.headers
  if (unread) {
    res.writeHead(response.status, headers.includes('Connection') ? headers : headers.concat('Connection', 'close'))
    return linger(unread, res, response.body)
  }
  res.writeHead(response.status, headers)
  res.end(response.body)
}

/**
 * Answers now but closes only once the client stopped sending (or after a bound): closing a socket with
 * unread data makes the kernel send a reset, and many clients then lose the answer they were sent.
 */
function linger(req: IncomingMessage, res: ServerResponse, body: string): void {
  res.write(body)
  let discarded = 0
  const finish = () => {
    clearTimeout(timer)
    if (!res.writableEnded) res.end()
  }
  const timer = setTimeout(finish, LINGER_MS)
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > LINGER_BYTES) finish()
  })
  req.on('end', finish)
  req.on('close', finish)
  req.resume()
}

function finished(state: State): void {
  state.inFlight--
  if (state.closing && state.inFlight === 0) state.drained?.()
}

function onClientError(
  app: Handler,
  log: ((line: string) => void) | undefined,
  error: NodeJS.ErrnoException,
  socket: Socket,
): void {
  const pending = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) return void socket.destroy()
  const response =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? app.protocolError(408, 'request_timeout', 'the request took too long to arrive')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? app.protocolError(431, 'headers_too_large', 'the request headers are too large')
        : app.protocolError(400, 'bad_request', 'the request is not valid HTTP/1.1')
  socket.end(rawResponse(response))
  // A request Node could not parse has no method or target to show; it still gets its one line. A connection
  // that never sent a byte (a browser's preconnect timing out) carried no request, so it gets none.
  if (log && socket.bytesRead > 0) log(`- - ${response.status} ${error.code ?? 'malformed'}`)
}

/** CONNECT (a tunnel request, which Node hands over as a bare socket): answered by the app, then closed. */
function onConnect(
  app: Handler,
  log: ((line: string) => void) | undefined,
  req: IncomingMessage,
  socket: Socket,
): void {
  socket.on('error', () => socket.destroy()) // a client gone before the answer is no error of ours
  const request: AppRequest = {
    method: req.method ?? 'CONNECT',
    url: req.url ?? '',
    headers: pickHeaders(req.rawHeaders),
  }
  let response: AppResponse
  try {
    const routed = app.route(request)
    response = 'kind' in routed ? app.failure(undefined) : routed // no operation takes CONNECT, so no body is ever wanted
  } catch (error) {
    response = app.failure(error)
  }
  socket.end(rawResponse({ ...response, headers: response.headers.concat('Connection', 'close') }))
  if (log) log(logLine(request, response, 0))
}

/** A whole HTTP/1.1 response as text, for sockets that never got as far as a request object. */
function rawResponse(response: AppResponse): string {
  let head = `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Unknown'}\r\n`
  for (let i = 0; i < response.headers.length; i += 2) head += `${response.headers[i]}: ${response.headers[i + 1]}\r\n`
  return head + '\r\n' + response.body
}

/** The request target as a log can show it: control characters escaped, so one request is one line. */
function printable(url: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x1f\x7f]/.test(url) ? JSON.stringify(url) : url
}

async function shutDown(server: Server, state: State, graceMs = 1_000): Promise<void> {
  state.closing = true
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
