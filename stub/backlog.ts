/**
 * Keeps bounded what the stub holds for clients that do not read their answers. Node keeps whatever a connection
 * has not taken yet, as long as the connection stays open: a client that asks and never reads (a test that hangs, a
 * tool that opens connections by the hundred) would otherwise have the stub hold every answer it asked for, a list of
 * a hundred large pets being megabytes. Two bounds:
 *
 * - a connection that takes nothing of its answer for {@link SEND_TIMEOUT_MS} is closed;
 * - when the answers waiting on connections pass {@link MAX_UNSENT_BYTES}, the connections that have taken nothing
 *   for the longest are closed first, until half of that is left (one that took something in the last
 *   {@link SHED_GRACE_MS} is spared); if the bound is still passed, the connection whose answer passed it is closed.
 *
 * The state (stub/admin.ts) is written a piece at a time as the client reads it, so it counts for a piece.
 */
import type { Socket } from 'node:net'

/** The most bytes of answers the stub holds for connections that have not taken them. */
export const MAX_UNSENT_BYTES = 256 * 1024 * 1024
/** How long a connection may take nothing of an answer waiting for it before it is closed. */
export const SEND_TIMEOUT_MS = 30_000
/** A connection that took something this recently is not closed to make room. */
export const SHED_GRACE_MS = 500
/** How often the connections holding answers are looked at. */
const SWEEP_MS = 1_000
/** At most one line a second about closed connections. */
const LOG_MS = 1_000

/** A connection with bytes of an answer not yet taken, and since when it has taken nothing. */
interface Held {
  bytes: number
  since: number
}

export interface BacklogLimits {
  bytes: number
  timeoutMs: number
  graceMs: number
}

/** The connections holding answers their clients have not taken yet. */
export class Backlog {
  readonly #held = new Map<Socket, Held>()
  /** The connections heard of once: each gets one 'close' listener, however often it is held again. */
  readonly #watched = new WeakSet<Socket>()
  /** What {@link #held} holds, as last counted: more than that, at times, never less. */
  #bytes = 0
  #timer: NodeJS.Timeout | undefined
  #logged = -Infinity
  #closed = { stalled: 0, shed: 0 }

  constructor(
    private readonly log: ((line: string) => void) | undefined,
    private readonly limits: BacklogLimits = {
      bytes: MAX_UNSENT_BYTES,
      timeoutMs: SEND_TIMEOUT_MS,
      graceMs: SHED_GRACE_MS,
    },
  ) {}

  /** Tells of an answer written on `socket`: cheap when the client took it all at once, as it almost always does. */
  written(socket: Socket | null): void {
    if (socket === null || socket.destroyed) return
    const bytes = socket.writableLength
    if (bytes === 0) return
    let held = this.#held.get(socket)
    if (held === undefined) {
      held = { bytes: 0, since: performance.now() }
      this.#held.set(socket, held)
      if (!this.#watched.has(socket)) {
        this.#watched.add(socket)
        socket.once('close', () => this.#forget(socket))
      }
      this.#timer ??= setInterval(() => this.#sweep(), SWEEP_MS).unref()
    }
    this.#bytes += bytes - held.bytes
    held.bytes = bytes
    if (this.#bytes > this.limits.bytes) this.#shed(socket)
  }

  /** Stops looking (the server closed). */
  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  #forget(socket: Socket): void {
    const held = this.#held.get(socket)
    if (held === undefined) return
    this.#held.delete(socket)
    this.#bytes -= held.bytes
    if (this.#held.size === 0) this.stop()
  }

  /** Counts again: a connection that took bytes since made progress, one that took nothing for too long is closed. */
  #sweep(now = performance.now()): void {
    for (const [socket, held] of this.#held) {
      const bytes = socket.destroyed ? 0 : socket.writableLength
      if (bytes === 0) {
        this.#forget(socket)
        continue
      }
      if (bytes < held.bytes) held.since = now
      this.#bytes += bytes - held.bytes
      held.bytes = bytes
      if (now - held.since >= this.limits.timeoutMs) this.#close(socket, 'stalled')
    }
    this.#report()
  }

  /**
   * Over the bound: closes the connections that took nothing for the longest, down to half the bound. If those
   * that took something lately still hold more than the bound (a burst of requests nobody reads), `latest`, the one
   * whose answer went over it, is closed too: the bound holds even then.
   */
  #shed(latest: Socket): void {
    const now = performance.now()
    this.#sweep(now)
    if (this.#bytes <= this.limits.bytes) return
    const oldest = [...this.#held].sort(([, a], [, b]) => a.since - b.since)
    for (const [socket, held] of oldest) {
      if (this.#bytes <= this.limits.bytes / 2 || now - held.since < this.limits.graceMs) break
      this.#close(socket, 'shed')
    }
    if (this.#bytes > this.limits.bytes && this.#held.has(latest)) this.#close(latest, 'shed')
    this.#report()
  }

  #close(socket: Socket, why: 'stalled' | 'shed'): void {
    this.#forget(socket)
    socket.destroy()
    this.#closed[why]++
  }

  #report(): void {
    const { stalled, shed } = this.#closed
    if (!this.log || stalled + shed === 0) return
    const now = performance.now()
    if (now - this.#logged < LOG_MS) return
    this.#logged = now
    this.#closed = { stalled: 0, shed: 0 }
    if (stalled > 0)
      this.log(`- - ${stalled} connections closed: they took nothing of their answer for ${this.limits.timeoutMs} ms`)
    if (shed > 0)
      this.log(
        `- - ${shed} connections closed: answers waiting for clients that do not read them passed ${this.limits.bytes} bytes`,
      )
  }
}
