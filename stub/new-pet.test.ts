import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { spec } from '../spec/index.js'
import { NewPetReader, readAsSent } from './new-pet.js'
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

describe('readAsSent', () => {
  const names = ['name', 'categoryId', 'status', 'tags']
  const member = fc.oneof(
    fc.string({ unit: 'binary-ascii', maxLength: 6 }), // quotes, backslashes and control characters: escaped
    fc.string({ maxLength: 6 }),
    fc.integer(),
    fc.constantFrom(0, -0, 999_999_999_999_999, -999_999_999_999_999, 1_000_000_000_000_000, 2 ** 53 + 2),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(true, false, null),
    fc.constant([1]),
    fc.constant({ a: 1 }),
  )
  /** An object of some of `names` and a stray key, in the spec's order or shuffled, as JSON.stringify writes it. */
  const written = fc
    .tuple(
      fc.shuffledSubarray([...names, 'nickname', 'id']),
      fc.boolean(),
      fc.array(member, { minLength: 6, maxLength: 6 }),
    )
    .map(([keys, inOrder, values]) => {
      const ordered = inOrder ? [...keys].sort((a, b) => order(a) - order(b)) : keys
      return JSON.stringify(Object.fromEntries(ordered.map((key, i) => [key, values[i]])))
    })
  const order = (key: string) => (names.includes(key) ? names.indexOf(key) : names.length)

  /** What readAsSent reads from a text must be what JSON.parse reads, members in the same order. */
  const sameAsParse = (text: string) => {
    const read = readAsSent(text, names)
    if (read === undefined) return false
    const parsed = JSON.parse(text) as object // throws on a text readAsSent should have refused
    expect(Object.entries(read)).toEqual(Object.entries(parsed))
    expect(JSON.stringify(read)).toBe(text) // the text is the object's JSON exactly
    return true
  }

  it('reads every object JSON.stringify writes of its names in order, flat and plain, as JSON.parse does', () => {
    let read = 0
    fc.assert(
      fc.property(written, (text) => {
        const value = JSON.parse(text) as Record<string, unknown>
        const keys = Object.keys(value)
        const plain =
          keys.every((key, i) => names.includes(key) && (i === 0 || order(keys[i - 1]!) < order(key))) &&
          Object.values(value).every(
            (member) =>
              member === null ||
              typeof member === 'boolean' ||
              (typeof member === 'string' && /^[\x20-\x7f]*$/.test(member) && !/["\\]/.test(member)) ||
              (typeof member === 'number' &&
                Number.isInteger(member) &&
                Math.abs(member) < 1e15 &&
                !Object.is(member, -0)),
          )
        expect(sameAsParse(text), text).toBe(plain)
        if (plain) read++
      }),
      { numRuns: 1000 },
    )
    expect(read).toBeGreaterThan(50)
  })

  it('never reads a text JSON.parse refuses or reads otherwise', () => {
    const edit = fc.constantFrom(...'{}[]":,.-+eE0123456789 \\\ntrufalsn\u0000\u00e9x'.split(''))
    const mutated = fc
      .tuple(written, fc.nat(), fc.constantFrom('insert', 'replace', 'delete', 'cut'), edit)
      .map(([text, at, how, c]) => {
        const i = at % (text.length + 1)
        if (how === 'insert') return text.slice(0, i) + c + text.slice(i)
        if (how === 'replace') return text.slice(0, i) + c + text.slice(i + 1)
        if (how === 'delete') return text.slice(0, i) + text.slice(i + 1)
        return text.slice(0, i)
      })
    fc.assert(
      fc.property(mutated, (text) => {
        sameAsParse(text)
      }),
      { numRuns: 2500 },
    )
    for (const refused of [
      '{"name":"Rex","categoryId":01}',
      '{"name":"Rex","categoryId":-}',
      '{"name":"Rex","categoryId":1,}',
      '{"name":"Rex""categoryId":1}',
      '{"name":"Rex","categoryId":1}x',
      '{"name":"Rex","name":"Max"}',
      '{"name":"Re',
      '{"name":"R\u001fx"}', // a control character, which JSON.parse refuses unescaped
      '{"name":"R\\"x"}', // escapes: the text is not the object's JSON
      '{"name":"R\\\\x"}',
      '{"name":"R\\u0065x"}',
      '{',
      '',
    ]) {
      expect(readAsSent(refused, names), refused).toBeUndefined()
    }
    expect(readAsSent('{}', names)).toEqual({})
  })
})
