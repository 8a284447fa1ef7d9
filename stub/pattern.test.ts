import { describe, expect, it } from 'vitest'
import { sampleMatching } from './pattern.js'

/** A repeatable source of chance. */
function seeded(seed: number): () => number {
  let n = seed
  return () => ((n = (n * 16807) % 2147483647) % 10_000) / 10_000
}

describe('texts made from a pattern', () => {
  it('match the patterns specs write: classes, ranges, escapes, groups, alternatives, quantifiers', () => {
    const patterns = [
      '^[0-9a-f]{32}$',
      '^[A-Z]{3}-[0-9]{2}$',
      '^"[^"]*"$',
      '^\\d{4}-\\d{2}-\\d{2}$',
      '^(foo|bar)+$',
      '^[a-z]+(?:-[a-z]+)*$',
      '^\\w+@\\w+\\.com$',
      '^\\S+$',
      '^v\\d+(\\.\\d+){2}$',
      '^@-?[0-9]{1,15}$',
      '^[\\u0041-\\u005A]{2}$',
      '^(?<major>\\d+)\\.(?<minor>\\d+)$',
      '[a]{2,}',
      'ab{0}c',
      '^[-a-z_]+$',
    ]
    for (const pattern of patterns) {
      const random = seeded(7)
      for (let i = 0; i < 10; i++) {
        const text = sampleMatching(pattern, random, { maxLength: 64 })
        expect([pattern, text !== undefined && new RegExp(pattern, 'u').test(text)]).toEqual([pattern, true])
      }
    }
  })

  it('keep within the length bounds, and give up on what they cannot read or meet', () => {
    const random = seeded(3)
    for (let i = 0; i < 10; i++)
      expect([...sampleMatching('^[a-z]+$', random, { minLength: 5, maxLength: 6 })!].length).toBeGreaterThanOrEqual(5)
    for (const pattern of ['^(?=a)a$', '^(a)\\1$', '^\\p{L}+$', '(', '^[a-z]{10}$'])
      expect([pattern, sampleMatching(pattern, random, { maxLength: 5 })]).toEqual([pattern, undefined])
  })
})
