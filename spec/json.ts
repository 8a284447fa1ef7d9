import { parse, stringify } from 'lossless-json'
import { isInt64 } from './int64.js'

/** A JSON value as parsed without loss: integers beyond 2^53 are `bigint`, other numbers `number`. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue }

const PLAIN_INTEGER = /^-?[0-9]+$/
const DECIMAL = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/

/** An integer as `number` when a double holds it exactly, else as `bigint`. */
function exactInteger(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value
}

/**
 * A JSON number literal as its exact value: integers as `number` when safe and `bigint` beyond, whatever
 * their notation (`9007199254740993.0` and `9.007199254740993e15` are that integer, not the nearest double);
 * fractions, and integers in decimal notation with more than 19 digits (outside int64 anyway), as `number`; `NaN` for a
 * fraction that no double tells from an integer (`1.0000000000000001`), so it is never read as one.
 */
export function parseNumber(text: string): number | bigint {
  // Past 40 digits an integer is far outside int64: a double says enough, and BigInt of a huge literal is slow.
  if (PLAIN_INTEGER.test(text)) return text.length <= 15 || text.length > 40 ? Number(text) : exactInteger(BigInt(text))
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = DECIMAL.exec(text) ?? []
  const significant = (whole + fraction).replace(/^0+/, '')
  const digits = significant.replace(/0+$/, '')
  if (digits === '') return 0
  const scale = Number(exponent) - fraction.length + (significant.length - digits.length) // value = digits * 10^scale
  if (scale < 0) return Number.isInteger(Number(text)) ? NaN : Number(text)
  if (digits.length + scale > 19) return Number(text) // far outside int64: a double says enough
  return exactInteger(BigInt(sign + digits) * 10n ** BigInt(scale))
}

/**
 * The longest text lossless-json reads: it builds each string a character at a time, at tens of bytes a character, and
 * a 60 MB text took 2 GB and a dozen seconds. A longer one that JSON.parse cannot read for {@link parseJson} is refused
 * with JSON.parse's own message (a duplicate key with one of ours).
 */
const LOSSLESS_MOST = 1024 * 1024

/**
 * Parses JSON text without losing int64 digits, in any notation (`9007199254740993.0` is that integer).
 * Throws `SyntaxError` on malformed JSON (a key given twice with two values included; with `uniqueKeys`, a key given
 * twice at all: RFC 8259 §4 says names SHOULD be unique) and on JSON nested more than {@link MAX_DEPTH} deep. `__proto__` and `constructor` keys
 * become own properties, never prototypes.
 */
export function parseJson(text: string, { uniqueKeys = false }: { uniqueKeys?: boolean } = {}): JsonValue {
  try {
    const native = parseNative(text)
    if (typeof native !== 'string') return native
    if (text.length > LOSSLESS_MOST) throw new SyntaxError(native)
    const value = parse(text, null, parseNumber) as JsonValue // throws, saying where, unless the text is valid JSON
    // lossless-json refuses a key given twice only with two values; with `uniqueKeys`, `{"a":1,"a":1}` is refused too.
    if (uniqueKeys && native === DUPLICATE_KEY) throw new SyntaxError(native)
    return value
  } catch (error) {
    // Arrays or objects nested some thousands deep exhaust the stack of either parser: said as a reader would.
    if (error instanceof RangeError && /call stack/i.test(error.message))
      throw new SyntaxError('it is nested too deeply')
    throw error
  }
}

/** The deepest nesting of arrays and objects read: far past any pet's, and past what the stack holds to read it again. */
const MAX_DEPTH = 1000

/** A number JSON.parse reads exactly, and as {@link parseNumber} does: an integer of at most 15 digits. */
const SHORT_INTEGER = /^-?(0|[1-9][0-9]{0,14})$/
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/

/**
 * {@link parseJson}'s value, read by JSON.parse, V8's own parser: lossless-json builds each string one character at a
 * time, at tens of bytes of memory per character until it is done (a data file of two thousand 64 KiB names took
 * more than 4 GB). Each number JSON.parse would read otherwise than {@link parseNumber} (an integer of more than 15
 * digits, or one in decimal notation: `1.0`, `2e3`) is put in the text as a marker string, `"\u0000" + its index`, and
 * read exactly once parsed; a fraction (`1.5`) JSON.parse reads as parseNumber does. A string value that begins with
 * `\u0000` is given one more in front, taken off once parsed, so that it is never taken for a marker. Why lossless-json
 * is to read the text instead (a string) when it is not valid JSON (lossless-json says how), or it has a duplicate key
 * (which JSON.parse would take silently).
 */
function parseNative(text: string): JsonValue | string {
  const numbers: string[] = []
  const parts: string[] = []
  let copied = 0 // the text before this is in `parts`
  let members = 0 // colons outside strings: in valid JSON, one per member of an object
  let depth = 0 // arrays and objects open here
  const length = text.length
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      const start = i
      for (i++; i < length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x22) break
        if (d === 0x5c /* \ */) i++
      }
      // A value (not a key) that begins with U+0000 gets one more, so that it reads as no marker.
      if (text.startsWith('\\u0000', start + 1) && nextToken(text, i + 1) !== 0x3a) {
        parts.push(text.slice(copied, start + 1), '\\u0000')
        copied = start + 1
      }
    } else if (c === 0x3a /* : */) members++
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      // Refused before it is built: 60 MB of `[[[…` took JSON.parse 3 GB and 28 s, then the stack ran out on it anyway.
      if (++depth > MAX_DEPTH) throw new SyntaxError('it is nested too deeply')
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--
    else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const start = i
      while (i + 1 < length && isNumberPart(text.charCodeAt(i + 1))) i++
      const number = text.slice(start, i + 1)
      if (SHORT_INTEGER.test(number)) continue
      // A marker is a string, which may stand where a number may not: as a key.
      if (!JSON_NUMBER.test(number) || nextToken(text, i + 1) === 0x3a) return 'it is not valid JSON'
      if (!PLAIN_INTEGER.test(number) && !Number.isInteger(Number(number))) continue // a fraction: read alike
      parts.push(text.slice(copied, start), `"\\u0000${numbers.length}"`)
      numbers.push(number)
      copied = i + 1
    }
  }
  let value: JsonValue
  try {
    value = JSON.parse(parts.length === 0 ? text : parts.join('') + text.slice(copied)) as JsonValue
  } catch (error) {
    return (error as Error).message
  }
  const keys = { count: 0 }
  const read = restore(value, numbers, keys)
  return keys.count === members ? read : DUPLICATE_KEY
}

const DUPLICATE_KEY = 'a key appears twice in one object'

/**
 * The value with every marker replaced by its number and the U+0000 put before a string taken off, counting the
 * members of its objects into `keys`.
 */
function restore(value: JsonValue, numbers: readonly string[], keys: { count: number }): JsonValue {
  if (typeof value === 'string') {
    if (value.charCodeAt(0) !== 0) return value
    return value.charCodeAt(1) === 0 ? value.slice(1) : parseNumber(numbers[Number(value.slice(1))]!)
  }
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i]!
      if (typeof item === 'object' || typeof item === 'string') value[i] = restore(item, numbers, keys)
    }
    return value
  }
  for (const key of Object.keys(value)) {
    keys.count++
    const item = value[key]!
    if (typeof item !== 'object' && typeof item !== 'string') continue
    const restored = restore(item, numbers, keys)
    if (restored !== item) value[key] = restored // an own data property, `__proto__` included: no setter runs
  }
  return value
}

function isNumberPart(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d || c === 0x2b || c === 0x65 || c === 0x45
}

/** The first character at or after `at` that is no JSON white space (NaN at the end). */
function nextToken(text: string, at: number): number {
  let c = text.charCodeAt(at)
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++at)
  return c
}

/** Writes JSON with every `bigint` as its exact digits. */
export function stringifyJson(value: unknown, space?: number): string {
  return stringify(value, null, space) ?? 'null'
}

/**
 * The value as Ajv should see it: `bigint`s become numbers. An integer outside int64 becomes ±2^64, so
 * that the `int64` format rejects it even though a double cannot tell 2^63 - 1 from 2^63.
 */
export function validationView(value: JsonValue): unknown {
  return holdsBigint(value) ? viewOf(value) : value // with no bigint anywhere, a value is its own view
}

function holdsBigint(value: JsonValue): boolean {
  if (typeof value === 'bigint') return true
  if (value === null || typeof value !== 'object') return false
  if (Array.isArray(value)) return value.some(holdsBigint)
  for (const key in value) if (Object.hasOwn(value, key) && holdsBigint(value[key]!)) return true
  return false
}

function viewOf(value: JsonValue): unknown {
  if (typeof value === 'bigint') return isInt64(value) ? Number(value) : value > 0n ? 2 ** 64 : -(2 ** 64)
  if (Array.isArray(value)) return value.map(viewOf)
  if (value !== null && typeof value === 'object') {
    const view: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const item = viewOf(value[key]!)
      // Assigning `__proto__` would set the prototype; define it as an own property instead.
      if (key === '__proto__')
        Object.defineProperty(view, key, { value: item, enumerable: true, writable: true, configurable: true })
      else view[key] = item
    }
    return view
  }
  return value
}
