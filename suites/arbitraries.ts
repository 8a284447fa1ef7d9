/**
 * fast-check arbitraries built from the spec: bounds, enumerations and required fields are read from
 * `spec/petstore.yaml`, never retyped.
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
} from '../spec/index.js'

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
interface PropertySchema {
  type?: string | string[]
  format?: string
  enum?: JsonValue[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
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
function alternatives(schema: PropertySchema, spec: Spec): PropertySchema[] {
  const choices = schema.anyOf ?? schema.oneOf
  return Array.isArray(choices) ? choices.map((choice) => spec.resolve(choice) as PropertySchema) : []
}

/**
 * `arbitrary` kept to the values `keep` takes, or undefined when a sample of it holds none: fast-check's filter draws
 * until one passes, so a filter no value passes (a constant the schema accepts after all) would never return.
 */
function filtered<T>(arbitrary: fc.Arbitrary<T>, keep: (value: T) => boolean): fc.Arbitrary<T> | undefined {
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
function textOfLength(length: number, prefix = ''): string {
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
  if (schema.type === 'integer') {
    const { min, max } = integerBounds(schema)
    return 1n < min ? min : 1n > max ? max : 1n
  }
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

/**
 * Valid NewPets with every declared property at its bounds: each string at its maxLength (and minLength), each
 * integer at its minimum and maximum, each enum value once; the label carries `prefix`.
 */
export function boundaryPets(spec: Spec, prefix: string): { why: string; body: { [property: string]: JsonValue } }[] {
  const properties = spec.propertiesOf('NewPet') as Record<string, PropertySchema>
  const label = labelOf(spec)
  const base = { ...sampleNewPet(spec), [label]: `${prefix}bounds` }
  const pets: { why: string; body: { [property: string]: JsonValue } }[] = []
  for (const [name, schema] of Object.entries(properties)) {
    const at = (why: string, value: JsonValue) => pets.push({ why: `${name} ${why}`, body: { ...base, [name]: value } })
    if (schema.enum) for (const value of schema.enum) at(`= ${String(value)}`, value)
    else if (schema.type === 'string') {
      if (schema.maxLength !== undefined)
        at(`at maxLength ${schema.maxLength}`, textOfLength(schema.maxLength, name === label ? prefix : ''))
      if (schema.minLength !== undefined && name !== label)
        at(`at minLength ${schema.minLength}`, textOfLength(schema.minLength))
    } else if (schema.type === 'integer' && name !== label) {
      const { min, max } = integerBounds(schema)
      at(`at its minimum ${min}`, min)
      at(`at its maximum ${max}`, max)
    }
  }
  return pets
}

/**
 * A NewPet a scenario wrote by hand, made to fit the judged spec: each required property it lacks at its plain value
 * (a revision may require one more); an integer past a revision's bounds wrapped into them, and a value outside a
 * revision's enumeration replaced by its first value; and its label, when it carries the run's `prefix`, fitted to
 * the label's maxLength and pattern ({@link fitLabel}).
 */
export function fitNewPet(spec: Spec, body: JsonValue, prefix: string): JsonValue {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body
  const properties = spec.propertiesOf('NewPet') as Record<string, PropertySchema>
  const fitted: { [property: string]: JsonValue } = { ...body }
  let changed = false
  const set = (name: string, value: JsonValue) => {
    fitted[name] = value
    changed = true
  }
  for (const name of spec.requiredOf('NewPet'))
    if (!Object.hasOwn(body, name) && properties[name]) set(name, sampleValue(properties[name], spec))
  for (const [name, value] of Object.entries(body)) {
    const schema = properties[name]
    if (schema?.enum && !schema.enum.some((allowed) => allowed === value)) set(name, schema.enum[0]!)
    else if (schema?.type === 'integer' && (typeof value === 'bigint' || Number.isInteger(value))) {
      const { min, max } = integerBounds(schema)
      const n = BigInt(value as bigint | number)
      const span = max - min + 1n
      if (n < min || n > max) set(name, min + ((((n - min) % span) + span) % span))
    }
  }
  const label = labelOf(spec)
  // A value of another type than the revision gives its property (a categoryId that became a uuid) takes its plain one.
  for (const [name, value] of Object.entries(fitted))
    if (name !== label && properties[name] && !propertyTakes(spec, name, value))
      set(name, sampleValue(properties[name], spec))
  const value = fitted[label]
  if (typeof value === 'string' && value.startsWith(prefix)) {
    const text = fitLabel(spec, prefix, value.slice(prefix.length))
    if (text !== value) set(label, text)
  }
  return changed ? fitted : body
}

/** True when the judged spec takes `text` as the label (every other property at its plain value). */
function labelTakes(spec: Spec, text: string): boolean {
  return spec.schema('NewPet')({ ...plainOf(spec), [labelOf(spec)]: text }).length === 0
}

/** True when the judged spec takes `value` as the property `name` (every other property at its plain value). */
function propertyTakes(spec: Spec, name: string, value: JsonValue): boolean {
  const plain = plainOf(spec)
  const validate = spec.schema('NewPet')
  // When the plain NewPet itself is refused (a label pattern it misses), no property can be told apart: all are taken.
  return validate(plain).length > 0 || validate({ ...plain, [name]: value }).length === 0
}

/** Each spec's plain NewPet, made once. */
const PLAIN = new WeakMap<Spec, { [property: string]: JsonValue }>()

function plainOf(spec: Spec): { [property: string]: JsonValue } {
  let plain = PLAIN.get(spec)
  if (!plain) PLAIN.set(spec, (plain = sampleNewPet(spec)))
  return plain
}

/**
 * `prefix + rest` as a label the spec takes: as it is when it does; else cut to the label's maxLength (the end of
 * what fits replaced by a digest of the whole rest, so distinct labels stay distinct), and, for a pattern that takes
 * only letters, with the rest written in letters. Unchanged when nothing fits.
 */
function fitLabel(spec: Spec, prefix: string, rest: string): string {
  const schema = (spec.propertiesOf('NewPet') as Record<string, PropertySchema>)[labelOf(spec)]
  const max = schema?.maxLength
  if (max === undefined && schema?.pattern === undefined) return prefix + rest // any text will do
  const digest = lettersOf(fnv1a(rest).toString(36)).padStart(7, 'a')
  const cut = (text: string) => {
    const chars = [...text]
    if (max === undefined || [...prefix].length + chars.length <= max) return prefix + text
    const room = max - [...prefix].length
    // Where the whole digest does not fit, its last letters, which vary the most.
    return prefix + (room > 7 ? chars.slice(0, room - 7).join('') + digest : digest.slice(7 - Math.max(0, room)))
  }
  for (const text of [rest, lettersOf(rest), lettersOf(rest).toUpperCase()]) {
    const label = cut(text)
    if (labelTakes(spec, label)) return label
  }
  return prefix + rest
}

/** `text` in lower-case letters only: letters kept (lower-cased), digits as `a` to `j`, anything else as `x`. */
function lettersOf(text: string): string {
  return text.replace(/[^a-z]/gi, (c) =>
    /[0-9]/.test(c) ? String.fromCharCode(97 + Number(c)) : /[A-Z]/.test(c) ? c.toLowerCase() : 'x',
  )
}

/**
 * The prefix a run names its pets with, so they can be told apart on a shared target: `pcs-<runId>-`, or, when the
 * judged spec's label refuses it, the first plainer form it takes (the run id in letters, lower, capitalised or upper
 * case), cut down when the label's maxLength leaves too little room after it.
 */
export function runPrefix(spec: Spec, runId: string): string {
  const standard = `pcs-${runId}-`
  const max = (spec.propertiesOf('NewPet') as Record<string, PropertySchema>)[labelOf(spec)]?.maxLength
  const letters = lettersOf(runId)
  const capitalised = letters.charAt(0).toUpperCase() + letters.slice(1)
  const forms =
    max !== undefined && standard.length + 6 > max
      ? [runId, letters, capitalised, letters.toUpperCase()].map((form) => form.slice(0, shortPrefixLength(max)))
      : [standard, `pcs${letters}`, `Pcs${letters}`, `PCS${letters.toUpperCase()}`]
  const found = forms.find((form) => labelTakes(spec, `${form}xx`) || labelTakes(spec, `${form}XX`))
  // A label too short for any mark of the run (a maxLength of 2, say) carries none: its pets are still told apart by id.
  return found ?? (max !== undefined && max < standard.length ? '' : standard)
}

/**
 * How much of the run id a short label keeps: at least 4 characters where 4 more still fit after them, else fewer,
 * so that at least 3 are left for what tells the run's labels apart.
 */
function shortPrefixLength(max: number): number {
  return max >= 8 ? max - 4 : Math.max(0, Math.min(4, max - 3))
}

/** The 32-bit FNV-1a hash of a text's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0
  return hash
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

/** An invalid createPet body, described so a counterexample reads well; render it with `renderInvalid`. */
export interface InvalidBody {
  /** What makes it invalid, e.g. `categoryId is a string`. */
  why: string
  /** A JSON body; absent with `raw` or for no body at all. */
  body?: JsonValue
  /** Send only the first `cut` characters of the body's JSON text: malformed JSON. */
  cut?: number
  /** A body that is not JSON at all. */
  raw?: string
}

/** One representative wrong value of each kind, for the examples every run sends. */
function wrongExamples(schema: PropertySchema): { kind: string; value: JsonValue }[] {
  const all: { kind: string; value: JsonValue }[] = [
    { kind: 'null', value: null },
    { kind: 'a boolean', value: true },
    { kind: 'an array', value: [1] },
    { kind: 'an object', value: { value: 1 } },
  ]
  if (schema.type === 'string') all.push({ kind: 'a number', value: 1 })
  if (schema.type === 'string' && schema.maxLength !== undefined)
    all.push({ kind: `one over maxLength ${schema.maxLength}`, value: textOfLength(schema.maxLength + 1) })
  if (schema.type === 'string' && schema.minLength !== undefined && schema.minLength > 0)
    all.push({ kind: `one under minLength ${schema.minLength}`, value: textOfLength(schema.minLength - 1) })
  if (schema.type === 'integer' && schema.maximum !== undefined)
    all.push({ kind: `above its maximum ${schema.maximum}`, value: BigInt(schema.maximum) + 1n })
  if (schema.type === 'integer' && schema.minimum !== undefined)
    all.push({ kind: `below its minimum ${schema.minimum}`, value: BigInt(schema.minimum) - 1n })
  if (schema.enum)
    all.push(
      { kind: 'outside the enumeration', value: 'lost' },
      { kind: 'outside the enumeration', value: String(schema.enum[0]).toUpperCase() },
    )
  if (schema.type === 'integer') {
    all.push({ kind: 'a string of digits', value: '1' }, { kind: 'a fraction', value: 1.5 })
    if (schema.format === 'int64')
      all.push({ kind: 'beyond int64', value: INT64_MAX + 1n }, { kind: 'beyond int64', value: INT64_MIN - 1n })
  }
  return all
}

/**
 * Invalid bodies every run sends before the random ones: each required field missing, each field with
 * each wrong type (null included), non-object bodies, malformed JSON and no body at all.
 */
export function invalidExamples(spec: Spec): InvalidBody[] {
  const base = sampleNewPet(spec)
  const validNewPet = spec.schema('NewPet')
  const missing = spec.requiredOf('NewPet').map((field): InvalidBody => {
    const { [field]: _dropped, ...rest } = base
    return { why: `${field} is missing`, body: rest }
  })
  // A kind of wrong value the property's own schema accepts (a boolean for a boolean property) is no wrong value.
  const wrong = Object.entries(spec.propertiesOf('NewPet')).flatMap(([field, schema]) =>
    wrongExamples(schema)
      .map((w): InvalidBody => ({ why: `${field} is ${w.kind}`, body: { ...base, [field]: w.value } }))
      .filter((invalid) => validNewPet(invalid.body!).length > 0),
  )
  // A NewPet closed to undeclared properties refuses one more; an open one takes it, and then it is left out.
  const undeclared = undeclaredExample(spec)
  return [
    ...missing,
    ...wrong,
    ...(validNewPet(undeclared.body!).length > 0 ? [undeclared] : []),
    { why: 'the body is null', body: null },
    { why: 'the body is an array', body: [base] },
    { why: 'the body is a string', body: 'Rex' },
    { why: 'the body is cut-off JSON', body: base, cut: 20 },
    { why: 'there is no body' },
  ]
}

/** A valid NewPet but for one property NewPet does not declare. */
function undeclaredExample(spec: Spec): InvalidBody {
  const declared = spec.propertiesOf('NewPet')
  let field = 'undeclared'
  while (Object.hasOwn(declared, field)) field += '_'
  return {
    why: `it has the field "${field}", which #/components/schemas/NewPet does not declare and is closed to`,
    body: { ...sampleNewPet(spec), [field]: 'x' },
  }
}

/**
 * Whether the spec's NewPet refuses a property it does not declare (`additionalProperties: false`): then such a body
 * is one more invalid example, and no longer a choice the interface leaves to the service.
 */
export function refusesUndeclared(spec: Spec): boolean {
  return spec.schema('NewPet')(undeclaredExample(spec).body!).length > 0
}

/** The JSON types a schema takes: its `type`, those of its alternatives, or those of its enumerated values. */
function typesOf(schema: PropertySchema, spec: Spec): (string | undefined)[] {
  const choices = alternatives(schema, spec)
  if (choices.length) return [...new Set(choices.flatMap((choice) => typesOf(choice, spec)))]
  if (schema.type !== undefined) return Array.isArray(schema.type) ? schema.type : [schema.type]
  const values = schema.enum ?? (schema.const === undefined ? [] : [schema.const])
  return [
    ...new Set(
      values.map((v) =>
        v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'bigint' ? 'integer' : typeof v,
      ),
    ),
  ]
}

/** JSON values of every type but the ones a schema allows (or beyond its bounds), for wrong-value cases. */
function wrongValues(schema: PropertySchema, spec: Spec): fc.Arbitrary<{ kind: string; value: JsonValue }>[] {
  const of = (kind: string, value: fc.Arbitrary<JsonValue>) => value.map((v) => ({ kind, value: v }))
  const types = typesOf(schema, spec)
  // Only the JSON types the property's own schema does not take (a boolean is no wrong value of a boolean property).
  const all = [
    ...(types.includes('null') ? [] : [of('null', fc.constant(null))]),
    ...(types.includes('boolean') ? [] : [of('a boolean', fc.boolean())]),
    ...(types.includes('array') ? [] : [of('an array', fc.array(fc.integer(), { maxLength: 2 }))]),
    ...(types.includes('object') ? [] : [of('an object', fc.constant({ value: 1 }))]),
  ]
  if (types.includes('string')) {
    all.push(of('a number', fc.integer()))
    if (schema.maxLength !== undefined) {
      const max = schema.maxLength
      all.push(
        of(
          `over maxLength ${max}`,
          fc.integer({ min: max + 1, max: max + 64 }).map((n) => textOfLength(n)),
        ),
      )
    }
    if (schema.enum) {
      const values = schema.enum.map(String)
      const allowed = new Set(values)
      const outside = fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.constantFrom(...values.map((v) => v.toUpperCase()), ...values.map((v) => ` ${v}`)),
      )
      all.push(
        of(
          'outside the enumeration',
          outside.filter((v) => !allowed.has(v)),
        ),
      )
    }
  }
  if (types.includes('integer')) {
    all.push(of('a string of digits', fc.integer().map(String)))
    all.push(
      of(
        'a fraction',
        fc.integer({ min: -1000, max: 1000 }).map((n) => n + 0.5),
      ),
    )
    if (schema.format === 'int64') {
      all.push(
        of(
          'beyond int64',
          fc.oneof(
            fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 70n }),
            fc.bigInt({ min: -(2n ** 70n), max: INT64_MIN - 1n }),
          ),
        ),
      )
    }
  }
  return all
}

/**
 * An invalid createPet body: each required field missing, each field with each wrong JSON type or a value
 * outside its enumeration, null, non-object bodies, malformed JSON and no body at all.
 */
export function invalidBody(spec: Spec): fc.Arbitrary<InvalidBody> {
  const properties = spec.propertiesOf('NewPet')
  const validNewPet = spec.schema('NewPet')
  const valid = newPet(spec, '')
  const missing = spec.requiredOf('NewPet').map((field) =>
    valid.map((pet): InvalidBody => {
      const { [field]: _dropped, ...rest } = pet
      return { why: `${field} is missing`, body: rest as JsonValue }
    }),
  )
  const wrongType = Object.entries(properties).flatMap(([field, schema]) =>
    wrongValues(schema, spec).flatMap((wrong) => {
      const bodies = fc.tuple(valid, wrong).map(([pet, w]): InvalidBody => ({
        why: `${field} is ${w.kind}`,
        body: { ...pet, [field]: w.value } as JsonValue,
      }))
      // A wrong value that another keyword of the schema happens to allow is no wrong value; a kind of which every
      // value is allowed (null, where an anyOf takes it) is no kind of wrong value at all.
      return filtered(bodies, (invalid) => validNewPet(invalid.body!).length > 0) ?? []
    }),
  )
  const notAnObject = fc.oneof(
    fc.constant<InvalidBody>({ why: 'the body is null', body: null }),
    fc
      .array(valid, { minLength: 0, maxLength: 2 })
      .map((pets): InvalidBody => ({ why: 'the body is an array', body: pets.map(asJson) })),
    fc.string({ maxLength: 10 }).map((text): InvalidBody => ({ why: 'the body is a string', body: text })),
    fc.integer().map((n): InvalidBody => ({ why: 'the body is a number', body: n })),
    fc.boolean().map((b): InvalidBody => ({ why: 'the body is a boolean', body: b })),
  )
  const malformed = fc.tuple(valid, fc.nat()).map(([pet, n]): InvalidBody => {
    const length = stringifyJson(asJson(pet)).length
    return { why: 'the body is cut-off JSON', body: asJson(pet), cut: 1 + (n % (length - 1)) }
  })
  const notJson = fc.constantFrom<InvalidBody>(
    { why: 'the body is form data', raw: 'name=Rex&categoryId=1' },
    { why: 'the body is JSON with a trailing comma', raw: '{"name": "Rex", "categoryId": 1,}' },
    { why: 'the body is single-quoted', raw: "{'name': 'Rex', 'categoryId': 1}" },
  )
  const none = fc.constant<InvalidBody>({ why: 'there is no body' })
  return fc.oneof(
    { weight: 2, arbitrary: fc.oneof(...missing) },
    { weight: 4, arbitrary: fc.oneof(...wrongType) },
    { weight: 2, arbitrary: notAnObject },
    { weight: 1, arbitrary: malformed },
    { weight: 1, arbitrary: notJson },
    { weight: 1, arbitrary: none },
  )
}

/**
 * The text to send for an invalid body, or undefined for no body. Its label (`name`) is prefixed with `marker`, so
 * that a pet the target should not have stored can be recognised, unless that would make the body valid.
 */
export function renderInvalid(invalid: InvalidBody, marker: string, spec: Spec): string | undefined {
  if (invalid.raw !== undefined) return invalid.raw
  if (!('body' in invalid)) return undefined
  const text = stringifyJson(markLabel(spec, invalid.body!, marker))
  return invalid.cut === undefined ? text : text.slice(0, Math.min(invalid.cut, text.length - 1))
}

/**
 * `body` with its label (`name`) prefixed by `marker`, so that a pet stored from it can be traced to the run, unless
 * the prefix changes what the schema says of it (a name under its minLength made long enough, a valid one pushed over
 * its maxLength or out of its pattern): then `body` goes unmarked, and such a pet cannot be traced.
 */
export function markLabel(spec: Spec, body: JsonValue, marker: string): JsonValue {
  const label = labelOf(spec)
  if (marker === '' || body === null || typeof body !== 'object' || Array.isArray(body)) return body
  const value = body[label]
  if (typeof value !== 'string') return body
  const marked = { ...body, [label]: `${marker}${value}` }
  const validate = spec.schema('NewPet')
  return (validate(marked).length === 0) === (validate(body).length === 0) ? marked : body
}

/** A `limit` inside its documented range (a multiple of its `multipleOf`, when it has one). */
export function listLimit(spec: Spec): fc.Arbitrary<number> {
  const { minimum, maximum, multipleOf: step = 1 } = spec.parameter('listPets', 'limit')
  return fc
    .integer({ min: Math.ceil(Number(minimum) / step), max: Math.floor(Number(maximum) / step) })
    .map((k) => k * step)
}

/** `limit` values outside the documented range or not integers: the interface does not say what happens. */
export function outOfRangeLimits(spec: Spec): string[] {
  const { minimum, maximum } = spec.parameter('listPets', 'limit')
  return [String(Number(minimum) - 1), '-1', String(Number(maximum) + 1), '1000000', 'abc', '1.5', '']
}

/** `status` values outside the enumeration: another casing, unknown, empty. */
export function outOfRangeStatuses(spec: Spec): string[] {
  const first = spec.enumOf('PetStatus')[0]!
  return [first.toUpperCase(), first[0]!.toUpperCase() + first.slice(1), 'lost', '']
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

/** A createPet body built around the JSON text of a valid NewPet: `render` turns that text into what is sent. */
export interface BodyShape {
  why: string
  render: (json: string) => string
}

const nested = (open: string, inner: string, close: string, depth: number) =>
  `${open.repeat(depth)}${inner}${close.repeat(depth)}`

/**
 * Texts that are not one JSON value, or not a NewPet however read (RFC 8259): data after the value, a second value,
 * truncation, JSON5-only syntax, and nesting deep enough to break a recursive parser. Each must be answered 400.
 */
export function malformedJson(): BodyShape[] {
  return [
    { why: 'data after the JSON value', render: (json) => `${json} x` },
    { why: 'a second JSON value after the first', render: (json) => `${json}${json}` },
    { why: 'a comma after the JSON value', render: (json) => `${json},` },
    { why: 'an unmatched bracket after the JSON value', render: (json) => `${json}]` },
    { why: 'the JSON cut after its first character', render: (json) => json.slice(0, 1) },
    { why: 'the JSON cut inside the name', render: (json) => json.slice(0, json.indexOf('"', json.indexOf(':')) + 4) },
    { why: 'the JSON cut before its closing brace', render: (json) => json.slice(0, -1) },
    { why: 'a trailing comma inside the object (JSON5)', render: (json) => json.replace(/}$/, ',}') },
    { why: 'an unquoted key (JSON5)', render: (json) => json.replace('"categoryId"', 'categoryId') },
    { why: 'a comment before the object (JSON5)', render: (json) => `/* a comment */ ${json}` },
    { why: 'single-quoted strings (JSON5)', render: (json) => json.replace(/"/g, "'") },
    {
      why: 'status nested 2000 arrays deep',
      render: (json) => json.replace(/}$/, `,"status":${nested('[', '"sold"', ']', 2000)}}`),
    },
    {
      why: 'status nested 2000 objects deep',
      render: (json) => json.replace(/}$/, `,"status":${nested('{"a":', '1', '}', 2000)}}`),
    },
    { why: 'the body nested 10000 arrays deep', render: () => nested('[', '', ']', 10_000) },
  ]
}

/** A categoryId written as this JSON number text, and why it is what it is. */
export interface NumberText {
  why: string
  text: string
}

/**
 * categoryIds a NewPet must not carry, each written as JSON number text: beyond int64 at each end as integers,
 * fractions and exponents (a double-based check lets these through), true fractions, and texts JSON has no number for.
 */
export function invalidNumbers(spec: Spec): NumberText[] {
  const schema = spec.propertiesOf('NewPet').categoryId!
  const { max } = integerBounds(schema)
  const sized = schema.format === 'int32' || schema.format === 'int64'
  const range = sized ? schema.format! : 'its range'
  // With no format and no bound, every integer is valid, however large: only fractions and non-JSON texts are wrong.
  const above = sized || schema.maximum !== undefined || schema.exclusiveMaximum !== undefined
  const below = sized || schema.minimum !== undefined || schema.exclusiveMinimum !== undefined
  // Not `min - 1` written with a fraction: read through a double it rounds to min itself, a value int64 holds.
  return [
    ...(above
      ? [
          { why: `categoryId 2^64, beyond ${range}`, text: String(2n ** 64n) },
          { why: `categoryId 2^70, far beyond ${range}`, text: String(2n ** 70n) },
          { why: `categoryId just beyond ${range}, written with a fraction`, text: `${max + 1n}.0` },
          { why: `categoryId 1e19, beyond ${range}, as an exponent`, text: '1e19' },
          { why: 'categoryId 1e400, beyond any double', text: '1e400' },
        ]
      : []),
    ...(below ? [{ why: `categoryId -1e19, below ${range}, as an exponent`, text: '-1e19' }] : []),
    { why: 'categoryId 0.5', text: '0.5' },
    { why: 'categoryId -1.5', text: '-1.5' },
    { why: 'categoryId 1.5e0, a fraction as an exponent', text: '1.5e0' },
    { why: 'categoryId 2.5E-1', text: '2.5E-1' },
    { why: 'categoryId NaN (not JSON)', text: 'NaN' },
    { why: 'categoryId Infinity (not JSON)', text: 'Infinity' },
    { why: 'categoryId 01 (a leading zero is not JSON)', text: '01' },
    { why: 'categoryId +1 (a plus sign is not JSON)', text: '+1' },
    { why: 'categoryId .5 (not JSON)', text: '.5' },
    { why: 'categoryId 0x10 (not JSON)', text: '0x10' },
    { why: 'categoryId 1e (not JSON)', text: '1e' },
  ]
}

/** A categoryId in a form JSON parsers read differently, with the integer it is (JSON Schema counts 1.0 as one). */
export interface LeewayNumber extends NumberText {
  value: bigint
}

/** Integers written with a fraction or an exponent, within the property's range: accepting or refusing them is the target's choice. */
export function leewayNumbers(spec: Spec): LeewayNumber[] {
  const { min, max } = integerBounds(spec.propertiesOf('NewPet').categoryId!)
  const leeway: LeewayNumber[] = [
    { why: 'categoryId 1 written 1.0', text: '1.0', value: 1n },
    { why: 'categoryId 100 written 1e2', text: '1e2', value: 100n },
    { why: 'categoryId 100 written 1E+2', text: '1E+2', value: 100n },
    { why: 'categoryId 1 written 100e-2', text: '100e-2', value: 1n },
    { why: 'categoryId 0 written -0', text: '-0', value: 0n },
    { why: 'categoryId at its maximum written with a fraction', text: `${max}.0`, value: max },
  ]
  return leeway.filter(({ value }) => value >= min && value <= max)
}

/**
 * `application/json` with a `charset` of UTF-8, in either letter case (RFC 9110 §8.3.1
 * and RFC 8259 §8.1): each must be accepted as the documented request media type.
 */
export const JSON_REQUEST_TYPES = ['application/json; charset=utf-8', 'application/json;charset=UTF-8'] as const

/**
 * Request media types the spec does not document for a NewPet (`''`: no Content-Type at all): accepting or refusing
 * each is the target's choice, observed; a refusal must still store nothing and never be a 5xx.
 */
export const OTHER_REQUEST_TYPES = [
  'application/vnd.petstore+json',
  'Application/JSON',
  'application/json; charset=iso-8859-1',
  'text/plain',
  '',
] as const

/** `limit` texts a listPets query may carry that are not a documented value, beyond the basic out-of-range ones. */
export function oddLimits(spec: Spec): string[] {
  const { maximum } = spec.parameter('listPets', 'limit')
  return [
    '1.0',
    '1e1',
    '+1',
    '01',
    ' 1',
    '1 ',
    '0x10',
    'true',
    '[1]',
    'NaN',
    String(2n ** 31n),
    String(INT64_MAX + 1n),
    String(-(2n ** 31n) - 1n),
    `${maximum}.0`,
    '\uff11',
  ]
}

/** `status` texts near the enumeration's values: truncated, extended, padded, combined, other case, other types. */
export function oddStatuses(spec: Spec): string[] {
  const [first, second] = spec.enumOf('PetStatus') as [string, string]
  return [
    first.slice(0, -1),
    `${first}e`,
    ` ${first}`,
    `${first} `,
    `${first},${second}`,
    first.toUpperCase(),
    'null',
    '1',
    `[${first}]`,
  ]
}
