import { isSafeNumber, parse, stringify } from 'lossless-json'

/** A JSON value as parsed without loss: integers beyond 2^53 are `bigint`, other numbers `number`. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue }

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const PLAIN_INTEGER = /^-?\d+$/

/** True when `value` is an integer that fits in a signed 64-bit integer. */
export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX
}

function parseNumber(text: string): number | bigint {
  if (isSafeNumber(text) || !PLAIN_INTEGER.test(text)) return Number(text)
  return BigInt(text) // an integer with more digits than a double keeps
}

/**
 * Parses JSON text without losing int64 digits. Throws `SyntaxError` on malformed JSON (duplicate keys
 * included). `__proto__` and `constructor` keys become own properties, never prototypes.
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
  if (typeof value === 'bigint') return isInt64(value) ? Number(value) : value > 0n ? 2 ** 64 : -(2 ** 64)
  if (Array.isArray(value)) return value.map(validationView)
  if (value !== null && typeof value === 'object') {
    const view: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const item = validationView(value[key]!)
      // Assigning `__proto__` would set the prototype; define it as an own property instead.
      if (key === '__proto__') Object.defineProperty(view, key, { value: item, enumerable: true, writable: true, configurable: true })
      else view[key] = item
    }
    return view
  }
  return value
}
