/**
 * The answer: writes responses (those of one turn of the event loop together), lingers over bodies left unread, and
 * logs and journals each request once it is answered.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { isAdmin } from './admin-path.js'
import type { AppRequest, AppResponse } from './app.js'
import type { Backlog } from './backlog.js'
import type { Waiting } from './waiting.js'
import type { Journal } from './journal.js'
import { logLine } from './log.js'
import type { HostCheck } from './origin.js'

/** How long, and for how many more bytes, an oversized body is read and discarded after the answer. */
const LINGER_MS = 2_000
const LINGER_BYTES = 64 * 1024 * 1024

/** The bytes request bodies hold while they are read, the one body read whatever they hold, and those that wait. */
export interface BodyRoom {
  bytes: number
  /** The most bytes bodies may hold before all but the lead wait. */
  most: number
  /** How far past `most` they may go (what was read before waiting, bodies too small to wait) before some are given up. */
  slack: number
  /** Read on when the others wait, so that one always ends and makes room. */
  lead: object | undefined
  /** Bodies whose connections are not read until there is room again. */
  waiting: Set<{ resume(): void }>
  /** Connections closed for want of room since the last log line about it, and when that line was. */
  shed: number
  shedLogged: number
}

/** What the edge keeps for the whole server: where to log, what is in flight, whether it is closing. */
export interface State {
  log: ((line: string) => void) | undefined
  /** Texts the log never shows (see stub/log.ts's withoutSecrets). */
  secrets: readonly string[]
  journal: Journal | undefined
  hosts: HostCheck
  /** Answers waiting for the end of this turn of the event loop. */
  outbox: Outbox
  /** Answers written but not yet taken by their clients. */
  backlog: Backlog
  /** Requests waiting on their connections: answers held back, and requests pipelined behind an unsent answer. */
  waiting: Waiting
  /** Request bodies being read: the bytes they hold, and those waiting for room (see stub/server.ts's BodyExchange). */
  bodies: BodyRoom
  /** The open connections, oldest first (stub/connections.ts). */
  connections: ReadonlySet<Socket>
  inFlight: number
  closing: boolean
  closed?: Promise<void>
  drained?: () => void
}

/** One request being answered: what the edge learnt of it and where its answer goes. */
export interface Exchange {
  readonly state: State
  readonly request: AppRequest
  readonly req: IncomingMessage
  readonly res: ServerResponse
  /** When the request arrived (`performance.now()`), or 0 when nothing logs or journals it. */
  readonly started: number
}

/** About how many bytes of a streamed answer go out in one turn of the event loop (see {@link pipe}). */
const PIPE_TURN_BYTES = 256 * 1024

/** About how many bytes of answers are written in one turn of the event loop (see {@link Outbox}). */
const FLUSH_BYTES = 16 * 1024 * 1024

/** The real `setImmediate`, kept from load time: a test's fake clock must not hold back the answers of a real server. */
const afterPoll = setImmediate

/**
 * The answers ready in one turn of the event loop, written together at its end (`setImmediate` runs once the loop has
 * read every connection that had data). Under load one turn reads many requests; writing their answers in one burst
 * wakes a waiting client once for the lot instead of once per answer, and on a loaded machine that wake-up costs more
 * than making the answer. An answer alone in its turn waits only for the end of that turn, not for a timer.
 */
export class Outbox {
  #answers: Answer[] = []
  /** Where the answers not written yet begin in {@link #answers}: a burst of large answers takes several turns. */
  #first = 0

  add(answer: Answer): void {
    if (this.#answers.push(answer) === this.#first + 1) afterPoll(this.#flush)
  }

  /**
   * Every answer goes out first; logging and journaling them waits until the clients have theirs. At most about
   * {@link FLUSH_BYTES} go out in one go, the rest at the next turn: Node keeps each answer written until the turn's
   * end, so a burst of large answers (a hundred lists of large pets) would otherwise all be held at once.
   */
  readonly #flush = (): void => {
    const answers = this.#answers
    const first = this.#first
    let end = first
    for (let bytes = 0; end < answers.length && bytes < FLUSH_BYTES; end++) {
      const answer = answers[end]!
      answer.write()
      bytes += answer.response.body.length
    }
    if (end === answers.length) {
      this.#answers = []
      this.#first = 0
    } else {
      // The rest at the next turn, from where this one stopped: cutting the list at each turn cost time in proportion to
      // its length, which two thousand clients that pipelined large reads made tens of seconds.
      this.#first = end
      if (end > 1024 && end * 2 > answers.length) {
        this.#answers = answers.slice(end)
        this.#first = 0
      }
      afterPoll(this.#flush)
    }
    // One reading of each clock for the whole turn.
    const noted = answers[first]!.noted
    const sent = noted ? performance.now() : 0
    const when = noted ? Date.now() : 0
    for (let i = first; i < end; i++) answers[i]!.done(sent, when)
  }
}

/** An answer in the {@link Outbox}; the request stays in flight until it is written. */
export class Answer {
  constructor(
    readonly exchange: Exchange,
    readonly response: AppResponse,
    readonly body: Uint8Array | string | undefined,
  ) {}

  write(): void {
    try {
      send(this.exchange.res, this.response, this.exchange.state)
    } catch {
      this.exchange.res.destroy() // an answer Node refuses to write costs its own connection, never the others of the turn
    }
  }

  /** Whether the request is logged or journaled, so that its time is taken. */
  get noted(): boolean {
    const { state } = this.exchange
    return state.log !== undefined || state.journal !== undefined
  }

  /** Logs and journals the written answer (`sent` is when, `when` the same as a time of day), and counts its request out. */
  done(sent: number, when: number): void {
    const { state } = this.exchange
    if (state.log || state.journal) note(this.exchange, this.response, this.body, sent, when)
    finished(state)
  }
}

/** Logs the request and records it in the journal (the admin API's own requests stay out of it). */
export function note(
  { state, request, started }: Exchange,
  response: AppResponse | undefined,
  body: Uint8Array | string | undefined,
  ended = performance.now(),
  when?: number,
): void {
  const ms = ended - started
  if (state.log) state.log(logLine(request, response, ms, state.secrets))
  if (state.journal && !isAdmin(request.url)) state.journal.record(request, response, ms, body, when)
}

/** Writes the answer at once; with `unread`, keeps the connection until the client stopped sending the body. */
export function send(res: ServerResponse, response: AppResponse, state: State, unread?: IncomingMessage): void {
  if (res.destroyed || res.headersSent) return
  const headers = state.closing ? response.headers.concat('Connection', 'close') : response.headers
  if (unread) {
    res.writeHead(response.status, headers.includes('Connection') ? headers : headers.concat('Connection', 'close'))
    return linger(unread, res, response, state)
  }
  res.writeHead(response.status, headers)
  if (response.pieces) pipe(res, response.pieces, state.backlog, () => res.end())
  else {
    res.end(response.body.length < LARGE_BODY ? response.body : bytesOf(response.body))
    state.backlog.written(res.socket)
  }
}

/** A body this long (in UTF-16 units) is written as bytes made once ({@link bytesOf}). */
const LARGE_BODY = 64 * 1024

/** The large bodies written lately, as UTF-8 bytes: a page of large pets is the same answer to many clients. */
const recentBodies: { body: string; bytes: Buffer }[] = []

/**
 * `body` as UTF-8 bytes, made once for the same body written again: Node encodes a string anew for each connection it
 * is written to, and keeps what the client has not taken as a copy of its own, where bytes are shared. Two thousand
 * clients that asked for a 6 MB page and did not read it took the event loop 25 s of encoding, and its memory a copy
 * each. A body kept by the list's cache is the same string each time, so the comparison is of two references.
 */
function bytesOf(body: string): Buffer {
  for (const recent of recentBodies) if (recent.body === body) return recent.bytes
  const bytes = Buffer.from(body, 'utf8')
  if (recentBodies.unshift({ body, bytes }) > 2) recentBodies.pop()
  return bytes
}

/**
 * Writes `pieces` as the client takes them, the next one only once the connection's buffer has room, then calls
 * `done`: an answer that is never read holds a piece or two, not its whole body. A connection that closes first stops it.
 */
function pipe(res: ServerResponse, pieces: Iterator<string | Uint8Array>, backlog: Backlog, done: () => void): void {
  // A client that takes all at once gets a turn's worth, then the others theirs: a write the kernel takes whole says
  // 'drain' before the turn ends, so without this the whole answer went in one turn, and twenty clients reading the state
  // with int64 as strings (each piece rewritten) were served one after the other, the last after 22 s.
  let sinceTurn = 0
  const next = (): void => {
    for (;;) {
      if (res.destroyed) return
      if (sinceTurn >= PIPE_TURN_BYTES) {
        sinceTurn = 0
        return void afterPoll(next)
      }
      let piece: IteratorResult<string | Uint8Array>
      try {
        piece = pieces.next()
      } catch {
        return void res.destroy() // the headers are gone: a cut connection is all that can tell the client
      }
      if (piece.done) return done()
      sinceTurn += piece.value.length
      if (piece.value.length > 0 && !res.write(piece.value)) {
        backlog.written(res.socket)
        return void res.once('drain', next)
      }
    }
  }
  next()
}

/**
 * Answers now but closes only once the client stopped sending (or after a bound): closing a socket with
 * unread data makes the kernel send a reset, and many clients then lose the answer they were sent.
 */
function linger(req: IncomingMessage, res: ServerResponse, response: AppResponse, state: State): void {
  let written = false
  let stopped = false
  const end = () => {
    if (written && stopped && !res.writableEnded) res.end()
  }
  if (response.pieces)
    pipe(res, response.pieces, state.backlog, () => {
      written = true
      end()
    })
  else {
    res.write(response.body)
    state.backlog.written(res.socket)
    written = true
  }
  let discarded = 0
  const stop = () => {
    clearTimeout(timer)
    stopped = true
    end()
  }
  const timer = setTimeout(stop, LINGER_MS)
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > LINGER_BYTES) stop()
  })
  req.on('end', stop)
  req.on('close', stop)
  req.resume()
}

/** Counts a request out of flight, and lets a shutdown waiting for the last one go on. */
export function finished(state: State): void {
  state.inFlight--
  if (state.closing && state.inFlight === 0) state.drained?.()
}

/** A whole HTTP/1.1 response as text, for sockets that never got as far as a request object. */
export function rawResponse(response: AppResponse): string {
  let head = `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Unknown'}\r\n`
  for (let i = 0; i < response.headers.length; i += 2) head += `${response.headers[i]}: ${response.headers[i + 1]}\r\n`
  return head + '\r\n' + response.body
}
