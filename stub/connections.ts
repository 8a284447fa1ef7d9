/**
 * Keeps a server's connections bounded: a connection that sends nothing is closed after the headers timeout (Node
 * starts that timeout only at the first byte), and when open connections near the process's file-descriptor limit
 * the oldest idle ones are closed first, then the oldest requests still arriving, then the oldest whose answers are
 * held back on purpose (a delay, a hang, a trickle), so that a client with a request to make can still connect. (Past
 * the limit, libuv accepts and drops every new connection without telling Node, so room must be made before.)
 */
import { readFileSync } from 'node:fs'
import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** At most one line a second about shed connections: a flood must not flood the log too. */
const SHED_LOG_MS = 1_000

/** The soft limit on open files (`ulimit -n`), where the platform tells it (Linux); `undefined` elsewhere. */
export function descriptorLimit(limits = '/proc/self/limits'): number | undefined {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(limits, 'utf8'))?.[1]
    return line === undefined || line === 'unlimited' ? undefined : Number(line)
  } catch {
    return undefined
  }
}

/**
 * How many connections may be open before idle ones are shed, and down to how many: room is kept for the files
 * the stub opens (the data file, its log) and what the process holds besides.
 */
export function sheddingBounds(limit: number | undefined): { high: number; low: number } | undefined {
  if (limit === undefined) return undefined
  const high = limit - Math.max(48, Math.ceil(limit / 16))
  return high < 16 ? undefined : { high, low: high - Math.max(8, Math.ceil(limit / 16)) }
}

type HttpSocket = Socket & { _httpMessage?: ServerResponse | null }

/** No request on it: between two requests, or none yet. */
function isIdle(socket: HttpSocket): boolean {
  return !socket._httpMessage
}

/** A request on it whose answer has not begun and whose body has not all arrived. */
function isArriving(socket: HttpSocket): boolean {
  const response = socket._httpMessage
  return !!response && !response.headersSent && response.req?.complete === false
}

/**
 * Bounds `server`'s connections; `log` hears of connections shed for want of descriptors. `isHeld` tells the connections
 * whose requests wait for an answer held back on purpose (stub/waiting.ts), which are shed last. Returns the open
 * connections, oldest first.
 */
export function boundConnections(
  server: Server,
  headersTimeout: number,
  log: ((line: string) => void) | undefined,
  isHeld: (socket: Socket) => boolean = () => false,
  bounds = sheddingBounds(descriptorLimit()),
): ReadonlySet<Socket> {
  /** Open connections, oldest first. */
  const open = new Set<HttpSocket>()
  let logged = -Infinity
  server.on('connection', (socket: HttpSocket) => {
    open.add(socket)
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy() // never sent a byte: a preconnect forgotten, or a descriptor hog
    }, headersTimeout)
    timer.unref()
    socket.once('close', () => {
      clearTimeout(timer)
      open.delete(socket)
    })
    if (bounds === undefined || open.size < bounds.high) return
    // Near the limit: the oldest idle connections go first, then, if that is not room enough, the oldest requests still
    // arriving (a stalled or crawling body holds a descriptor as an idle connection does), then the oldest whose answers
    // are held back (a hang is never answered; a minute's delay holds its descriptor for the minute). The newest one is
    // kept, and so is every request read whole whose answer is under way (a create waiting for its flush to the disk).
    const before = open.size
    for (const pass of [isIdle, isArriving, isHeld]) {
      for (const old of open) {
        if (open.size <= bounds.low) break
        if (old === socket || !pass(old)) continue
        open.delete(old)
        old.destroy()
      }
    }
    const shed = before - open.size
    const now = performance.now()
    if (log && shed > 0 && now - logged >= SHED_LOG_MS) {
      logged = now
      log(
        `- - ${shed} connections closed (idle, still sending a request, or waiting for an answer held back): ${before} were open, near the file-descriptor limit`,
      )
    }
  })
  return open
}
