/**
 * Keeps bounded the requests that wait on their connections: answers held back (a delay asked for with `Prefer`, a
 * hang, a trickle, `--latency`) and requests pipelined behind an answer not yet sent. Each costs a few KiB until it is
 * answered, for as long as a minute; a client that opens thousands of connections and piles such requests on each took
 * the stub to gigabytes (10,000 connections of 120 requests asking for `Prefer: delay=60000`: 2.4 GB, and with the
 * descriptors of a container's limit, past the heap). Past {@link MAX_WAITING}, the connections whose requests have
 * waited longest are closed first, down to three quarters of it: the client that just came is served.
 */
import type { Socket } from 'node:net'

/** The most requests that may wait on connections at once, about 4 KiB each. */
export const MAX_WAITING = 16_384
/** At most one line a second about closed connections. */
const LOG_MS = 1_000

/** A connection's waiting requests: how many, and how to let go of those held back when the connection goes. */
interface Entry {
  count: number
  releases: Set<() => void> | undefined
}

export class Waiting {
  /** Connections with requests waiting: in the order they began waiting, oldest first. */
  readonly #bySocket = new Map<Socket, Entry>()
  /** The connections heard of once: each gets one 'close' listener, however often it waits again. */
  readonly #watched = new WeakSet<Socket>()
  #count = 0
  #closed = 0
  #logged = -Infinity

  constructor(
    private readonly log: ((line: string) => void) | undefined,
    private readonly most = MAX_WAITING,
  ) {}

  /** How many requests wait. */
  get count(): number {
    return this.#count
  }

  /** Whether requests wait on `socket`. */
  readonly holds = (socket: Socket): boolean => this.#bySocket.has(socket)

  /**
   * A request on `socket` begins to wait; past the bound, the connections waiting longest are closed. `release`, for an
   * answer held back (its timer keeps it in memory), is called if the connection closes first.
   */
  add(socket: Socket, release?: () => void): void {
    if (socket.destroyed) return release?.() // its close has been heard already: nothing will let it go later
    let entry = this.#bySocket.get(socket)
    if (entry === undefined) {
      this.#bySocket.set(socket, (entry = { count: 0, releases: undefined }))
      if (!this.#watched.has(socket)) {
        this.#watched.add(socket)
        socket.once('close', () => this.#forget(socket))
      }
    }
    entry.count++
    if (release) (entry.releases ??= new Set()).add(release)
    if (++this.#count > this.most) this.#shed(socket)
  }

  /** A request on `socket` no longer waits (answered, or given up); `release` as given to {@link add}. */
  remove(socket: Socket, release?: () => void): void {
    const entry = this.#bySocket.get(socket)
    if (entry === undefined || (release && !entry.releases?.delete(release))) return
    this.#count--
    if (--entry.count === 0) this.#bySocket.delete(socket)
  }

  /** The connection is gone: its requests wait no more, and those held back are let go. */
  #forget(socket: Socket): void {
    const entry = this.#bySocket.get(socket)
    if (entry === undefined) return
    this.#bySocket.delete(socket)
    this.#count -= entry.count
    if (entry.releases) for (const release of entry.releases) release()
  }

  /** Closes the connections waiting longest, `newest` last, until three quarters of the bound are left. */
  #shed(newest: Socket): void {
    const keep = Math.floor((this.most * 3) / 4)
    for (const socket of this.#bySocket.keys()) {
      if (this.#count <= keep) break
      if (socket !== newest) this.#close(socket)
    }
    if (this.#count > this.most) this.#close(newest) // one connection alone waits on more than the bound
    const now = performance.now()
    if (this.log && this.#closed > 0 && now - this.#logged >= LOG_MS) {
      this.#logged = now
      this.log(
        `- - ${this.#closed} connections closed: more than ${this.most} requests were waiting (delayed, hanging or pipelined behind one), the longest waiting first`,
      )
      this.#closed = 0
    }
  }

  #close(socket: Socket): void {
    this.#forget(socket)
    socket.destroy()
    this.#closed++
  }
}
