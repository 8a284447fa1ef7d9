/**
 * Keeps a server's connections bounded: a connection that sends nothing is closed after the headers timeout (Node
 * starts that timeout only at the first byte), and when open connections near the process's file-descriptor limit
 * the oldest idle ones are closed first, so that a client with a request to make can still connect. (Past the limit,
 * libuv accepts and drops every new connection without telling Node, so room must be made before.)
 */
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
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

type HttpSocket = Socket & { _httpMessage?: unknown }

/** Bounds `server`'s connections; `log` hears of connections shed for want of descriptors. */
export function boundConnections(
  server: Server,
  headersTimeout: number,
  log: ((line: string) => void) | undefined,
  bounds = sheddingBounds(descriptorLimit()),
): void {
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
    // Near the limit: the oldest connections with no answer under way go first; the newest one is kept.
    let shed = 0
    for (const old of open) {
      if (open.size - shed <= bounds.low) break
      if (old === socket || old._httpMessage) continue
      old.destroy()
      shed++
    }
    const now = performance.now()
    if (log && shed > 0 && now - logged >= SHED_LOG_MS) {
      logged = now
      log(`- - ${shed} idle connections closed: ${open.size} were open, near the file-descriptor limit`)
    }
  })
}
