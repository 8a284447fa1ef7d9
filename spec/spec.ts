/** The loaded spec's reading helpers: its operations, schemas, response headers and compiled validators. */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { inclusiveBounds } from './bounds.js'
import { readClosedCompositions, type Reading } from './closed.js'
import { validationView, type JsonValue } from './json.js'
import {
  HTTP_METHODS,
  OPERATION_IDS,
  OPERATIONS,
  type Doc,
  type Operation,
  type OperationId,
  type ParameterSchema,
  type ResponseHeader,
  type Validator,
} from './shape.js'

// ajv-formats is CommonJS; under ESM its callable sits on `default`.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

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
  /** What the lookups below found, by their arguments: a run asks the same questions for every exchange it judges. */
  readonly #found = new Map<string, unknown>()

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
  requiredOf(schemaName: string): readonly string[] {
    return this.#once(`required ${schemaName}`, () => [
      ...new Set(this.#objectParts(this.doc.components.schemas[schemaName]).flatMap((part) => part.required ?? [])),
    ])
  }

  /**
   * Properties of an object schema, each resolved, its `allOf` parts included in order (`Pet`: NewPet's, then `id`):
   * the data model as the spec declares it.
   */
  propertiesOf(schemaName: string): Readonly<Record<string, Doc>> {
    return this.#once(`properties ${schemaName}`, () => {
      const entries = this.#objectParts(this.doc.components.schemas[schemaName]).flatMap((part) =>
        Object.entries<Doc>(part.properties ?? {}),
      )
      return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(v)]))
    })
  }

  /**
   * The names of the properties of an object schema that an answer may show: all but the `writeOnly` ones, which a
   * client may send and a service never shows when it is read (JSON Schema Validation 2020-12 §9.4; a password, say).
   */
  shownOf(schemaName: string): readonly string[] {
    return this.#once(`shown ${schemaName}`, () =>
      Object.entries(this.propertiesOf(schemaName))
        .filter(([, schema]) => schema.writeOnly !== true)
        .map(([name]) => name),
    )
  }

  /** `find()`'s result, found once for `key` and frozen (the document does not change, and neither may what it says). */
  #once<T extends object>(key: string, find: () => T): T {
    let found = this.#found.get(key) as T | undefined
    if (found === undefined) this.#found.set(key, (found = Object.freeze(find())))
    return found
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
    const key = `response ${operationId} ${status}`
    if (this.#found.has(key)) return this.#found.get(key) as Validator | undefined
    const validator = this.#responseValidator(operationId, status)
    this.#found.set(key, validator)
    return validator
  }

  #responseValidator(operationId: OperationId, status: number | string): Validator | undefined {
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
