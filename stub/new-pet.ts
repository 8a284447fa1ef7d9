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
  readonly #required: string[]
  readonly #fields: FieldRule[]
  /** The properties kept: all NewPet declares but write-only ones, which no answer may show. */
  readonly #kept: Declared[]
  /** Their names in the spec's order, unless one of them keeps a body from being stored as sent (see #keptAsSent). */
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
    // An object lists integer-like keys first whatever their order in the text, and `id` is the store's own.
    this.#keptInOrder = names.some((name) => name === 'id' || /^(0|[1-9][0-9]*)$/.test(name)) ? undefined : names
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
    const { value, compact } = readJson(body)
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ApiError(400, 'not_an_object', `request body must be a JSON object (a NewPet); got ${describe(value)}`)
    }
    const problems = this.#validate(value)
    // A NewPet the schema accepts breaks none of the rules below: they only name what is wrong with one it refuses.
    if (problems.length === 0) {
      // What most clients send is stored as sent: its text is the pet's JSON, and nothing in it is to be dropped or made.
      if (compact && typeof body === 'string' && this.#keptAsSent(value)) return { sent: value, pet: value, json: body }
      return { sent: value, pet: this.#record(value) }
    }
    for (const name of this.#required) {
      if (!Object.hasOwn(value, name)) throw new ApiError(400, 'missing_field', `request body: ${name} is required`)
    }
    for (const rule of this.#fields) if (Object.hasOwn(value, rule.name)) this.#checkField(rule, value[rule.name]!)
    throw new ApiError(400, 'invalid_body', `request body: ${problems.join('; ')}`)
  }

  /**
   * True when {@link #record} of this compact (flat, integers of at most 15 digits) NewPet gives it back as it is, its
   * members in the same order: each is a kept property, in the spec's order, and none the stub makes is missing.
   */
  #keptAsSent(sent: { [key: string]: JsonValue }): boolean {
    const kept = this.#keptInOrder
    if (kept === undefined) return false
    let at = 0
    for (const key in sent) {
      while (at < kept.length && kept[at] !== key) at++
      if (at === kept.length) return false
      at++
    }
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
 * `constructor` keys stay plain data. A flat object whose numbers a double holds exactly goes through
 * `JSON.parse`, about three times faster, when it kept every member (it keeps the last of duplicate
 * keys, which `parseJson` refuses); everything else, and every malformed body, goes to `parseJson`.
 */
export function parseBody(body: Uint8Array | string): JsonValue {
  return readJson(body).value
}

/** {@link parseBody}'s value, and whether the text is compact (see {@link PlainScan}). */
function readJson(body: Uint8Array | string): { value: JsonValue; compact: boolean } {
  try {
    const text = typeof body === 'string' ? body : utf8.decode(body)
    const scan = scanPlain(text)
    if (scan !== undefined) {
      try {
        const value = JSON.parse(text) as Record<string, JsonValue>
        let kept = 0
        for (const _ in value) kept++ // JSON.parse makes own data properties only, on a plain object
        if (kept === scan.members) return { value, compact: scan.compact }
      } catch {
        // malformed: parseJson below says how
      }
    }
    return { value: parseJson(text), compact: false }
  } catch (error) {
    const why =
      error instanceof RangeError
        ? 'it is nested too deeply'
        : error instanceof SyntaxError
          ? error.message
          : 'it is not UTF-8'
    throw new ApiError(400, 'invalid_json', `request body is not valid JSON: ${why}`)
  }
}

/** What {@link scanPlain} finds in the text of a plain object. */
interface PlainScan {
  /** How many members it has. */
  members: number
  /**
   * Whether it is written as `JSON.stringify` writes its value: ASCII, with no space between tokens, no escape, and no
   * fraction, exponent or `-0` in a number (so every number is an integer of at most 15 digits).
   */
  compact: boolean
}

/**
 * What `text` holds, if it is an object with no nested object or array and no number that a double could round (an
 * exponent, or more than 15 digits); else `undefined`. Valid JSON is assumed: JSON.parse checks that afterwards, and the
 * count (colons outside strings) only holds for valid JSON.
 */
function scanPlain(text: string): PlainScan | undefined {
  let i = 0
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++
  let compact = i === 0
  if (text.charCodeAt(i) !== 0x7b /* { */) return undefined
  let members = 0
  let digits = 0 // digits of the number being read, on both sides of its decimal point
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0x30 && c <= 0x39) {
      if (++digits > 15) return undefined
      continue
    }
    if (c === 0x2e /* . */) {
      compact = false
      continue
    }
    if (digits > 0 && (c === 0x65 || c === 0x45) /* e E */) return undefined
    digits = 0
    if (c === 0x22 /* " */) {
      // To the quote that closes the string.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x22) break
        if (d === 0x5c /* \ */) {
          compact = false
          i++
        } else if (d >= 0x80) compact = false
      }
    } else if (c === 0x3a /* : */) members++
    else if (c === 0x7b || c === 0x5b /* { [ */) return undefined
    else if (c <= 0x20 || c >= 0x80 || (c === 0x2d /* - */ && text.charCodeAt(i + 1) === 0x30)) compact = false
  }
  return { members, compact }
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}
