/**
 * Reads a createPet body into the NewPet to store. Each kind of trouble has its own Error code, as
 * fixtures/new-pets.json lists them; the spec's compiled NewPet schema has the last word.
 */
import { INT64_MAX, INT64_MIN, isInt64, parseJson, type JsonValue, type Spec } from '../spec/index.js'
import { ApiError } from './errors.js'
import { describe, headerOf, isBlank, isJsonMediaType, quote, type RequestHeaders } from './request.js'
import { valueMaker } from './generate.js'
import { toInt64, type NewPetRecord } from './store.js'

/** One field rule of NewPet, read from the spec. */
interface FieldRule {
  name: string
  type?: string
  format?: string
  enum?: string[]
}

const utf8 = new TextDecoder('utf-8', { fatal: true })
const INT64_RANGE = `from ${INT64_MIN} to ${INT64_MAX}`

/** Reads createPet bodies by the rules of the spec's NewPet schema. */
export class NewPetReader {
  readonly #required: readonly string[]
  readonly #fields: FieldRule[]
  /** The properties kept: all NewPet declares but write-only ones, which no answer may show. */
  readonly #kept: Declared[]
  /** Their names in the spec's order, unless one of them keeps a body from being stored as sent (see {@link readAsSent}). */
  readonly #keptInOrder: string[] | undefined
  readonly #validate: (value: JsonValue) => string[]
  /** The properties Pet requires that a NewPet may lack (the service's own, or optional in NewPet): the stub makes them. */
  readonly #made: Assigned[]

  constructor(spec: Spec) {
    this.#required = spec.requiredOf('NewPet')
    this.#fields = Object.entries(spec.propertiesOf('NewPet')).map(([name, p]) => ({
      name,
      type: p.type,
      format: p.format,
      enum: p.enum,
    }))
    this.#kept = declaredOf(spec, 'NewPet')
    const names = this.#kept.map(({ name }) => name)
    // An object lists integer-like keys first whatever their order in the text, `id` is the store's own, and a
    // `__proto__` member set by assignment would not be a member.
    const asSent = names.every((name) => name !== 'id' && name !== '__proto__' && !/^(0|[1-9][0-9]*)$/.test(name))
    this.#keptInOrder = asSent ? names : undefined
    this.#validate = spec.schema('NewPet')
    this.#made = requiredMakers(spec).filter(({ name }) => !this.#required.includes(name))
  }

  /**
   * The NewPet in a createPet body (`pet`, what is stored) and the object sent (`sent`, every field as parsed); throws an
   * ApiError naming the first thing wrong with it.
   */
  read(body: Uint8Array | string, headers: RequestHeaders): NewPetRead {
    if (isBlank(body)) throw new ApiError(400, 'missing_body', 'request body is missing: send a NewPet as JSON')
    checkRepresentation(headers)
    // What most clients send is stored as sent: its text is the pet's JSON, unless something in it is to be made.
    const asSent = typeof body === 'string' && this.#keptInOrder ? readAsSent(body, this.#keptInOrder) : undefined
    const value = asSent ?? parseBody(body)
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ApiError(400, 'not_an_object', `request body must be a JSON object (a NewPet); got ${describe(value)}`)
    }
    const problems = this.#validate(value)
    // A NewPet the schema accepts breaks none of the rules below: they only name what is wrong with one it refuses.
    if (problems.length === 0) {
      if (value === asSent && this.#makesNone(asSent)) return { sent: asSent, pet: asSent, json: body as string }
      return { sent: value, pet: this.#record(value) }
    }
    for (const name of this.#required) {
      if (!Object.hasOwn(value, name)) throw new ApiError(400, 'missing_field', `request body: ${name} is required`)
    }
    for (const rule of this.#fields) if (Object.hasOwn(value, rule.name)) this.#checkField(rule, value[rule.name]!)
    throw new ApiError(400, 'invalid_body', `request body: ${problems.join('; ')}`)
  }

  /** True when {@link #record} of this NewPet, read by {@link readAsSent}, would make none of its members. */
  #makesNone(sent: { [key: string]: JsonValue }): boolean {
    for (const { name } of this.#made) if (sent[name] === undefined) return false
    return true
  }

  #checkField(rule: FieldRule, value: JsonValue): void {
    const where = `request body: ${rule.name}`
    if (rule.type === 'integer') {
      const kind = rule.format === 'int64' ? 'an int64 integer' : 'an integer'
      if (typeof value === 'number' && Math.abs(value) === Infinity)
        throw new ApiError(400, 'out_of_range', `${where} must be ${kind}; got a number too large`)
      if (typeof value !== 'bigint' && !(typeof value === 'number' && Number.isInteger(value))) {
        throw new ApiError(400, 'wrong_type', `${where} must be ${kind}; got ${describe(value)}`)
      }
      if (rule.format === 'int64' && !isInt64(BigInt(value))) {
        throw new ApiError(
          400,
          'out_of_range',
          `${where} must be ${kind} (${INT64_RANGE}); got ${digitsOf(BigInt(value))}`,
        )
      }
    } else if (rule.type === 'string') {
      if (typeof value !== 'string')
        throw new ApiError(400, 'wrong_type', `${where} must be a string; got ${describe(value)}`)
      if (rule.enum && !rule.enum.includes(value)) {
        throw new ApiError(
          400,
          `invalid_${rule.name}`,
          `${where} must be one of ${rule.enum.join(', ')}; got ${quote(value)}`,
        )
      }
    }
  }

  /**
   * Every property NewPet declares is kept, in the spec's order, then each one Pet requires that the body does not
   * carry is made: those the service assigns, and those a client may leave out. Extra fields are ignored, never stored;
   * so are write-only ones, once validated: no answer may show them.
   */
  #record(fields: { [key: string]: JsonValue }): NewPetRecord {
    const record = keepDeclared(this.#kept, fields)
    for (const { name, value } of this.#made) if (record[name] === undefined) record[name] = value()
    return record
  }
}

/** A createPet body read: the object sent, the NewPet to store, and that NewPet's JSON when the body already is it. */
export interface NewPetRead {
  /** The body's object, every member as parsed. */
  sent: { [key: string]: JsonValue }
  /** What is stored: the declared members, and those the stub makes. */
  pet: NewPetRecord
  /** The body itself, when it is `pet` exactly as `JSON.stringify` writes it (what most clients send). */
  json?: string
}

/** A property the stub makes itself, as it does the id: its name and how the stub makes a value. */
export interface Assigned {
  name: string
  value: () => JsonValue
}

/**
 * How the stub makes a value for each property the spec's Pet requires but the id ({@link valueMaker}: the moment of
 * creation for a date, else the schema's const, default or example, else a generated value): for a property the
 * service assigns (a revision's `createdAt`), one a client left out, and one a seed pet written before a revision lacks.
 */
export function requiredMakers(spec: Spec): Assigned[] {
  const properties = spec.propertiesOf('Pet')
  return spec
    .requiredOf('Pet')
    .filter((name) => name !== 'id' && properties[name] !== undefined && properties[name].writeOnly !== true)
    .map((name) => ({ name, value: valueMaker(spec, properties[name]!) }))
}

/** A property an object schema declares: its name, and its schema with the document's `$ref`s resolved on demand. */
export interface Declared {
  name: string
  schema?: Node
  resolve?: (node: Node) => Node
}

type Node = Record<string, any>

/** The properties of a component schema that are kept: all it declares but write-only ones, which no answer shows. */
export function declaredOf(spec: Spec, schemaName: string): Declared[] {
  const properties = spec.propertiesOf(schemaName)
  const resolve = (node: Node) => spec.resolve<Node>(node)
  return spec.shownOf(schemaName).map((name) => ({ name, schema: properties[name], resolve }))
}

/**
 * The declared properties present in `fields`, in the order of `declared`, integers as exact {@link Int64}s. One rule
 * at every depth: what the schema does not declare is dropped, at the top level and inside nested objects and arrays
 * of objects alike (an object's `additionalProperties` or `patternProperties`, when given, declare what they allow).
 */
export function keepDeclared(declared: readonly Declared[], fields: { [key: string]: JsonValue }): NewPetRecord {
  const record: NewPetRecord = {}
  for (const { name, schema, resolve } of declared) {
    if (!Object.hasOwn(fields, name)) continue
    const value = schema && resolve ? declaredOnly(schema, fields[name]!, resolve) : fields[name]!
    record[name] = typeof value === 'number' || typeof value === 'bigint' ? toInt64(value) : value
  }
  return record
}

/** The value with what `schema` does not declare left out, at every depth. */
function declaredOnly(schema: Node, value: JsonValue, resolve: (node: Node) => Node, depth = 0): JsonValue {
  if (depth > 32 || value === null || typeof value !== 'object') return value
  const parts = objectParts(resolve(schema), resolve)
  if (Array.isArray(value)) {
    const items = parts.find((part) => part.items && typeof part.items === 'object')?.items as Node | undefined
    return items ? value.map((item) => declaredOnly(items, item, resolve, depth + 1)) : value
  }
  const properties: Record<string, Node> = Object.assign({}, ...parts.map((part) => part.properties ?? {}))
  const open = parts.some((part) => part.additionalProperties === true || typeof part.additionalProperties === 'object')
  const patterns = parts.flatMap((part) => Object.keys(part.patternProperties ?? {}))
  // A schema that says nothing of an object's properties declares none to keep apart: the value stays as sent.
  if (!Object.keys(properties).length && !parts.some((part) => part.type === 'object')) return value
  const kept: { [key: string]: JsonValue } = {}
  for (const [key, item] of Object.entries(value)) {
    const declared = properties[key]
    if (declared) kept[key] = declaredOnly(declared, item, resolve, depth + 1)
    else if (open || patterns.some((pattern) => matches(pattern, key))) kept[key] = item
  }
  return kept
}

/** A schema and its `allOf` parts, each resolved. */
function objectParts(node: Node, resolve: (node: Node) => Node): Node[] {
  return [node, ...((node.allOf as Node[] | undefined) ?? []).flatMap((part) => objectParts(resolve(part), resolve))]
}

function matches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(key)
  } catch {
    return false
  }
}

/** An integer's digits for a message, cut short so that no message grows with the input. */
function digitsOf(value: bigint): string {
  const digits = String(value)
  return digits.length <= 40 ? digits : `${digits.slice(0, 40)}... (${digits.length} digits)`
}

/** Refuses a body the stub cannot read as JSON: another media type, or a content coding. */
function checkRepresentation(headers: RequestHeaders): void {
  const contentType = headerOf(headers, 'content-type')
  if (!isJsonMediaType(contentType)) {
    const got = contentType === undefined ? 'none' : quote(contentType)
    throw new ApiError(400, 'unsupported_media_type', `Content-Type must be application/json; got ${got}`)
  }
  // A compressed body is a representation the stub does not read (RFC 7694: an unsupported content coding).
  const encoding = headerOf(headers, 'content-encoding')?.trim().toLowerCase()
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    throw new ApiError(
      400,
      'unsupported_media_type',
      `Content-Encoding ${quote(encoding)} is not supported; send the JSON uncompressed`,
    )
  }
}

/**
 * Parses the body without losing int64 digits in any notation (`parseJson` of spec/); `__proto__` and
 * `constructor` keys stay plain data. Throws ApiError 400 `invalid_json` saying what is wrong.
 */
export function parseBody(body: Uint8Array | string): JsonValue {
  try {
    return parseJson(typeof body === 'string' ? body : utf8.decode(body), { uniqueKeys: true })
  } catch (error) {
    const why = error instanceof SyntaxError ? error.message : 'it is not UTF-8'
    throw new ApiError(400, 'invalid_json', `request body is not valid JSON: ${why}`)
  }
}

/**
 * The object in `text` when it is written as `JSON.stringify` writes a flat object whose members are among `names`, in
 * that order: no space between tokens, strings of printable ASCII with no escape, integers of at most 15 digits (which a
 * double holds exactly), `true`, `false` and `null`. Then the text is the object's JSON exactly. Anything else, valid
 * JSON or not, gives `undefined`, to be read the long way. Every key is taken from `names`: building the object needs
 * no lookup of the key's text, which makes this about twice as fast as `JSON.parse` on what most clients send.
 */
export function readAsSent(text: string, names: readonly string[]): { [key: string]: JsonValue } | undefined {
  const length = text.length
  if (text.charCodeAt(0) !== 0x7b /* { */) return undefined
  const value: { [key: string]: JsonValue } = {}
  if (text.charCodeAt(1) === 0x7d /* } */) return length === 2 ? value : undefined
  let i = 1
  let next = 0 // where in `names` the next key may be
  for (;;) {
    // The key: a name from `next` on, in quotes, then a colon.
    if (text.charCodeAt(i) !== 0x22 /* " */) return undefined
    let key: string | undefined
    for (; next < names.length && key === undefined; next++) {
      const name = names[next]!
      if (text.charCodeAt(i + 1 + name.length) === 0x22 && text.startsWith(name, i + 1)) key = name
    }
    if (key === undefined) return undefined
    i += key.length + 2
    if (text.charCodeAt(i++) !== 0x3a /* : */) return undefined
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const start = ++i
      for (let d = text.charCodeAt(i); d !== 0x22; d = text.charCodeAt(++i)) {
        if (!(d >= 0x20 && d <= 0x7f) || d === 0x5c /* \ */) return undefined // the end of the text reads as NaN
      }
      value[key] = text.slice(start, i++)
    } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d /* - */) {
      const negative = c === 0x2d
      const start = negative ? ++i : i
      let number = 0
      for (let digit = text.charCodeAt(i) - 0x30; digit >= 0 && digit <= 9; digit = text.charCodeAt(++i) - 0x30) {
        number = number * 10 + digit
      }
      const digits = i - start
      // No digit, a leading zero (-0 included) or more digits than a double holds: read the long way.
      if (digits === 0 || digits > 15 || (text.charCodeAt(start) === 0x30 && (digits > 1 || negative))) return undefined
      value[key] = negative ? -number : number
    } else if (c === 0x74 /* t */ && text.startsWith('true', i)) {
      value[key] = true
      i += 4
    } else if (c === 0x66 /* f */ && text.startsWith('false', i)) {
      value[key] = false
      i += 5
    } else if (c === 0x6e /* n */ && text.startsWith('null', i)) {
      value[key] = null
      i += 4
    } else return undefined
    const after = text.charCodeAt(i++)
    if (after === 0x7d /* } */) return i === length ? value : undefined
    if (after !== 0x2c /* , */) return undefined
  }
}
