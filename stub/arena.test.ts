import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TextArena, type ArenaView } from './arena.js'

const read = (view: ArenaView) => [...view.pieces()].map((piece) => piece.toString('utf8')).join(',')

describe('TextArena', () => {
  it('gives back every text at its position, across chunks and position growth', () => {
    const arena = new TextArena()
    const texts = Array.from({ length: 20_000 }, (_, i) => `{"id":${i},"name":"${'pet é 🐕 '.repeat(i % 7)}"}`)
    for (const [i, text] of texts.entries()) expect(arena.push(text)).toBe(i)
    expect(arena.length).toBe(texts.length)
    for (const i of [0, 1, 1023, 1024, 4095, 12_345, 19_999]) expect(arena.at(i)).toBe(texts[i])
    expect(arena.joined()).toBe(texts.join(','))
  })

  it('takes texts back across the blocks of places it keeps (4,096 texts each), and pushes on from there', () => {
    const arena = new TextArena()
    const texts: string[] = []
    const push = (count: number) => {
      for (let i = 0; i < count; i++) {
        const text = `{"n":${texts.length},"push":${count}}` // each text its own, so a stale place cannot read as a new one
        expect(arena.push(text)).toBe(texts.length)
        texts.push(text)
      }
    }
    push(10_000)
    for (const kept of [8_193, 4_096, 4_095]) {
      arena.truncate(kept)
      texts.length = kept
      push(kept % 2 === 0 ? 3 : 4_200)
      expect(arena.length).toBe(texts.length)
      for (const at of [0, 4_094, 4_095, 4_096, 4_097, 8_191, 8_192, 8_193, texts.length - 1])
        if (at < texts.length) expect(arena.at(at)).toBe(texts[at])
      expect(arena.joined()).toBe(texts.join(','))
    }
  })

  it('keeps a text longer than a chunk whole, in a chunk of its own, and empty texts too', () => {
    const arena = new TextArena()
    const long = 'x'.repeat(300 * 1024) + 'ñ'.repeat(1000)
    const texts = ['a', long, '', 'b', long + 'c', 'd']
    for (const text of texts) arena.push(text)
    expect(texts.map((_, i) => arena.at(i))).toEqual(texts)
    expect(arena.joined()).toBe(texts.join(','))
  })

  it('reads a text again from its decoded copy, and never another text from it', () => {
    const arena = new TextArena()
    for (let i = 0; i < 300; i++) arena.push(`pet ${i}`)
    const first = arena.at(5)
    expect(arena.at(5)).toBe(first)
    // 69 shares its slot with 5: each read gives its own text, whichever came last.
    for (const i of [69, 5, 69, 133, 5]) expect(arena.at(i)).toBe(`pet ${i}`)
  })

  it('joins nothing when empty', () => {
    expect(new TextArena().joined()).toBe('')
  })

  it('keeps a view as it was taken, whatever is pushed or truncated after, across chunks', () => {
    // Texts of up to 100 KiB, so that a few fill a chunk and truncations cut into chunks, not only whole ones.
    const text = fc
      .tuple(
        fc.constantFrom('a', 'é', '🐕', 'x'),
        fc.oneof(fc.nat({ max: 20 }), fc.integer({ min: 0, max: 100 * 1024 })),
      )
      .map(([unit, n]) => unit.repeat(n))
    const step = fc.oneof(
      text.map((pushed) => ({ pushed })),
      fc.integer({ min: 1, max: 3 }).map((dropped) => ({ dropped })), // the last few texts taken back
      fc.constant({ view: true }),
      fc.nat().map((first) => ({ first })), // a view of the first few texts only
    )
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60, size: 'medium' }), (steps) => {
        const arena = new TextArena()
        const texts: string[] = []
        const views: [ArenaView, string][] = []
        for (const s of steps) {
          if ('pushed' in s) {
            texts.push(s.pushed)
            arena.push(s.pushed)
          } else if ('dropped' in s) arena.truncate((texts.length = Math.max(0, arena.length - s.dropped)))
          else if ('first' in s) {
            const count = s.first % (texts.length + 1)
            views.push([arena.view(count), texts.slice(0, count).join(',')])
          } else views.push([arena.view(), arena.joined()])
        }
        views.push([arena.view(), arena.joined()])
        for (const [view, joined] of views) {
          expect(read(view)).toBe(joined)
          expect(view.bytes).toBe(Buffer.byteLength(joined))
        }
      }),
      { numRuns: 25 },
    )
  })

  it('reads a view over a chunk cut by a truncation as it was, not as the texts written there since', () => {
    const arena = new TextArena()
    for (let i = 0; i < 10; i++) arena.push(`pet ${i}`)
    const view = arena.view()
    arena.truncate(4)
    for (let i = 0; i < 10; i++) arena.push(`new ${i}`)
    expect(read(view)).toBe(Array.from({ length: 10 }, (_, i) => `pet ${i}`).join(','))
    expect(arena.joined()).toBe(
      [0, 1, 2, 3]
        .map((i) => `pet ${i}`)
        .concat(Array.from({ length: 10 }, (_, i) => `new ${i}`))
        .join(','),
    )
  })
})
