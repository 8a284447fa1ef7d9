import { describe, expect, it } from 'vitest'
import { pool } from './pool.js'

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('pool', () => {
  it('keeps at most `size` in flight and returns results in input order', async () => {
    let inFlight = 0
    let most = 0
    const results = await pool([30, 5, 20, 1, 10], 2, async (ms, index) => {
      most = Math.max(most, ++inFlight)
      await tick(ms)
      inFlight--
      return `${index}:${ms}`
    })
    expect(most).toBe(2)
    expect(results).toEqual(['0:30', '1:5', '2:20', '3:1', '4:10'])
  })

  it('starts nothing after a failure, lets the ones in flight finish, then rejects with the first error', async () => {
    const started: number[] = []
    const finished: number[] = []
    const run = pool([1, 2, 3, 4], 2, async (n) => {
      started.push(n)
      await tick(n === 1 ? 1 : 20)
      if (n === 1) throw new Error('one broke')
      finished.push(n)
    })
    await expect(run).rejects.toThrow('one broke')
    expect(started).toEqual([1, 2])
    expect(finished).toEqual([2])
  })

  it('resolves at once for no items and refuses a size below 1', async () => {
    expect(await pool([], 2, async () => 1)).toEqual([])
    await expect(pool([1], 0, async () => 1)).rejects.toThrow(RangeError)
  })
})
