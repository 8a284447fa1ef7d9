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
function parseNumber(text: string): number | bigint {
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
 * Parses JSON text without losing int64 digits, in any notation (`9007199254740993.0` is that integer).
 * Throws `SyntaxError` on malformed JSON (duplicate keys included). `__proto__` and `constructor` keys
 * become own properties, never prototypes.
 */
export function parseJson(text: string): JsonValue {
  return parse(text, null, parseNumber) as JsonValue
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
