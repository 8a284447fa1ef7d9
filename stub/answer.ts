/**
 * The answer: writes responses (those of one turn of the event loop together), lingers over bodies left unread, and
 * logs and journals each request once it is answered.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import { isAdmin } from './admin-path.js'
import type { AppRequest, AppResponse } from './app.js'
import type { Journal } from './journal.js'
import { logLine } from './log.js'
import type { HostCheck } from './origin.js'

/** How long, and for how many more bytes, an oversized body is read and discarded after the answer. */
const LINGER_MS = 2_000
const LINGER_BYTES = 64 * 1024 * 1024

/** What the edge keeps for the whole server: where to log, what is in flight, whether it is closing. */
export interface State {
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

/** One request being answered: what the edge learnt of it and where its answer goes. */
export interface Exchange {
  readonly state: State
  readonly request: AppRequest
  readonly req: IncomingMessage
  readonly res: ServerResponse
  /** When the request arrived (`performance.now()`), or 0 when nothing logs or journals it. */
  readonly started: number
}

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

  add(answer: Answer): void {
    if (this.#answers.push(answer) === 1) afterPoll(this.#flush)
  }

  /** Every answer goes out first; logging and journaling them waits until the clients have theirs. */
  readonly #flush = (): void => {
    const answers = this.#answers
    this.#answers = []
    for (const answer of answers) answer.write()
    // One reading of each clock for the whole turn.
    const noted = answers[0]!.noted
    const sent = noted ? performance.now() : 0
    const when = noted ? Date.now() : 0
    for (const answer of answers) answer.done(sent, when)
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
  if (state.log) state.log(logLine(request, response, ms))
  if (state.journal && !isAdmin(request.url)) state.journal.record(request, response, ms, body, when)
}

/** Writes the answer at once; with `unread`, keeps the connection until the client stopped sending the body. */
export function send(res: ServerResponse, response: AppResponse, state: State, unread?: IncomingMessage): void {
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
