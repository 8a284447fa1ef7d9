import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { parse } from 'lossless-json'
import { parseJson, parseNumber } from './json.js'

/** What lossless-json alone reads from `text` with parseJson's number reader (its reference), or the error it throws. */
function losslessOf(text: string, uniqueKeys = false): unknown {
  try {
    const value = parse(text, null, parseNumber)
    // lossless-json takes a key given twice with one value twice (`{"a":1,"a":1}`), which `uniqueKeys` refuses.
    return !uniqueKeys || membersOf(text) === keysOf(value) ? shown(value) : 'SyntaxError'
  } catch (error) {
    return error instanceof SyntaxError ? 'SyntaxError' : 'other'
  }
}

/** The members a JSON text writes: its colons outside strings. */
function membersOf(text: string): number {
  return text.replace(/"(?:[^"\\]|\\.)*"/g, '""').split(':').length - 1
}

/** The keys of a parsed value's objects, at any depth. */
function keysOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  const items = Array.isArray(value) ? value : Object.values(value as object)
  return (Array.isArray(value) ? 0 : items.length) + items.reduce((sum: number, item) => sum + keysOf(item), 0)
}

/**
 * A value written out whole, so that two of them compare by it: members in order, bigints and -0 told apart, and an
 * object's prototype named (a `constructor` member fools toStrictEqual, which compares constructors).
 */
function shown(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value)
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(shown).join(',')}]`
  const prototype = Object.getPrototypeOf(value) === Object.prototype ? '' : '(not a plain object)'
  const members = Object.keys(value).map(
    (key) => `${JSON.stringify(key)}:${shown((value as Record<string, unknown>)[key])}`,
  )
  return `${prototype}{${members.join(',')}}`
}

function parsedOf(text: string, uniqueKeys = false): unknown {
  try {
    return shown(parseJson(text, { uniqueKeys }))
  } catch (error) {
    return error instanceof SyntaxError ? 'SyntaxError' : 'other'
  }
}

/** Numbers of every kind parseJson tells apart: short and long integers, int64's edges, fractions, exponents. */
const number = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom(
    '9223372036854775807',
    '-9223372036854775808',
    '9223372036854775808',
    '9007199254740993',
    '9007199254740993.0',
    '9.007199254740993e15',
    '1.0000000000000001',
    '-0',
    '0.5',
    '1e400',
    '12E-3',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
)

/** JSON texts with such numbers at any depth, strings with escapes, duplicate keys now and then, and spaces. */
const text: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    number,
    fc.constantFrom('true', 'false', 'null'),
    fc.string({ unit: 'binary', maxLength: 8 }).map((s) => JSON.stringify(s)),
    fc.constantFrom('"\\u0000x"', '"\\u00001"', '"\\u0000"', '"\\u0000\\u00002"', '"\\ud800"', '"a\\"b\\\\"'),
    fc.array(tie('value') as fc.Arbitrary<string>, { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(
        fc.tuple(
          fc.constantFrom('a', 'b', '__proto__', 'constructor', '0', '10', 'a:b', '\u0000', '\u00001'),
          tie('value') as fc.Arbitrary<string>,
        ),
        { maxLength: 4 },
      )
      .map((members) => `{${members.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
  ),
})).value

const spaced = fc
  .tuple(text, fc.constantFrom('', ' ', '\n\t'))
  .map(([json, space]) => (space ? json.replace(/([,:[{])/g, `$1${space}`) : json))

describe('parseJson', () => {
  it('reads every text as lossless-json does: the same values, exact numbers, the same refusals', () => {
    fc.assert(
      fc.property(spaced, (json) => {
        expect(parsedOf(json)).toBe(losslessOf(json))
        expect(parsedOf(json, true)).toBe(losslessOf(json, true))
      }),
      { numRuns: 1500 },
    )
  })

  it('reads a broken text as lossless-json does, never accepting what it refuses', () => {
    const edit = fc.constantFrom(...'{}[]":,.-+eE0 \\u'.split(''), '\\u0000', '1:', '"k":')
    const broken = fc
      .tuple(text, fc.nat(), fc.constantFrom('insert', 'replace', 'delete'), edit)
      .map(([json, at, how, c]) => {
        const i = at % (json.length + 1)
        return how === 'insert'
          ? json.slice(0, i) + c + json.slice(i)
          : json.slice(0, i) + (how === 'replace' ? c : '') + json.slice(i + 1)
      })
    fc.assert(
      fc.property(broken, (json) => {
        expect(parsedOf(json)).toBe(losslessOf(json))
      }),
      { numRuns: 2500 },
    )
    for (const refused of ['{1.5:2}', '{"a":1,"a":2}', '[01]', '[-]', '[1.]', '{"a":1.5 "b":2}', '[1.5true]']) {
      expect(parsedOf(refused), refused).toBe('SyntaxError')
    }
  })

  it('reads long strings in memory proportional to the text (a data file of long names)', () => {
    const name = 'x'.repeat(65_000)
    const pets = Array.from(
      { length: 200 },
      (_, i) => `{"id":${i + 1},"name":"${name}","categoryId":9223372036854775807}`,
    )
    const before = process.memoryUsage().heapUsed
    const read = parseJson(`{"nextId":201,"pets":[${pets.join(',')}]}`) as {
      pets: { name: string; categoryId: bigint }[]
    }
    const grown = process.memoryUsage().heapUsed - before
    expect(read.pets).toHaveLength(200)
    expect(read.pets[199]!.categoryId).toBe(9223372036854775807n)
    expect(read.pets[0]!.name).toBe(name)
    // 13 MB of text; lossless-json alone grew the heap by about 500 MB reading it.
    expect(grown).toBeLessThan(200 * 1024 * 1024)
  })

  it('reads a long text in memory proportional to it, whatever its numbers, and refuses a broken one likewise', () => {
    // 4 MB of fractions: JSON.parse reads them as parseNumber does, with no marker each (a 60 MB one ran out of memory).
    const fractions = `[${'1.5,'.repeat(1024 * 1024)}9007199254740993]`
    let before = process.memoryUsage().heapUsed
    const read = parseJson(fractions) as (number | bigint)[]
    expect([read.length, read[0], read.at(-1)]).toEqual([1024 * 1024 + 1, 1.5, 9007199254740993n])
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(100 * 1024 * 1024)
    // Past 1 MiB, a text JSON.parse cannot read for parseJson is refused with its message, not read by lossless-json.
    const name = 'x'.repeat(4 * 1024 * 1024)
    for (const [broken, message] of [
      [`["${name}"`, /JSON/],
      [`{"a":"${name}","a":1}`, /a key appears twice in one object/],
    ] as const) {
      before = process.memoryUsage().heapUsed
      expect(() => parseJson(broken)).toThrow(SyntaxError)
      expect(() => parseJson(broken)).toThrow(message)
      expect(process.memoryUsage().heapUsed - before).toBeLessThan(100 * 1024 * 1024)
    }
    // A string value that begins with U+0000 is read as written beside markers, however long the text.
    const nul = parseJson(`{"\\u0000":"\\u00001","n":9223372036854775807,"s":"\\u0000\\u0000${name}"}`)
    expect(nul).toEqual({ '\u0000': '\u00001', n: 9223372036854775807n, s: `\u0000\u0000${name}` })
  })

  it('refuses JSON nested too deeply to read with a SyntaxError that says so, by either parser', () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)
    // Deep enough to run out of any thread's stack (a worker's is larger than the main thread's), whatever the frames.
    expect(() => parseJson(deep(300_000))).toThrow(new SyntaxError('it is nested too deeply'))
    // A duplicate key sends the text to lossless-json (which says where); one with the same value twice is refused too.
    const unique = { uniqueKeys: true }
    expect(() => parseJson('{"name":"k","categoryId":1,"categoryId":1.0}', unique)).toThrow(
      new SyntaxError('a key appears twice in one object'),
    )
    expect(() => parseJson('{"a":{"n\\u0061me":"k","name":"k"}}', unique)).toThrow(SyntaxError)
    expect(parseJson('{"a":{"n\\u0061me":"k","name":"k"}}')).toEqual({ a: { name: 'k' } }) // a reader's leeway
    expect(() => parseJson(`{"a":1,"a":${deep(100_000)}}`)).toThrow(new SyntaxError('it is nested too deeply'))
    expect(parseJson(deep(1_000))).toHaveLength(1)
    // Past 1,000 levels it is refused as it is read, before anything is built: 60 MB of it took 3 GB and 28 s.
    expect(() => parseJson(deep(1_001))).toThrow(new SyntaxError('it is nested too deeply'))
    const before = process.memoryUsage().heapUsed
    expect(() => parseJson(deep(5_000_000))).toThrow(new SyntaxError('it is nested too deeply'))
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024)
  })
})
