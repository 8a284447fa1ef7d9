/**
 * What the node edge answers before (or instead of) the app's routing: a request Node could not parse, one too slow or
 * too large to arrive (400, 408, 431), and `CONNECT`, which Node hands over as a bare socket. Each is answered after the
 * requests its connection sent whole before it, in order, then the connection is closed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { rawResponse, type State } from './answer.js'
import type { AppRequest, AppResponse, Handler } from './app.js'
import { pickHeaders } from './headers.js'
import { logLine } from './log.js'
import { misdirected } from './origin.js'

/** Marks a connection whose bad request is answered already, or will be once the answers before it are sent. */
const REFUSED = Symbol('refused')

type AnsweringSocket = Socket & { _httpMessage?: ServerResponse | null; [REFUSED]?: true }

/** A request Node could not take (see the module's summary): answered once, after those before it, then closed. */
export function onClientError(
  app: Handler,
  log: ((line: string) => void) | undefined,
  error: NodeJS.ErrnoException,
  socket: AnsweringSocket,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy()
  // Node reports the same bad request again for each later read of the connection: it is answered once.
  if (socket[REFUSED]) return
  socket[REFUSED] = true
  socket.pause() // nothing after a bad request is read
  // Requests the connection sent whole before the bad one are answered first, in order (RFC 9112 §9.3.2): written now,
  // the error would arrive as the answer to the first of them, a create told 400 while its pet was stored.
  afterAnswered(socket, () => refuse(app, log, error, socket))
}

/** Calls `then` once the connection has sent the answers of every request it received whole; at once if it has. */
function afterAnswered(socket: AnsweringSocket, then: () => void): void {
  // The answer being sent, then (as each one finishes) the next pipelined one; the request that was not received whole
  // gets no answer but the error.
  const pending = socket._httpMessage
  if (!pending || pending.writableFinished || !pending.req.complete) return then()
  const next = () => {
    pending.off('finish', next)
    socket.off('close', next)
    if (!socket.destroyed) afterAnswered(socket, then)
  }
  pending.once('finish', next)
  socket.once('close', next)
}

function refuse(
  app: Handler,
  log: ((line: string) => void) | undefined,
  error: NodeJS.ErrnoException,
  socket: AnsweringSocket,
): void {
  const pending = socket._httpMessage
  if (!socket.writable || pending?.headersSent) return void socket.destroy()
  const response =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? app.protocolError(408, 'request_timeout', 'the request took too long to arrive')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? app.protocolError(431, 'headers_too_large', 'the request headers are too large')
        : app.protocolError(400, 'bad_request', 'the request is not valid HTTP/1.1')
  socket.end(rawResponse(response))
  // Read on (what comes is refused, see above) so that the client's close is seen and the socket let go: left paused,
  // a connection answered 408 kept its descriptor after its client had gone.
  socket.resume()
  // A request Node could not parse has no method or target to show; it still gets its one line. A connection
  // that never sent a byte (a browser's preconnect timing out) carried no request, so it gets none.
  if (log && socket.bytesRead > 0) log(`- - ${response.status} ${error.code ?? 'malformed'}`)
}

/** CONNECT (a tunnel request, which Node hands over as a bare socket): answered by the app, then closed. */
export function onConnect(app: Handler, state: State, req: IncomingMessage, socket: Socket): void {
  socket.on('error', () => socket.destroy()) // a client gone before the answer is no error of ours
  const request: AppRequest = {
    method: req.method ?? 'CONNECT',
    url: req.url ?? '',
    headers: pickHeaders(req.rawHeaders),
  }
  let response: AppResponse
  try {
    // The same Host check as any request's (a CONNECT's target is an authority, never the host the request is for).
    const host = request.headers.host
    const routed = state.hosts.allows(host) ? app.route(request) : misdirected(host)
    response = 'kind' in routed ? app.failure(undefined) : routed // no operation takes CONNECT, so no body is ever wanted
  } catch (error) {
    response = app.failure(error)
  }
  const text = rawResponse({ ...response, headers: response.headers.concat('Connection', 'close') })
  // After the answers to the requests the connection sent before it, as for a bad request (see onClientError).
  afterAnswered(socket, () => (socket.writable ? socket.end(text) : socket.destroy()))
  if (state.log) state.log(logLine(request, response, 0, state.secrets))
}

/** A `Host` as RFC 9112 §3.2 has it: a host (RFC 3986 §3.2.2: a bracketed IP literal, or a name) and maybe a port. */
const HOST_SYNTAX = /^(?:\[[0-9a-f:.]+\]|[a-z0-9\-._~%!$&'()*+,;=]*)(?::[0-9]*)?$/i

/** The last `Host` found well formed: a client sends the same on every request, so the check is one comparison. */
let wellFormed = ''

/**
 * The most header lines a request may have, less one (Apache's default is 100; browsers send about twenty). Each costs
 * the parse and, while its request waits, memory: 16 KiB of `a:b` lines are over 3,000, and hundreds of thousands of
 * them held by waiting requests took gigabytes and the whole CPU.
 */
export const MAX_HEADER_LINES = 200

/**
 * The 400 of a request Node parsed but HTTP/1.1 does not take, or undefined: a version but 1.1 and 1.0 (`HTTP/2.0` in
 * a text request line); no `Host` in an HTTP/1.1 request, two, or one that is no host and port (RFC 9112 §3.2: "MUST
 * respond with a 400"); a transfer coding but chunked, which the stub cannot read (§6.1 suggests 501, but the stub
 * answers no client's mistake with a 5xx), or any in an HTTP/1.0 request, whose framing is then faulty (§6.1).
 */
export function misframed(
  app: Handler,
  version: string,
  headers: AppRequest['headers'],
  rawLength = 0,
): AppResponse | undefined {
  // Node reads no more lines than the server's limit: a request that reaches it may hold more, unseen (431, RFC 6585 §5).
  if (rawLength >= 2 * MAX_HEADER_LINES)
    return app.protocolError(431, 'headers_too_large', `the request has ${MAX_HEADER_LINES} header lines or more`)
  const host = headers.host
  const coding = headers['transfer-encoding']
  // The common request, in a few comparisons.
  if (version === '1.1' && coding === undefined && typeof host === 'string') {
    if (host === wellFormed) return undefined
    if (HOST_SYNTAX.test(host)) {
      wellFormed = host
      return undefined
    }
  }
  const reason = misframing(version, host, coding)
  return reason === undefined ? undefined : app.protocolError(400, 'bad_request', reason)
}

function misframing(
  version: string,
  host: string | string[] | undefined,
  coding: string | string[] | undefined,
): string | undefined {
  if (version !== '1.1' && version !== '1.0') return `HTTP/${version.slice(0, 8)} is not HTTP/1.1`
  if (Array.isArray(host)) return 'the request names its Host more than once (RFC 9112 §3.2)'
  if (host === undefined && version === '1.1') return 'an HTTP/1.1 request names its Host (RFC 9112 §3.2)'
  if (host !== undefined && !HOST_SYNTAX.test(host)) return 'the Host is no host name and port (RFC 9112 §3.2)'
  if (coding === undefined) return undefined
  if (version === '1.0') return 'an HTTP/1.0 request has no Transfer-Encoding (RFC 9112 §6.1)'
  const chunked = typeof coding === 'string' && coding.trim().toLowerCase() === 'chunked'
  return chunked ? undefined : 'the stub reads no transfer coding but chunked (RFC 9112 §6.1)'
}
