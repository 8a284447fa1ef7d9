/**
 * Invalid values built from the spec: bodies a createPet must refuse (missing fields, wrong types, values outside
 * their bounds), malformed JSON, numbers a NewPet must not carry, and request media types.
 */
import fc from 'fast-check'
import { INT64_MAX, INT64_MIN, stringifyJson, type JsonValue, type Spec } from '../../spec/index.js'
import {
  alternatives,
  asJson,
  filtered,
  integerBounds,
  newPet,
  sampleNewPet,
  textOfLength,
  type PropertySchema,
} from './valid.js'
import { bodyEdges } from './edges.js'

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
  // What the coverage phase sends already (the same body, from a keyword's edge) is not sent twice.
  const edges = new Set(bodyEdges(spec).map((edge) => stringifyJson(edge.body)))
  const fresh = (invalid: InvalidBody) =>
    !('body' in invalid) || invalid.cut !== undefined || !edges.has(stringifyJson(invalid.body!))
  return [
    ...missing,
    ...wrong,
    ...(validNewPet(undeclared.body!).length > 0 ? [undeclared] : []),
    { why: 'the body is null', body: null },
    { why: 'the body is an array', body: [base] },
    { why: 'the body is a string', body: 'Rex' },
    { why: 'the body is cut-off JSON', body: base, cut: 20 },
    { why: 'there is no body' },
  ].filter(fresh)
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
  let arbitrary = INVALID_BODIES.get(spec)
  if (!arbitrary) INVALID_BODIES.set(spec, (arbitrary = invalidBodyOf(spec)))
  return arbitrary
}

/**
 * Each spec's invalid bodies, built once: building them draws a sample of every wrong value to check that the schema
 * refuses it (a revision with nested objects draws thousands of NewPets), the same for every run and seed.
 */
const INVALID_BODIES = new WeakMap<Spec, fc.Arbitrary<InvalidBody>>()

function invalidBodyOf(spec: Spec): fc.Arbitrary<InvalidBody> {
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
