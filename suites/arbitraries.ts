/**
 * fast-check arbitraries built from the spec: bounds, enumerations and required fields are read from
 * `spec/petstore.yaml`, never retyped.
 */
import fc from 'fast-check'
import { stringifyJson, type JsonValue, type Spec } from '../spec/index.js'

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** The bounds of an integer schema with `format: int64`. */
function int64Bounds(schema: { format?: string; minimum?: number; maximum?: number }): { min: bigint; max: bigint } {
  if (schema.format !== 'int64') throw new Error(`expected an int64 schema, got format ${schema.format}`)
  return {
    min: schema.minimum === undefined ? INT64_MIN : BigInt(schema.minimum),
    max: schema.maximum === undefined ? INT64_MAX : BigInt(schema.maximum),
  }
}

/** A categoryId anywhere in int64, biased towards both ends and the edges of double precision. */
export function categoryId(spec: Spec): fc.Arbitrary<bigint> {
  const { min, max } = int64Bounds(spec.propertiesOf('NewPet').categoryId!)
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
  const tricky = fc.constantFrom('"', "'", '\\', '\n', '\t', '\u0000', '\u2028', '\uFEFF', '🐈‍⬛', 'é', 'e\u0301', '<', '&', '%', '{}')
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
    { weight: 2, arbitrary: fc.array(fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 8 }).map((p) => p.join('')) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 33, maxLength: 120 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 200, maxLength: 400 }) },
  )
}

/** A NewPet as the suite sends it. */
export interface NewPetValue {
  name: string
  categoryId: bigint
  status?: string
}

/** The NewPet as a JSON value (bigint digits kept). */
export function asJson(pet: NewPetValue): JsonValue {
  return pet as unknown as JsonValue
}

/**
 * A valid NewPet: every required field, each documented status and none. Names start with `prefix` so a
 * shared target's records can be traced to the run that made them.
 */
export function newPet(spec: Spec, prefix: string): fc.Arbitrary<NewPetValue> {
  const required = spec.requiredOf('NewPet')
  return fc
    .record(
      { name: anyText(), categoryId: categoryId(spec), status: petStatus(spec) },
      { requiredKeys: required as ('name' | 'categoryId')[] },
    )
    .map((pet) => ({ ...pet, name: `${prefix}${pet.name}` }) as NewPetValue)
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
function wrongExamples(schema: { type?: string; format?: string; enum?: string[] }): { kind: string; value: JsonValue }[] {
  const all: { kind: string; value: JsonValue }[] = [
    { kind: 'null', value: null },
    { kind: 'a boolean', value: true },
    { kind: 'an array', value: [1] },
    { kind: 'an object', value: { value: 1 } },
  ]
  if (schema.type === 'string') all.push({ kind: 'a number', value: 1 })
  if (schema.enum) all.push({ kind: 'outside the enumeration', value: 'lost' }, { kind: 'outside the enumeration', value: schema.enum[0]!.toUpperCase() })
  if (schema.type === 'integer') {
    all.push({ kind: 'a string of digits', value: '1' }, { kind: 'a fraction', value: 1.5 })
    if (schema.format === 'int64') all.push({ kind: 'beyond int64', value: INT64_MAX + 1n }, { kind: 'beyond int64', value: INT64_MIN - 1n })
  }
  return all
}

/**
 * Invalid bodies every run sends before the random ones: each required field missing, each field with
 * each wrong type (null included), non-object bodies, malformed JSON and no body at all.
 */
export function invalidExamples(spec: Spec): InvalidBody[] {
  const base: { [key: string]: JsonValue } = { name: 'Rex', categoryId: 1n, status: spec.enumOf('PetStatus')[0]! }
  const missing = spec.requiredOf('NewPet').map((field): InvalidBody => {
    const { [field]: _dropped, ...rest } = base
    return { why: `${field} is missing`, body: rest }
  })
  const wrong = Object.entries(spec.propertiesOf('NewPet')).flatMap(([field, schema]) =>
    wrongExamples(schema).map((w): InvalidBody => ({ why: `${field} is ${w.kind}`, body: { ...base, [field]: w.value } })),
  )
  return [
    ...missing,
    ...wrong,
    { why: 'the body is null', body: null },
    { why: 'the body is an array', body: [base] },
    { why: 'the body is a string', body: 'Rex' },
    { why: 'the body is cut-off JSON', body: base, cut: 20 },
    { why: 'there is no body' },
  ]
}

/** JSON values of every type but the ones a schema allows, for wrong-type cases. */
function wrongValues(schema: { type?: string; format?: string; enum?: string[] }): fc.Arbitrary<{ kind: string; value: JsonValue }>[] {
  const of = (kind: string, value: fc.Arbitrary<JsonValue>) => value.map((v) => ({ kind, value: v }))
  const all = [
    of('null', fc.constant(null)),
    of('a boolean', fc.boolean()),
    of('an array', fc.array(fc.integer(), { maxLength: 2 })),
    of('an object', fc.constant({ value: 1 })),
  ]
  if (schema.type === 'string') {
    all.push(of('a number', fc.integer()))
    if (schema.enum) {
      const allowed = new Set(schema.enum)
      const outside = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...schema.enum.map((v) => v.toUpperCase()), ...schema.enum.map((v) => ` ${v}`)))
      all.push(of('outside the enumeration', outside.filter((v) => !allowed.has(v))))
    }
  }
  if (schema.type === 'integer') {
    all.push(of('a string of digits', fc.integer().map(String)))
    all.push(of('a fraction', fc.integer({ min: -1000, max: 1000 }).map((n) => n + 0.5)))
    if (schema.format === 'int64') {
      all.push(of('beyond int64', fc.oneof(fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 70n }), fc.bigInt({ min: -(2n ** 70n), max: INT64_MIN - 1n }))))
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
  const valid = newPet(spec, '')
  const missing = spec.requiredOf('NewPet').map((field) =>
    valid.map((pet): InvalidBody => {
      const { [field as keyof NewPetValue]: _dropped, ...rest } = pet
      return { why: `${field} is missing`, body: rest as JsonValue }
    }),
  )
  const wrongType = Object.entries(properties).flatMap(([field, schema]) =>
    wrongValues(schema).map((wrong) =>
      fc.tuple(valid, wrong).map(([pet, w]): InvalidBody => ({ why: `${field} is ${w.kind}`, body: { ...pet, [field]: w.value } as JsonValue })),
    ),
  )
  const notAnObject = fc.oneof(
    fc.constant<InvalidBody>({ why: 'the body is null', body: null }),
    fc.array(valid, { minLength: 0, maxLength: 2 }).map((pets): InvalidBody => ({ why: 'the body is an array', body: pets.map(asJson) })),
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
 * The text to send for an invalid body, or undefined for no body. A string `name` is prefixed with `marker`,
 * so that a pet the target should not have stored can be recognised.
 */
export function renderInvalid(invalid: InvalidBody, marker: string): string | undefined {
  if (invalid.raw !== undefined) return invalid.raw
  if (!('body' in invalid)) return undefined
  const body = invalid.body!
  const marked = body !== null && typeof body === 'object' && !Array.isArray(body) && typeof body.name === 'string' ? { ...body, name: `${marker}${body.name}` } : body
  const text = stringifyJson(marked)
  return invalid.cut === undefined ? text : text.slice(0, Math.min(invalid.cut, text.length - 1))
}

/** A `limit` inside its documented range. */
export function listLimit(spec: Spec): fc.Arbitrary<number> {
  const { minimum, maximum } = spec.parameter('listPets', 'limit')
  return fc.integer({ min: Number(minimum), max: Number(maximum) })
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
