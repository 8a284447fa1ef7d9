import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { spec } from '../spec/index.js'
import { NewPetReader } from './new-pet.js'
import { PetStore } from './store.js'

const HEADERS = { 'content-type': 'application/json' }
const reader = new NewPetReader(spec())

/**
 * What the store writes for `body`: through the body's own text when the reader offers it, without it, and for the
 * same body read the long way (a leading space makes any body not compact, so nothing of it is taken as sent).
 */
function storedBothWays(
  body: string,
): { written: string | undefined; through: string; without: string; longWay: string } | undefined {
  let read
  try {
    read = reader.read(body, HEADERS)
  } catch {
    return undefined // refused: nothing is stored either way
  }
  return {
    written: read.json,
    through: new PetStore([], 7).add(read.pet, read.json).json,
    without: new PetStore([], 7).add(read.pet).json,
    longWay: new PetStore([], 7).add(reader.read(` ${body}`, HEADERS).pet).json,
  }
}

/** A JSON value's text: mostly as JSON.stringify writes it, else with an escape or a number spelled otherwise. */
const spelled = (value: unknown): fc.Arbitrary<string> => {
  const written = JSON.stringify(value)
  const others =
    typeof value === 'string'
      ? [written.replace(/[a-z]/, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)]
      : typeof value === 'number'
        ? [`${value}.0`, `${value}e0`, `${value}E+0`, value === 0 ? '-0' : `${value}.00`]
        : [written]
  return fc.oneof({ weight: 5, arbitrary: fc.constant(written) }, { weight: 1, arbitrary: fc.constantFrom(...others) })
}

/** Mostly `choice`, else one of `others`. */
const mostly = <T>(choice: T, others: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(choice) }, { weight: 1, arbitrary: others })

describe('NewPetReader', () => {
  it('offers the body as the stored JSON only when it is that JSON exactly', () => {
    const statuses = spec().enumOf('PetStatus')
    const body = fc
      .record(
        {
          name: fc.oneof(
            fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
            fc.string({ unit: 'grapheme', maxLength: 12 }),
          ),
          categoryId: fc.oneof(
            fc.integer({ min: -5, max: 99 }),
            fc.constant(2 ** 53 + 2),
            fc.constant(123456789012345),
          ),
          status: fc.constantFrom(...statuses),
          nickname: fc.string({ maxLength: 4 }),
        },
        { requiredKeys: ['name', 'categoryId'] },
      )
      .chain((pet) =>
        fc
          .tuple(
            mostly(Object.keys(pet), fc.shuffledSubarray(Object.keys(pet), { minLength: Object.keys(pet).length })),
            mostly('', fc.constantFrom(' ', '\n')),
            ...Object.values(pet).map(spelled),
          )
          .map(([order, space, ...texts]) => {
            const text = Object.fromEntries(Object.keys(pet).map((key, i) => [key, texts[i]!]))
            return `{${order.map((key) => `${space}${JSON.stringify(key)}:${space}${text[key]}`).join(',')}}`
          }),
      )
    let offered = 0
    fc.assert(
      fc.property(body, (text) => {
        const stored = storedBothWays(text)
        if (stored === undefined) return
        expect(stored.through).toBe(stored.without)
        expect(stored.through).toBe(stored.longWay)
        if (stored.written !== undefined) offered++
      }),
      { numRuns: 1000 },
    )
    expect(offered).toBeGreaterThan(5) // the shortcut was taken (about 3% of the bodies), not only refused
  })

  it('offers the body for what most clients send, and not for a body it had to change', () => {
    const plain = '{"name":"Rex","categoryId":1,"status":"available"}'
    const stored = '{"id":7,"name":"Rex","categoryId":1,"status":"available"}'
    expect(storedBothWays(plain)).toEqual({ written: plain, through: stored, without: stored, longWay: stored })
    for (const changed of [
      '{"categoryId":1,"name":"Rex"}', // stored in the spec's order
      '{"name":"Rex","categoryId":1,"nickname":"R"}', // an undeclared field is dropped
      '{"name":"Rex", "categoryId":1}', // a space
      '{"name":"R\\u0065x","categoryId":1}', // an escape
      '{"name":"Rex","categoryId":1.0}', // a fraction
      '{"name":"Rex","categoryId":-0}', // a negative zero
      '{"name":"Rex","categoryId":1e0}', // an exponent
      '{"name":"Rex","categoryId":9007199254740993}', // more digits than a double holds
    ]) {
      const stored = storedBothWays(changed)
      expect(stored?.written, changed).toBeUndefined()
      expect(stored?.through, changed).toBe(stored?.without)
      expect(stored?.through, changed).toBe(stored?.longWay)
    }
  })
})
