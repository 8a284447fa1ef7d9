import { describe, expect, it } from 'vitest'
import { TextArena } from './arena.js'

describe('TextArena', () => {
  it('gives back every text at its position, across chunks and position growth', () => {
    const arena = new TextArena()
    const texts = Array.from({ length: 20_000 }, (_, i) => `{"id":${i},"name":"${'pet é 🐕 '.repeat(i % 7)}"}`)
    for (const [i, text] of texts.entries()) expect(arena.push(text)).toBe(i)
    expect(arena.length).toBe(texts.length)
    for (const i of [0, 1, 1023, 1024, 4095, 12_345, 19_999]) expect(arena.at(i)).toBe(texts[i])
    expect(arena.joined()).toBe(texts.join(','))
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
})
