import { EventEmitter } from 'node:events'
import type { Socket } from 'node:net'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Backlog } from './backlog.js'

/** A connection as the backlog sees it: the bytes its client has not taken yet, and whether it is closed. */
class FakeSocket extends EventEmitter {
  writableLength = 0
  destroyed = false
  constructor(readonly name: string) {
    super()
  }
  destroy(): void {
    if (this.destroyed) return
    this.destroyed = true
    this.emit('close')
  }
}

const LIMITS = { bytes: 1_000, timeoutMs: 10_000, graceMs: 500 }

describe('the backlog of answers not taken', () => {
  let lines: string[]
  let backlog: Backlog
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] })
    lines = []
    backlog = new Backlog((line) => lines.push(line), LIMITS)
  })
  afterEach(() => {
    backlog.stop()
    vi.useRealTimers()
  })
  const holding = (name: string, bytes: number) => {
    const socket = new FakeSocket(name)
    socket.writableLength = bytes
    backlog.written(socket as unknown as Socket)
    return socket
  }

  it('closes a connection that takes nothing of its answer for the timeout, and keeps one that reads slowly', () => {
    const stalled = holding('stalled', 100)
    const slow = holding('slow', 400)
    const done = holding('done', 50)
    done.writableLength = 0 // took it all
    for (let s = 1; s <= 9; s++) {
      vi.advanceTimersByTime(1_000)
      slow.writableLength -= 40 // a piece every second
    }
    expect(stalled.destroyed).toBe(false)
    vi.advanceTimersByTime(1_000)
    expect(stalled.destroyed).toBe(true)
    expect(slow.destroyed).toBe(false)
    expect(done.destroyed).toBe(false)
    expect(lines).toEqual(['- - 1 connections closed: they took nothing of their answer for 10000 ms'])
  })

  it('past the bound, closes the connections that took nothing for the longest, down to half, never a fresh one', () => {
    const oldest = holding('oldest', 300)
    vi.advanceTimersByTime(600)
    const older = holding('older', 300)
    vi.advanceTimersByTime(600)
    const reading = holding('reading', 300)
    vi.advanceTimersByTime(600)
    reading.writableLength = 200 // took some at the last look (a sweep each second)
    vi.advanceTimersByTime(400)
    expect([oldest, older, reading].some((s) => s.destroyed)).toBe(false) // 900 bytes: under the bound
    const fresh = holding('fresh', 300) // 1,100: over
    expect(oldest.destroyed).toBe(true)
    expect(older.destroyed).toBe(true) // 500 left: half the bound
    expect(reading.destroyed).toBe(false)
    expect(fresh.destroyed).toBe(false)
    expect(lines).toEqual([
      '- - 2 connections closed: answers waiting for clients that do not read them passed 1000 bytes',
    ])
  })

  it('in a burst nobody reads, closes the connection whose answer passes the bound: it holds even then', () => {
    const sockets = Array.from({ length: 10 }, (_, i) => holding(String(i), 300))
    expect(sockets.map((s) => s.destroyed)).toEqual([false, false, false, ...Array<boolean>(7).fill(true)])
    vi.advanceTimersByTime(1_000) // the log says it once a second at most
    expect(lines).toEqual([
      '- - 1 connections closed: answers waiting for clients that do not read them passed 1000 bytes',
      '- - 6 connections closed: answers waiting for clients that do not read them passed 1000 bytes',
    ])
  })

  it('forgets a connection closed by its client, and stops looking once none holds an answer', () => {
    const gone = holding('gone', 900)
    const drained = holding('drained', 50)
    expect(vi.getTimerCount()).toBe(1)
    gone.destroy()
    drained.writableLength = 0
    vi.advanceTimersByTime(1_000)
    expect(vi.getTimerCount()).toBe(0)
    expect(lines).toEqual([])
  })

  it('listens once to a keep-alive connection held again and again', () => {
    const socket = holding('kept', 100)
    for (let i = 0; i < 20; i++) {
      socket.writableLength = 0 // taken
      vi.advanceTimersByTime(1_000)
      socket.writableLength = 100 // the next answer, not yet taken
      backlog.written(socket as unknown as Socket)
    }
    expect(socket.listenerCount('close')).toBe(1)
    socket.destroy()
    vi.advanceTimersByTime(1_000)
    expect(vi.getTimerCount()).toBe(0)
  })
})
