import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { parse as parseYaml } from 'yaml'
import { readClosedCompositions, type Reading } from './closed.js'
import { validationView, type JsonValue } from './json.js'

export { INT64_MAX, INT64_MIN, isInt64 } from './int64.js'
export { parseJson, stringifyJson, validationView, type JsonValue } from './json.js'
export { PACKAGE_ROOT, packageFile } from './package-files.js'
export type { Reading } from './closed.js'
export type { Error, NewPet, Pet, Pets, PetStatus } from './client-types.js'
export {
  RFC_REFERENCE,
  RFC_SECTIONS,
  basisFor,
  basisOf,
  everyOperation,
  everyResponse,
  operationPointer,
  parameterPointer,
  pointer,
  renderBasis,
  resolvePointer,
  versionPrefix,
  type Basis,
  type BasisLine,
  type BasisRef,
  type RfcSection,
  type SpecPointer,
} from './basis.js'

// ajv-formats is CommonJS; under ESM its callable sits on `default`.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** Where the single source of truth lives. */
export const SPEC_PATH = fileURLToPath(new URL('./petstore.yaml', import.meta.url))

/** The operations of the interface. */
export type OperationId = 'listPets' | 'createPet' | 'getPet'

/** One operation as the spec describes it. */
export interface Operation {
  operationId: OperationId
  method: 'GET' | 'POST'
  /** Path relative to the base address, e.g. `/pets/{petId}`. */
  path: string
  /** Documented statuses, as strings, in the spec's order. */
  statuses: string[]
  /**
   * Statuses the spec marks `x-interface-silent`: documented, but for a case a conformant target may never meet,
   * so the coverage check does not ask for them (none today: listPets' answer to an out-of-range `limit` is
   * recorded outside the contract, in `x-outside-contract`).
   */
  silentStatuses: string[]
  deprecated: boolean
  /** Removal date (`x-sunset`) of a deprecated operation. */
  sunset?: Date
  /** Query and path parameters by name. */
  parameters: Record<string, ParameterSchema>
}

/** The parts of a parameter schema the kit reads. */
export interface ParameterSchema {
  in: 'query' | 'path'
  required: boolean
  type?: string
  format?: string
  minimum?: number
  maximum?: number
  default?: unknown
  enum?: string[]
  /** An integer parameter's values are multiples of it: a whole step of 2 or more, when the schema gives one. */
  multipleOf?: number
}

/** A compiled validator whose findings are plain sentences. */
export interface Validator {
  (value: JsonValue): string[]
}

/** A response header the spec describes: its name, whether it is required, and its schema compiled. */
export interface ResponseHeader {
  name: string
  required: boolean
  validate: Validator
  /** The header's schema as the document writes it (`$ref`s unresolved). */
  schema: Record<string, any>
  /** The header's own `example`, when it has one. */
  example?: JsonValue
  /** What the header says, in the spec's words, when it says. */
  description?: string
}

type Doc = Record<string, any>

const jsonPointer = (...parts: string[]) =>
  '#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')

function explain(errors: ErrorObject[] | null | undefined, subject: string): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath ? `${subject}${e.instancePath}` : subject
    const allowed =
      e.keyword === 'enum' ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : ''
    return `${where} ${e.message}${allowed}`
  })
}

/** The loaded spec: its operations, schemas and compiled validators. */
export class Spec {
  readonly doc: Doc
  readonly version: string
  readonly operations: Record<OperationId, Operation>
  readonly #ajv: Ajv2020
  readonly #validators = new Map<string, Validator>()
  readonly #headers = new Map<string, ResponseHeader[]>()

  /** The document's text, when it was read from text (the examples are read from it again with int64 digits kept). */
  readonly text: string | undefined
  /**
   * What the kit does not take literally, shown to the user (none for the bundled spec): a schema that, taken
   * literally, refuses what it declares (a closed NewPet inside Pet), judged and served as closed as a whole; an
   * operation that is not one of this interface's, neither served nor judged.
   */
  readonly readings: Reading[]

  constructor(doc: Doc, text?: string) {
    this.doc = doc
    this.text = text
    this.version = String(doc.info?.version)
    // OpenAPI 3.1 schema objects are JSON Schema 2020-12 plus a few annotation keywords, extensions (`x-...`) and
    // formats of the spec's own (`format` is an open string). Ajv's strict mode stays on for unknown keywords (a
    // misspelt one is refused) but not for what JSON Schema allows: `required` naming a property another subschema of
    // an allOf defines, `unevaluatedProperties` without `type: object`, tuples without bounds.
    const { extensions, formats } = extensionsAndFormats(doc)
    this.#ajv = new Ajv2020({
      allErrors: true,
      strict: true,
      strictRequired: false,
      strictTypes: false,
      strictTuples: false,
    })
      .addVocabulary(['example', 'xml', 'externalDocs', 'discriminator', ...extensions])
      .addVocabulary([
        'openapi',
        'info',
        'jsonSchemaDialect',
        'servers',
        'security',
        'tags',
        'paths',
        'webhooks',
        'components',
      ]) // the document's top level
    addFormats(this.#ajv)
    for (const format of formats) if (!(format in this.#ajv.formats)) this.#ajv.addFormat(format, true) // annotation only
    // ajv-formats accepts any integer as int64; bound it (validationView maps out-of-range integers to ±2^64).
    this.#ajv.addFormat('int64', {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 63,
    })
    const judged = readClosedCompositions(doc)
    this.#ajv.addSchema(judged.doc, 'petstore')
    const unknown: Reading[] = []
    this.operations = this.#readOperations(unknown)
    this.readings = [...judged.readings, ...unknown]
  }

  /** The interface's operations; any other the document describes is left out, with a reading saying so. */
  #readOperations(unknown: Reading[]): Record<OperationId, Operation> {
    const operations = {} as Record<OperationId, Operation>
    for (const [path, item] of Object.entries<Doc>(this.doc.paths ?? {})) {
      for (const method of HTTP_METHODS) {
        const op = item[method]
        if (!op || typeof op !== 'object') continue
        const known = Object.hasOwn(OPERATIONS, op.operationId) ? OPERATIONS[op.operationId as OperationId] : undefined
        if (known?.method !== method.toUpperCase() || known.path !== path) {
          const name =
            typeof op.operationId === 'string'
              ? `${op.operationId} (${method.toUpperCase()} ${path})`
              : `${method.toUpperCase()} ${path}`
          unknown.push({
            pointer: jsonPointer('paths', path, method),
            text: `${jsonPointer('paths', path, method)}: ${name} is not an operation of this interface (${OPERATION_IDS.join(', ')}); the kit neither serves nor judges it`,
          })
          continue
        }
        const parameters: Record<string, ParameterSchema> = {}
        for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Doc) => this.resolve(p))) {
          const schema = this.resolve(p.schema ?? {})
          parameters[p.name] = { in: p.in, required: Boolean(p.required), ...schema, ...inclusiveBounds(schema) }
        }
        operations[op.operationId as OperationId] = {
          operationId: op.operationId,
          method: known.method,
          path,
          statuses: Object.keys(op.responses ?? {}),
          silentStatuses: Object.entries<Doc>(op.responses ?? {})
            .filter(([, response]) => this.resolve(response)['x-interface-silent'] === true)
            .map(([status]) => status),
          deprecated: op.deprecated === true,
          sunset: op['x-sunset'] ? new Date(op['x-sunset']) : undefined,
          parameters,
        }
      }
    }
    return operations
  }

  /** Follows a local `$ref` (one hop at a time) to the object it names. */
  resolve<T = Doc>(node: Doc): T {
    let current = node
    while (current && typeof current.$ref === 'string') {
      current = current.$ref
        .replace(/^#\//, '')
        .split('/')
        .map((p: string) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce((at: Doc, key: string) => at?.[key], this.doc)
    }
    return current as T
  }

  /** The methods the document describes on `path`, upper-case: the interface's operations and any other there. */
  methodsOf(path: string): string[] {
    const item: Doc = this.doc.paths?.[path] ?? {}
    return HTTP_METHODS.filter((method) => item[method] && typeof item[method] === 'object').map((method) =>
      method.toUpperCase(),
    )
  }

  /** The operation named `operationId`; throws on an unknown name. */
  operation(operationId: OperationId): Operation {
    const op = this.operations[operationId]
    if (!op) throw new Error(`no operation ${operationId} in the spec`)
    return op
  }

  /** Documented statuses of an operation, as strings. */
  statuses(operationId: OperationId): string[] {
    return this.operation(operationId).statuses
  }

  /** A query or path parameter's schema. */
  parameter(operationId: OperationId, name: string): ParameterSchema {
    const p = this.operation(operationId).parameters[name]
    if (!p) throw new Error(`no parameter ${name} on ${operationId}`)
    return p
  }

  /** The values of an enumeration schema, e.g. `PetStatus`. */
  enumOf(schemaName: string): string[] {
    return [...(this.doc.components.schemas[schemaName].enum as string[])]
  }

  /** Names of the required properties of an object schema, e.g. `NewPet`, its `allOf` parts included (`Pet`). */
  requiredOf(schemaName: string): string[] {
    return [
      ...new Set(this.#objectParts(this.doc.components.schemas[schemaName]).flatMap((part) => part.required ?? [])),
    ]
  }

  /**
   * Properties of an object schema, each resolved, its `allOf` parts included in order (`Pet`: NewPet's, then `id`):
   * the data model as the spec declares it.
   */
  propertiesOf(schemaName: string): Record<string, Doc> {
    const entries = this.#objectParts(this.doc.components.schemas[schemaName]).flatMap((part) =>
      Object.entries<Doc>(part.properties ?? {}),
    )
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(v)]))
  }

  /**
   * The names of the properties of an object schema that an answer may show: all but the `writeOnly` ones, which a
   * client may send and a service never shows when it is read (JSON Schema Validation 2020-12 §9.4; a password, say).
   */
  shownOf(schemaName: string): string[] {
    return Object.entries(this.propertiesOf(schemaName))
      .filter(([, schema]) => schema.writeOnly !== true)
      .map(([name]) => name)
  }

  /** The schema and its `allOf` parts, each resolved, depth first. */
  #objectParts(node: Doc | undefined): Doc[] {
    const schema = node ? this.resolve(node) : undefined
    if (!schema) return []
    return [schema, ...((schema.allOf as Doc[] | undefined) ?? []).flatMap((part) => this.#objectParts(part))]
  }

  /**
   * The component schema a property's declaration refers to (`PetStatus` for NewPet's `status`), or `undefined`
   * for an inline schema.
   */
  refOf(schemaName: string, property: string): string | undefined {
    for (const part of this.#objectParts(this.doc.components.schemas[schemaName])) {
      const ref = (part.properties as Record<string, Doc> | undefined)?.[property]?.$ref
      if (typeof ref === 'string') return ref.split('/').pop()
    }
    return undefined
  }

  /** The validator of a component schema (`Pet`, `NewPet`, `Error`, ...). */
  schema(name: string): Validator {
    return this.#compile(jsonPointer('components', 'schemas', name), name)
  }

  /**
   * The validator of an operation's response body for a status, or `undefined` when the spec documents
   * no JSON body for it.
   */
  response(operationId: OperationId, status: number | string): Validator | undefined {
    const op = this.operation(operationId)
    const operation = this.doc.paths[op.path][op.method.toLowerCase()]
    const ref = operation.responses?.[String(status)]
    if (!ref) return undefined
    // Point Ajv at the response object where it really is, so `$ref`s inside resolve.
    const pointer = ref.$ref
      ? `${ref.$ref}/content/application~1json/schema`
      : jsonPointer(
          'paths',
          op.path,
          op.method.toLowerCase(),
          'responses',
          String(status),
          'content',
          'application/json',
          'schema',
        )
    if (!this.resolve(ref).content?.['application/json']?.schema) return undefined
    return this.#compile(pointer, `${operationId} ${status} body`)
  }

  /**
   * The headers the spec describes for an operation's response with this status (e.g. getPet 200: `Deprecation`,
   * `Sunset`, `Link`), each with its schema compiled; `[]` when it describes none or the status is not documented.
   */
  responseHeaders(operationId: OperationId, status: number | string): ResponseHeader[] {
    const key = `${operationId} ${status}`
    const cached = this.#headers.get(key)
    if (cached) return cached
    const op = this.operation(operationId)
    const ref = this.doc.paths[op.path][op.method.toLowerCase()].responses?.[String(status)]
    // Pointers follow the document as written, so a `$ref` (to a shared response or header) is followed where it points.
    const responsePointer =
      ref?.$ref ?? jsonPointer('paths', op.path, op.method.toLowerCase(), 'responses', String(status))
    const described = ref ? Object.entries<Doc>(this.resolve(ref).headers ?? {}) : []
    const headers = described.map(([name, header]): ResponseHeader => {
      const pointer = `${header.$ref ?? `${responsePointer}/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`}/schema`
      const resolved = this.resolve(header)
      return {
        name,
        required: resolved.required === true,
        validate: this.#compile(pointer, `${name} header`),
        schema: resolved.schema ?? {},
        ...(resolved.example !== undefined ? { example: resolved.example as JsonValue } : {}),
        ...(typeof resolved.description === 'string' ? { description: resolved.description } : {}),
      }
    })
    this.#headers.set(key, headers)
    return headers
  }

  /** Name of the component schema a response body refers to (`Pet`, `Pets`, `Error`), for messages. */
  responseSchemaName(operationId: OperationId, status: number | string): string | undefined {
    const op = this.operation(operationId)
    const ref = this.doc.paths[op.path][op.method.toLowerCase()].responses?.[String(status)]
    const schema = ref && this.resolve(ref).content?.['application/json']?.schema
    return typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined
  }

  /** The validator of the schema at `pointer`, its messages naming `subject`; one per pair, since shared components have many subjects. */
  #compile(pointer: string, subject: string): Validator {
    const key = `${pointer} ${subject}`
    const cached = this.#validators.get(key)
    if (cached) return cached
    const compiled: ValidateFunction | undefined = this.#ajv.getSchema(`petstore${pointer}`)
    if (!compiled) throw new Error(`no schema at ${pointer} in the spec`)
    const validator: Validator = (value) => (compiled(validationView(value)) ? [] : explain(compiled.errors, subject))
    this.#validators.set(key, validator)
    return validator
  }
}

/** A spec that cannot be read, or is not a revision of this interface; the message is one sentence naming the file. */
export class SpecError extends Error {
  override name = 'SpecError'
}

/** The methods an OpenAPI path item may describe an operation for. */
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** The operations every revision of the interface keeps, with their methods and paths. */
const OPERATIONS: Record<OperationId, { method: Operation['method']; path: string }> = {
  listPets: { method: 'GET', path: '/pets' },
  createPet: { method: 'POST', path: '/pets' },
  getPet: { method: 'GET', path: '/pets/{petId}' },
}

/** The component schemas the kit reads by name. */
const SCHEMAS = ['PetStatus', 'NewPet', 'Pet', 'Pets', 'Error'] as const

/** The properties of an animal record every revision keeps (the interface's name, category and status). */
const RECORD = ['name', 'categoryId', 'status'] as const

/** The operation ids the kit knows, in the order of {@link OperationId} (a test pins them to the bundled spec). */
export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[]

/**
 * A spec from its text, checked to be a revision of this interface: OpenAPI 3.1 whose schemas compile, with the
 * three operations at their methods and paths and the schemas the kit reads. Throws {@link SpecError} saying what
 * is wrong, in one sentence.
 */
export function parseSpec(text: string, where = 'the spec'): Spec {
  let doc: Doc
  try {
    doc = parseYaml(text) as Doc
  } catch (error) {
    throw new SpecError(`${where} is not valid YAML or JSON: ${firstLine(error)}`)
  }
  if (doc === null || typeof doc !== 'object' || !/^3\.1\.[0-9]+$/.test(String(doc.openapi)))
    throw new SpecError(`${where} is not an OpenAPI 3.1 document (openapi: ${String(doc?.openapi)})`)
  let loaded: Spec
  try {
    loaded = new Spec(doc, text)
  } catch (error) {
    throw new SpecError(`${where} is not valid OpenAPI: ${firstLine(error)}`)
  }
  for (const [operationId, { method, path }] of Object.entries(OPERATIONS)) {
    const op = loaded.operations[operationId as OperationId]
    if (!op || op.method !== method || op.path !== path)
      throw new SpecError(
        `${where} is not a revision of the Pet Store interface: it has no operation ${operationId} (${method} ${path})`,
      )
  }
  // The largest page is what the kit fills and reads whole: a limit without both bounds leaves no page to fill.
  const limit = loaded.operations.listPets.parameters.limit
  if (limit?.minimum === undefined || limit.maximum === undefined || limit.minimum > limit.maximum)
    throw new SpecError(
      `${where} is not a revision the kit can judge: listPets' limit needs a minimum and a maximum (inclusive or exclusive), the maximum not below the minimum`,
    )
  for (const name of SCHEMAS) {
    if (!doc.components?.schemas?.[name])
      throw new SpecError(`${where} is not a revision of the Pet Store interface: it has no schema ${name}`)
  }
  try {
    for (const name of SCHEMAS) loaded.schema(name)
  } catch (error) {
    throw new SpecError(`${where} is not valid OpenAPI: ${firstLine(error)}`)
  }
  // The record every revision keeps: a name, a category reference and an availability status, its values listed.
  const declared = loaded.propertiesOf('NewPet')
  for (const name of RECORD)
    if (!Object.hasOwn(declared, name))
      throw new SpecError(`${where} is not a revision of the Pet Store interface: NewPet declares no ${name}`)
  const statuses: unknown = doc.components.schemas.PetStatus.enum
  if (!Array.isArray(statuses) || statuses.length === 0 || !statuses.every((value) => typeof value === 'string'))
    throw new SpecError(
      `${where} is not a revision of the Pet Store interface: PetStatus does not list its values as an enum of strings`,
    )
  return loaded
}

/** The extension keywords (`x-...`) and the `format` values a document uses anywhere. */
function extensionsAndFormats(doc: Doc): { extensions: string[]; formats: string[] } {
  const extensions = new Set<string>()
  const formats = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== 'object') return
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) extensions.add(key)
      if (key === 'format' && typeof value === 'string') formats.add(value)
      visit(value)
    }
  }
  visit(doc)
  return { extensions: [...extensions], formats: [...formats] }
}

/** An integer schema's bounds as written: inclusive, exclusive, or both. */
export interface IntegerBoundsSchema {
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
}

/**
 * The inclusive bounds an integer schema declares, exclusive ones read as the inclusive ones they mean
 * (`exclusiveMaximum: 101` is 100), the tighter one where it declares both; a side it does not bound is absent.
 */
export function declaredBounds(schema: IntegerBoundsSchema): { min?: bigint; max?: bigint } {
  const tighter = (a: bigint | undefined, b: bigint | undefined, pick: (x: bigint, y: bigint) => bigint) =>
    a === undefined ? b : b === undefined ? a : pick(a, b)
  const num = (value: unknown): value is number => typeof value === 'number'
  const min = tighter(
    num(schema.minimum) ? BigInt(Math.ceil(schema.minimum)) : undefined,
    num(schema.exclusiveMinimum) ? BigInt(Math.floor(schema.exclusiveMinimum)) + 1n : undefined,
    (x, y) => (x > y ? x : y),
  )
  const max = tighter(
    num(schema.maximum) ? BigInt(Math.floor(schema.maximum)) : undefined,
    num(schema.exclusiveMaximum) ? BigInt(Math.ceil(schema.exclusiveMaximum)) - 1n : undefined,
    (x, y) => (x < y ? x : y),
  )
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) }
}

/**
 * An integer parameter's range as `minimum` and `maximum`, however the spec writes its bounds, and its `multipleOf`
 * only where it rules some integers out (a whole step of 2 or more).
 */
function inclusiveBounds(schema: Doc): Pick<ParameterSchema, 'minimum' | 'maximum' | 'multipleOf'> {
  if (schema.type !== 'integer') return {}
  const { min, max } = declaredBounds(schema)
  const step: unknown = schema.multipleOf
  return {
    ...(min === undefined ? {} : { minimum: Number(min) }),
    ...(max === undefined ? {} : { maximum: Number(max) }),
    multipleOf: Number.isInteger(step) && (step as number) > 1 ? (step as number) : undefined,
  }
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0]!
}

/** Reads and parses a spec file, checked as {@link parseSpec} does. Throws {@link SpecError} naming the path. */
export function loadSpec(path: string = SPEC_PATH): Spec {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new SpecError(`cannot read the spec at ${path}: ${firstLine(error)}`)
  }
  return parseSpec(text, `the spec ${path}`)
}

let bundled: Spec | undefined
let current: Spec | undefined

/** The spec in use: the one a run or a stub was given ({@link useSpec}), else the bundled one, read once. */
export function spec(): Spec {
  return current ?? bundledSpec()
}

/** The spec bundled with the kit (`spec/petstore.yaml`), read once, whatever spec is in use. */
export function bundledSpec(): Spec {
  return (bundled ??= loadSpec())
}

/**
 * Makes `revision` the spec in use (a spec object, a file path, or `undefined` for the bundled one) and returns it.
 * Code that reads `spec()` at call time follows it; a vitest worker calls this before its scenarios run.
 */
export function useSpec(revision: Spec | string | undefined): Spec {
  current = revision === undefined ? undefined : typeof revision === 'string' ? loadSpec(revision) : revision
  return spec()
}

/** The spec an option names: a loaded spec, a file path, or (when absent) the bundled one. Throws {@link SpecError}. */
export function specFrom(option: Spec | string | undefined): Spec {
  return option === undefined ? bundledSpec() : typeof option === 'string' ? loadSpec(option) : option
}
