/** Random values that a JSON Schema of the spec accepts: what `Prefer: dynamic=true` answers with. */
import { INT64_MAX, INT64_MIN, type JsonValue, type Spec } from '../spec/index.js'
import { sampleMatching } from './pattern.js'
import { toInt64 } from './store.js'

type Node = Record<string, any>

const WORDS = ['Rex', 'Tom', 'Luna', 'Milo', 'Bella', 'Kiwi', 'Nemo', 'Oscar', 'Daisy', 'Ziggy']

/** A value of each string format the JSON Schema vocabulary defines (and OpenAPI's common ones). */
const FORMAT_SAMPLES: Record<string, (random: () => number) => string> = {
  uuid: (random) =>
    Array.from({ length: 32 }, (_, i) => (i === 12 ? '4' : i === 16 ? '8' : Math.floor(random() * 16).toString(16)))
      .join('')
      .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
  'date-time': (random) => new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 3e10)).toISOString(),
  date: (random) => new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 3e10)).toISOString().slice(0, 10),
  time: () => '12:00:00Z',
  email: (random) => `${pickWord(random).toLowerCase()}@example.com`,
  hostname: () => 'example.com',
  ipv4: () => '192.0.2.1',
  ipv6: () => '2001:db8::1',
  uri: (random) => `https://example.com/${pickWord(random).toLowerCase()}`,
  url: (random) => `https://example.com/${pickWord(random).toLowerCase()}`,
  'uri-reference': (random) => `/${pickWord(random).toLowerCase()}`,
  byte: () => 'UGV0IFN0b3Jl',
}

function pickWord(random: () => number): string {
  return WORDS[Math.floor(random() * WORDS.length)]!
}

/** A value valid against `schema`; `resolve` follows the document's `$ref`s, `random` is the source of chance. */
export function generate(
  schema: Node,
  resolve: (node: Node) => Node,
  random: () => number = Math.random,
  depth = 0,
): JsonValue {
  const node = resolve(schema)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  if (Array.isArray(node.enum)) return pick(node.enum as JsonValue[])
  if (node.const !== undefined) return node.const as JsonValue
  if (Array.isArray(node.allOf)) {
    const parts = (node.allOf as Node[]).map((part) => generate(part, resolve, random, depth + 1))
    return Object.assign(
      {},
      ...parts.filter((part) => part !== null && typeof part === 'object' && !Array.isArray(part)),
    )
  }
  switch (node.type) {
    case 'object': {
      const value: Record<string, JsonValue> = {}
      const required = new Set<string>(node.required ?? [])
      for (const [name, property] of Object.entries<Node>(node.properties ?? {})) {
        // Optional fields come and go, so clients meet both shapes; deep ones stop to keep values small.
        if (required.has(name) || (depth < 3 && random() < 0.5))
          value[name] = generate(property, resolve, random, depth + 1)
      }
      return value
    }
    case 'array': {
      const min = Number(node.minItems ?? 0)
      const max = Math.min(Number(node.maxItems ?? min + 3), min + 3)
      return Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, () =>
        generate(node.items ?? {}, resolve, random, depth + 1),
      )
    }
    case 'integer':
      return integer(node, random)
    case 'number':
      return Math.round(random() * 1e6) / 100
    case 'boolean':
      return random() < 0.5
    case 'string': {
      const formatted = typeof node.format === 'string' ? FORMAT_SAMPLES[node.format]?.(random) : undefined
      if (formatted !== undefined && formatted.length <= (node.maxLength ?? Infinity)) return formatted
      const min = Number(node.minLength ?? 0)
      const word = `${pick(WORDS)} ${Math.floor(random() * 1000)}`
      const text = word.length >= min ? word.slice(0, node.maxLength ?? word.length) : word.padEnd(min, 'x')
      if (typeof node.pattern !== 'string') return text
      return matching(node, text) ?? sampleMatching(node.pattern, random, node) ?? text
    }
    default:
      return null
  }
}

/**
 * A text the string schema's `pattern` and length bounds take, made from `text` (a word and a number): as it is,
 * in capitals or small letters, the word or the number alone, joined by a hyphen; `undefined` when none fits.
 */
function matching(node: Node, text: string): string | undefined {
  const pattern = compiled(node.pattern as string)
  if (pattern === undefined) return undefined
  const [word = text, number = ''] = text.split(' ')
  const forms = [text, word, `${word}${number}`, `${word}-${number}`, number, `${word} ${number}`]
  return forms
    .flatMap((form) => [form, form.toUpperCase(), form.toLowerCase()])
    .find((form) => fitsString(node, form) && pattern.test(form))
}

function fitsString(node: Node, text: string): boolean {
  const length = [...text].length
  return length >= Number(node.minLength ?? 0) && length <= Number(node.maxLength ?? Infinity)
}

/** A schema's `pattern` as the regular expression JSON Schema means (Unicode), or `undefined` when it is not one. */
function compiled(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u')
  } catch {
    return undefined
  }
}

/** Whether a fixed value (a const, default or example) meets the schema's simple rules: enum, pattern, bounds. */
function fits(node: Node, value: JsonValue): boolean {
  if (Array.isArray(node.enum) && !node.enum.some((allowed) => allowed === value)) return false
  if (typeof value === 'string') {
    if (!fitsString(node, value)) return false
    const pattern = typeof node.pattern === 'string' ? compiled(node.pattern) : undefined
    return pattern === undefined || pattern.test(value) // a pattern JavaScript cannot read rules nothing out
  }
  if (typeof value === 'number' || typeof value === 'bigint')
    return (
      (node.minimum === undefined || value >= node.minimum) && (node.maximum === undefined || value <= node.maximum)
    )
  return true
}

/** An integer within the schema's bounds; int64 ones range over every magnitude, beyond 2^53 included. */
function integer(node: Node, random: () => number): JsonValue {
  const low = node.minimum !== undefined ? BigInt(node.minimum) : node.format === 'int64' ? INT64_MIN : -(2n ** 31n)
  const high = node.maximum !== undefined ? BigInt(node.maximum) : node.format === 'int64' ? INT64_MAX : 2n ** 31n - 1n
  const digits = 1 + Math.floor(random() * 19) // as many small values as huge ones
  const magnitude =
    BigInt(Math.floor(random() * 1e9)) * 10n ** BigInt(Math.max(0, digits - 9)) +
    BigInt(Math.floor(random() * 10 ** Math.min(digits, 9)))
  let value = low < 0n && random() < 0.5 ? -magnitude : magnitude
  const span = high - low + 1n
  if (value < low || value > high) value = low + ((((value - low) % span) + span) % span)
  return toInt64(value)
}

/**
 * How the stub makes a value for a property it writes itself: a date-time or date is the current moment; anything
 * else is the schema's const, default or example when it meets the schema's enum, pattern and bounds (an example
 * left from before a revision may not), else a value generated from the schema.
 */
export function valueMaker(spec: Spec, schema: Record<string, unknown>): () => JsonValue {
  const node = spec.resolve<Record<string, unknown>>(schema)
  const fixed = (schema.const ?? schema.default ?? schema.example ?? node.const ?? node.default ?? node.example) as
    JsonValue | undefined
  if (node.format === 'date-time') return () => new Date().toISOString()
  if (node.format === 'date') return () => new Date().toISOString().slice(0, 10)
  if (fixed !== undefined && fits(node, fixed)) return () => fixed
  return () => generate(node, (next) => spec.resolve(next))
}
