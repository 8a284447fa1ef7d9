/** Misbehaviour on demand: answers held back by a delay, and socket faults (hang, reset, empty, malformed chunk, trickle). */
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { TRICKLE_MS, type AppResponse } from './app.js'
import { finished, note, rawResponse, send, type Exchange } from './answer.js'

/**
 * Answers after the response's delay, or misbehaves at the socket as it asks. The request stays in flight
 * until the connection is done with it (a hung one until the client or the shutdown ends it).
 */
export function respondSpecially(
  exchange: Exchange,
  response: AppResponse,
  body: Uint8Array | string | undefined,
): void {
  const { state, res } = exchange
  // An answer held back waits on its connection, counted among the server's waiting requests until settled.
  const connection = exchange.req.socket
  let settled = false
  let acted = false
  let timer: NodeJS.Timeout | undefined
  const settle = () => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    letGo(connection)
    state.waiting.remove(connection, settle)
    // The client left during the delay (or its connection was closed, too many waiting): it got no answer.
    if (!acted) note(exchange, undefined, body)
    finished(state)
  }
  const act = () => {
    if (res.destroyed) return settle()
    acted = true
    note(exchange, response, body)
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
  // A client that closes its sending side while its answer is held back has left: what it gave up on is the delay (the
  // edge answers a half-closed client otherwise, stub/server.ts). Its connection ends, as Node ends any such one; so
  // at once when it closed before (while a create's flush ran).
  holdOn(connection)
  if (connection.readableEnded) return void connection.end() // settled as it closes
  // Let go of when the connection closes: an answer queued behind another on it never hears of that itself. Past the
  // bound on waiting requests, its own connection may be the one closed, at once.
  state.waiting.add(connection, settle)
  if (settled) return
  if (response.delayMs) timer = setTimeout(act, response.delayMs)
  else act()
}

/**
 * How many answers a connection holds back: while any is, the connection ends when its client closes its side. One
 * listener a connection, however many wait (a listener each warned of a leak past ten pipelined delays).
 */
const HELD = Symbol('held')

type HoldingSocket = Socket & { [HELD]?: number }

function holdOn(socket: HoldingSocket): void {
  if (socket[HELD] === undefined) socket.once('end', () => ((socket[HELD] ?? 0) > 0 ? socket.end() : undefined))
  socket[HELD] = (socket[HELD] ?? 0) + 1
}

function letGo(socket: HoldingSocket): void {
  socket[HELD] = (socket[HELD] ?? 1) - 1
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
