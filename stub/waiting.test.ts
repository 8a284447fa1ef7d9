import { describe, expect, it, vi } from 'vitest'
import { EventEmitter } from 'node:events'
import type { Socket } from 'node:net'
import { Waiting } from './waiting.js'

/** A connection as the bound sees it: it can be closed, and says so once. */
function connection(): Socket & { closes: number } {
  const socket = Object.assign(new EventEmitter(), {
    destroyed: false,
    closes: 0,
    destroy() {
      if (socket.destroyed) return socket
      socket.destroyed = true
      socket.closes++
      process.nextTick(() => socket.emit('close'))
      return socket
    },
  })
  return socket as unknown as Socket & { closes: number }
}

describe('the bound on requests waiting on connections', () => {
  it('closes the connections waiting longest, down to three quarters, and lets go of their held answers', () => {
    const lines: string[] = []
    const waiting = new Waiting((line) => lines.push(line), 10)
    const [a, b, c, d] = [connection(), connection(), connection(), connection()]
    const released = [vi.fn(), vi.fn()]
    waiting.add(a, released[0])
    waiting.add(a, released[1])
    waiting.add(a)
    for (const socket of [b, c]) for (let i = 0; i < 3; i++) waiting.add(socket)
    expect(waiting.count).toBe(9)
    expect([a, b, c].map((s) => s.closes)).toEqual([0, 0, 0])
    waiting.add(d)
    waiting.add(d) // 11 > 10: a (3) and b (3) go, the oldest, leaving 5
    expect([a, b, c, d].map((s) => s.closes)).toEqual([1, 1, 0, 0])
    expect(waiting.count).toBe(5)
    // a's two held answers, let go: their timers would have kept them a minute.
    expect(released.map((release) => release.mock.calls.length)).toEqual([1, 1])
    expect(lines).toEqual([
      '- - 2 connections closed: more than 10 requests were waiting (delayed, hanging or pipelined behind one), the longest waiting first',
    ])
  })

  it('closes the newest connection too when it alone waits on more than the bound', () => {
    const waiting = new Waiting(undefined, 4)
    const alone = connection()
    for (let i = 0; i < 5; i++) waiting.add(alone)
    expect(alone.closes).toBe(1)
    expect(waiting.count).toBe(0)
  })

  it('counts a request out once answered, and a closed connection out whole, whatever order they come in', async () => {
    const waiting = new Waiting(undefined, 100)
    const [a, b] = [connection(), connection()]
    const held = vi.fn()
    waiting.add(a, held)
    waiting.add(a)
    waiting.add(b)
    waiting.remove(a, held)
    waiting.remove(a, held) // once only
    expect(waiting.count).toBe(2)
    waiting.remove(a)
    expect(waiting.count).toBe(1)
    b.destroy()
    await new Promise((resolve) => process.nextTick(resolve))
    expect(waiting.count).toBe(0)
    waiting.remove(b) // an answer finishing after its connection closed
    expect(waiting.count).toBe(0)
    expect(held).not.toHaveBeenCalled()
  })

  it('lets go at once of an answer held on a connection already closed, and listens once per connection', () => {
    const waiting = new Waiting(undefined, 100)
    const gone = connection()
    gone.destroy()
    const held = vi.fn()
    waiting.add(gone, held)
    expect(held).toHaveBeenCalledTimes(1)
    expect(waiting.count).toBe(0)
    const kept = connection()
    for (let i = 0; i < 20; i++) {
      waiting.add(kept)
      waiting.remove(kept)
    }
    expect(kept.listenerCount('close')).toBe(1)
  })
})
