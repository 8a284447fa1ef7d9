/**
 * Valid values built from the spec: fast-check arbitraries and plain samples of a NewPet and its properties, bounds,
 * enumerations and required fields read from `spec/petstore.yaml`, never retyped.
 */
import fc from 'fast-check'
import {
  declaredBounds,
  INT64_MAX,
  INT64_MIN,
  stringifyJson,
  type IntegerBoundsSchema,
  type JsonValue,
  type Spec,
} from '../../spec/index.js'

const INT32_MIN = -(2n ** 31n)
const INT32_MAX = 2n ** 31n - 1n
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * The integers the suite sends for an integer schema: its format's range (int32 or int64; with no format, the
 * integers a double holds exactly, as the interface promises no more), narrowed by `minimum`, `maximum` and the
 * exclusive bounds.
 */
export function integerBounds(schema: IntegerBoundsSchema & { format?: string }): { min: bigint; max: bigint } {
  let [min, max] =
    schema.format === 'int32'
      ? [INT32_MIN, INT32_MAX]
      : schema.format === 'int64'
        ? [INT64_MIN, INT64_MAX]
        : [-SAFE_MAX, SAFE_MAX]
  const declared = declaredBounds(schema)
  if (declared.min !== undefined && declared.min > min) min = declared.min
  if (declared.max !== undefined && declared.max < max) max = declared.max
  return { min, max }
}

/** A categoryId anywhere in its range (int64 today), biased towards both ends and the edges of double precision. */
export function categoryId(spec: Spec): fc.Arbitrary<bigint> {
  const { min, max } = integerBounds(spec.propertiesOf('NewPet').categoryId!)
  const edges = [min, max, 0n, 1n, -1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n].filter((v) => v >= min && v <= max)
  return fc.oneof(
    { weight: 3, arbitrary: fc.bigInt({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 1000 }).map(BigInt) },
  )
}

/** One value of the PetStatus enumeration. */
export function petStatus(spec: Spec): fc.Arbitrary<string> {
  return fc.constantFrom(...spec.enumOf('PetStatus'))
}

/**
 * Any Unicode text (whole code points, so no lone surrogates), from empty to long: mostly short, sometimes
 * past the size floor, sometimes the characters that break naive code (quotes, backslashes, controls, NUL).
 */
export function anyText(): fc.Arbitrary<string> {
  const tricky = fc.constantFrom(
    '"',
    "'",
    '\\',
    '\n',
    '\t',
    '\u0000',
    '\u2028',
    '\uFEFF',
    '🐈‍⬛',
    'é',
    'e\u0301',
    '<',
    '&',
    '%',
    '{}',
  )
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: codePoint, maxLength: 24 }) },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.oneof(tricky, fc.string({ unit: codePoint, maxLength: 3 })), { maxLength: 8 })
        .map((p) => p.join('')),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 33, maxLength: 120 }) },
    { weight: 1, arbitrary: fc.string({ unit: codePoint, minLength: 200, maxLength: 400 }) },
  )
}

const SURROGATES = 0xe000 - 0xd800

/**
 * One code point of any plane, lone surrogates aside: what fast-check's `binary` string unit gives. That unit
 * builds a reverse table of all 1.1 million code points when first used (over a second and about 128 MB, stalling
 * requests in flight); this one maps and unmaps arithmetically.
 */
export const codePoint: fc.Arbitrary<string> = fc.integer({ min: 0, max: 0x10ffff - SURROGATES }).map(
  (n) => String.fromCodePoint(n < 0xd800 ? n : n + SURROGATES),
  (value) => {
    const cp = typeof value === 'string' ? value.codePointAt(0) : undefined
    if (cp === undefined || String.fromCodePoint(cp) !== value || (cp >= 0xd800 && cp < 0xe000))
      throw new Error('not one code point')
    return cp < 0xd800 ? cp : cp - SURROGATES
  },
)

/** A NewPet as the suite sends it: every property the spec declares may be there, int64 values as `bigint`. */
export interface NewPetValue {
  [property: string]: JsonValue
}

/** The parts of a property's schema the arbitraries read. */
export interface PropertySchema {
  type?: string | string[]
  format?: string
  enum?: JsonValue[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  multipleOf?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  items?: Record<string, unknown>
  minItems?: number
  maxItems?: number
  uniqueItems?: boolean
  properties?: Record<string, Record<string, unknown>>
  required?: string[]
  example?: JsonValue
  const?: JsonValue
  anyOf?: Record<string, unknown>[]
  oneOf?: Record<string, unknown>[]
}

/** The alternatives of an `anyOf` or `oneOf` schema, each resolved; none for any other schema. */
export function alternatives(schema: PropertySchema, spec: Spec): PropertySchema[] {
  const choices = schema.anyOf ?? schema.oneOf
  return Array.isArray(choices) ? choices.map((choice) => spec.resolve(choice) as PropertySchema) : []
}

/**
 * `arbitrary` kept to the values `keep` takes, or undefined when a sample of it holds none: fast-check's filter draws
 * until one passes, so a filter no value passes (a constant the schema accepts after all) would never return.
 */
export function filtered<T>(arbitrary: fc.Arbitrary<T>, keep: (value: T) => boolean): fc.Arbitrary<T> | undefined {
  return fc.sample(arbitrary, { numRuns: 64, seed: 0x5eed }).some(keep) ? arbitrary.filter(keep) : undefined
}

/**
 * The property a run marks its pets by (a name prefix): NewPet's first required string property that is not an
 * enumeration (`name` today), else its first optional one (every pet the run creates carries it all the same).
 */
export function labelOf(spec: Spec): string {
  const properties = spec.propertiesOf('NewPet') as Record<string, PropertySchema>
  const text = (name: string) => properties[name]?.type === 'string' && !properties[name]?.enum
  const label = spec.requiredOf('NewPet').find(text) ?? Object.keys(properties).find(text)
  if (label === undefined) throw new Error('NewPet declares no string property to mark a pet by')
  return label
}

/** Text of exactly `length` code points, the run's `prefix` first when it fits. */
export function textOfLength(length: number, prefix = ''): string {
  const start = prefix.length <= length ? prefix : ''
  return start + 'x'.repeat(Math.max(0, length - [...start].length))
}

/**
 * Values of one property, read from its schema: enumerations, integers anywhere in their range, strings within their
 * length bounds (or of their format or pattern), arrays and objects of such values, and null where the type allows.
 */
function propertyValue(
  schema: PropertySchema,
  prefix: string,
  spec: Spec,
  depth = 0,
): fc.Arbitrary<JsonValue> | undefined {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const choices = alternatives(schema, spec)
  if (choices.length) {
    const each = choices
      .map((choice) => propertyValue(choice, prefix, spec, depth))
      .filter((value): value is fc.Arbitrary<JsonValue> => value !== undefined)
    return each.length ? fc.oneof(...each) : undefined
  }
  if (Array.isArray(schema.type)) {
    // A list of types (OpenAPI 3.1's nullable): each of them, null included.
    const each = schema.type
      .map((type) => (type === 'null' ? fc.constant(null) : propertyValue({ ...schema, type }, prefix, spec, depth)))
      .filter((value): value is fc.Arbitrary<JsonValue> => value !== undefined)
    return each.length ? fc.oneof(...each) : undefined
  }
  if (schema.type === 'null') return fc.constant(null)
  if (schema.type === 'integer') return integerValue(schema)
  if (schema.type === 'number')
    return fc.double({ min: schema.minimum, max: schema.maximum, noNaN: true, noDefaultInfinity: true })
  if (schema.type === 'boolean') return fc.boolean()
  if (schema.type === 'string') return stringValue(schema, prefix)
  if (schema.type === 'array' && depth < 3) {
    const item = propertyValue(spec.resolve(schema.items ?? {}) as PropertySchema, '', spec, depth + 1)
    if (item === undefined) return undefined
    const bounds = {
      minLength: schema.minItems ?? 0,
      maxLength: Math.min(schema.maxItems ?? 4, (schema.minItems ?? 0) + 4),
    }
    return schema.uniqueItems
      ? fc.uniqueArray(item, { ...bounds, selector: (v) => stringifyJson(v) })
      : fc.array(item, bounds)
  }
  if (schema.type === 'object' && depth < 3) {
    const members: Record<string, fc.Arbitrary<JsonValue>> = {}
    for (const [name, member] of Object.entries(schema.properties ?? {})) {
      const value = propertyValue(spec.resolve(member) as PropertySchema, '', spec, depth + 1)
      if (value) members[name] = value
    }
    const required = (schema.required ?? []).filter((name) => name in members)
    return fc.record(members, { requiredKeys: required }) as fc.Arbitrary<JsonValue>
  }
  return schema.example === undefined ? undefined : fc.constant(schema.example)
}

/** Texts of the format a string schema names, for the formats fast-check writes. */
const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  uuid: () => fc.uuid(),
  'date-time': () =>
    fc
      .date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString()),
  date: () =>
    fc
      .date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  email: () => fc.emailAddress(),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  hostname: () => fc.domain(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
}

/**
 * Strings of a schema: of its format or pattern when it has one (the label's prefix then left out, as it would
 * break them), else any text within its length bounds, `prefix` first, and exactly at both bounds.
 */
function stringValue(schema: PropertySchema, prefix: string): fc.Arbitrary<JsonValue> | undefined {
  const min = schema.minLength ?? 0
  const max = schema.maxLength
  const fits = (t: string) => [...t].length >= min && (max === undefined || [...t].length <= max)
  const formatted = schema.format === undefined ? undefined : FORMATS[schema.format]
  if (formatted) return filtered(formatted(), fits)
  if (schema.pattern !== undefined) return filtered(fc.stringMatching(new RegExp(schema.pattern, 'u')), fits)
  const room = max === undefined ? undefined : max - [...prefix].length
  if (room !== undefined && room < 0) return fc.constant(textOfLength(max!))
  // Any text brought within the bounds (padded, or cut by code points), not filtered: a long minLength is then as
  // quick to meet as a short one.
  const least = Math.max(0, min - [...prefix].length)
  const text = anyText().map((t) => {
    const points = [...t]
    const within = room === undefined ? points : points.slice(0, room)
    return prefix + within.join('') + 'x'.repeat(Math.max(0, least - within.length))
  })
  // A string's bounds are sent too: exactly maxLength and exactly minLength code points.
  const edges = [
    ...(max === undefined ? [] : [textOfLength(max, prefix)]),
    ...(min > 0 ? [textOfLength(min, prefix)] : []),
  ]
  return edges.length
    ? fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: fc.constantFrom(...edges) })
    : text
}

/** An integer within a schema's bounds, biased towards both ends and the edges of double precision. */
function integerValue(schema: PropertySchema): fc.Arbitrary<bigint> {
  const { min, max } = integerBounds(schema)
  const edges = [min, max, 0n, 1n, -1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n].filter((v) => v >= min && v <= max)
  return fc.oneof(
    { weight: 3, arbitrary: fc.bigInt({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 0, max: 1000 })
        .map(BigInt)
        .filter((v) => v >= min && v <= max),
    },
  )
}

/** A plain valid value of a property: its example, else its first enum value, its lower bound or a short text. */
export function sampleValue(schema: PropertySchema, spec?: Spec): JsonValue {
  if (schema.const !== undefined) return schema.const
  if (schema.example !== undefined)
    return typeof schema.example === 'number' && schema.type === 'integer' ? BigInt(schema.example) : schema.example
  if (schema.enum) return schema.enum[0]!
  const [first] = spec ? alternatives(schema, spec) : []
  if (first) return sampleValue(first, spec)
  if (Array.isArray(schema.type)) {
    const type = schema.type.find((t) => t !== 'null')
    return type === undefined ? null : sampleValue({ ...schema, type }, spec)
  }
  if (schema.type === 'integer') return integersOf(schema, 1)[0] ?? integerBounds(schema).min
  if (schema.type === 'number') return schema.minimum ?? 1
  if (schema.type === 'boolean') return true
  if (schema.type === 'array') {
    const item = (spec?.resolve(schema.items ?? {}) ?? schema.items ?? {}) as PropertySchema
    return Array.from({ length: schema.minItems ?? 0 }, () => sampleValue(item, spec))
  }
  if (schema.type === 'object') {
    const members = Object.entries(schema.properties ?? {}).filter(([name]) => schema.required?.includes(name))
    return Object.fromEntries(
      members.map(([name, member]) => [name, sampleValue((spec?.resolve(member) ?? member) as PropertySchema, spec)]),
    )
  }
  const formatted = schema.format !== undefined || schema.pattern !== undefined ? stringValue(schema, '') : undefined
  if (formatted) {
    const [text] = fc.sample(formatted, { numRuns: 1, seed: 1 })
    if (text !== undefined) return text
  }
  return textOfLength(Math.max(schema.minLength ?? 0, Math.min(schema.maxLength ?? 3, 3)))
}

/** A valid NewPet with every declared property at a plain value (its example, its first enum value, ...). */
export function sampleNewPet(spec: Spec): { [property: string]: JsonValue } {
  return Object.fromEntries(
    Object.entries(spec.propertiesOf('NewPet') as Record<string, PropertySchema>).map(([name, schema]) => [
      name,
      sampleValue(schema, spec),
    ]),
  )
}

/** The NewPet as a JSON value (bigint digits kept). */
export function asJson(pet: NewPetValue): JsonValue {
  return pet as unknown as JsonValue
}

/**
 * A valid NewPet: every property the spec declares, optional ones sometimes left out, each within its bounds
 * and sometimes at them. The label (`name`) starts with `prefix` so a shared target's records can be traced to
 * the run that made them.
 */
export function newPet(spec: Spec, prefix: string): fc.Arbitrary<NewPetValue> {
  const required = spec.requiredOf('NewPet')
  const label = labelOf(spec)
  const model: Record<string, fc.Arbitrary<JsonValue>> = {}
  for (const [name, schema] of Object.entries(spec.propertiesOf('NewPet') as Record<string, PropertySchema>)) {
    const value = propertyValue(schema, name === label ? prefix : '', spec)
    if (value) model[name] = value
    else if (required.includes(name)) model[name] = fc.constant(sampleValue(schema, spec))
  }
  return fc.record(model, { requiredKeys: required.filter((name) => name in model) }) as fc.Arbitrary<NewPetValue>
}

/**
 * categoryIds at the edges an int64 store must keep exactly (next to both ends, and beyond 2^31, 2^32 and 2^53,
 * where 32-bit columns wrap and doubles stop holding every integer), besides the ends themselves that the
 * fixtures send. Read from the spec's bounds.
 */
export function categoryIdEdges(spec: Spec): bigint[] {
  const { min, max } = integerBounds(spec.propertiesOf('NewPet').categoryId!)
  const edges = [min + 1n, max - 1n, -1n, 2n ** 31n, -(2n ** 31n) - 1n, 2n ** 32n, 2n ** 53n, -(2n ** 53n) - 1n]
  return [...new Set(edges)].filter((v) => v >= min && v <= max)
}

/**
 * `n` distinct valid values of a schema, the same on every run: texts and integers counted up from its lower bound,
 * anything else drawn with a fixed seed. Fewer when the schema takes fewer.
 */
export function samplesOf(schema: PropertySchema, spec: Spec, n: number): JsonValue[] {
  const values: JsonValue[] = []
  const seen = new Set<string>()
  const push = (value: JsonValue) => {
    const key = stringifyJson(value)
    if (seen.has(key) || values.length >= n) return
    seen.add(key)
    values.push(value)
  }
  if (schema.type === 'string' && schema.pattern === undefined && schema.format === undefined && !schema.enum) {
    const length = Math.max(1, schema.minLength ?? 0)
    if (schema.maxLength === undefined || length <= schema.maxLength)
      for (let i = 0; i < n; i++)
        push(textOfLength(length - 1) + String.fromCharCode(97 + (i % 26)).repeat(1 + Math.floor(i / 26)))
  } else if (schema.type === 'integer' && !schema.enum) {
    for (const v of integersOf(schema, n)) push(v)
  }
  push(sampleValue(schema, spec))
  const arbitrary = propertyValue(schema, '', spec)
  if (arbitrary) for (const value of fc.sample(arbitrary, { numRuns: 200, seed: 1 })) push(value)
  return values
}

/** Up to `n` integers a schema takes, counted up from 1 (or its lower bound), in steps of its `multipleOf`. */
function integersOf(schema: PropertySchema, n: number): bigint[] {
  const { min, max } = integerBounds(schema)
  const step = Number.isInteger(schema.multipleOf) && schema.multipleOf! > 1 ? BigInt(schema.multipleOf!) : 1n
  const from = min <= 1n && 1n <= max ? 1n : min
  const rest = ((from % step) + step) % step
  const values: bigint[] = []
  for (let v = rest === 0n ? from : from + step - rest; values.length < n && v <= max; v += step) values.push(v)
  return values
}

/** Number of Unicode code points of a string. */
export function codePoints(text: string): number {
  // Counted, not spread into an array: a name of a megabyte would make a million strings.
  let count = text.length
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--
        i++
      }
    }
  }
  return count
}
