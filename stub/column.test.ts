import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Column } from './column.js'

describe('Column', () => {
  it('holds what an array holds, through pushes and truncations across its chunks', () => {
    // Runs of pushes long enough to cross chunks (4,096 values each), and truncations to any length, chunk edges included.
    const step = fc.oneof(
      fc.integer({ min: 1, max: 9_000 }).map((pushed) => ({ pushed })),
      fc.oneof(fc.nat({ max: 20_000 }), fc.constantFrom(0, 4_095, 4_096, 4_097, 8_192)).map((kept) => ({ kept })),
    )
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        const column = new Column<number | bigint>()
        const model: (number | bigint)[] = []
        let pushes = 0 // each value its own, so that one left behind by a truncation cannot pass for a new one
        for (const s of steps) {
          if ('pushed' in s) {
            for (let i = 0; i < s.pushed; i++) {
              const value = ++pushes % 5 === 0 ? BigInt(pushes) : pushes
              const at = column.push(value)
              if (at !== model.length) expect(at).toBe(model.length)
              model.push(value)
            }
          } else {
            column.truncate(s.kept)
            model.length = Math.min(model.length, s.kept)
          }
          expect(column.length).toBe(model.length)
          expect(column.last()).toBe(model.at(-1))
          for (const at of [0, 4_095, 4_096, 4_097, model.length - 1])
            if (at >= 0 && at < model.length) expect(column.at(at)).toBe(model[at])
        }
        for (let at = 0; at < model.length; at++) if (column.at(at) !== model[at]) expect(column.at(at)).toBe(model[at])
      }),
      { numRuns: 40 },
    )
  })

  it('is empty to begin with', () => {
    const column = new Column<number>()
    expect(column.length).toBe(0)
    expect(column.last()).toBeUndefined()
    column.truncate(0)
    expect(column.push(7)).toBe(0)
    expect(column.at(0)).toBe(7)
  })
})
