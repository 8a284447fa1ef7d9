/** Small readers shared by the checks: bodies, pets, int64-exact comparisons and what the spec documents. */
import type { Exchange } from '../../model/index.js'
import {
  isInt64,
  OPERATIONS,
  stringifyJson,
  type JsonValue,
  type OperationId,
  type ParameterSchema,
  type Spec,
} from '../../spec/index.js'
import type { Facts } from './check.js'

/** A JSON object (not an array, not null). */
export type JsonObject = { [key: string]: JsonValue }

/** True for a JSON object. */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The parsed response body, or undefined when there is none or it is not JSON. */
export function bodyOf(exchange: Exchange | undefined): JsonValue | undefined {
  return exchange?.json.kind === 'json' ? exchange.json.value : undefined
}

/** The listed pets of a listPets answer, or undefined when the body is not an array. */
export function listedPets(exchange: Exchange | undefined): JsonValue[] | undefined {
  const body = bodyOf(exchange)
  return Array.isArray(body) ? body : undefined
}

/** The integer as exact decimal text, or undefined when it is not an integer. */
export function integerText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value).toString()
  return undefined
}

/** The id of a pet as exact decimal text. */
export function idOf(pet: JsonValue | undefined): string | undefined {
  return isObject(pet) ? integerText(pet.id) : undefined
}

/** JSON text of a value, bigint digits exact; `absent` for undefined. */
export function show(value: JsonValue | undefined): string {
  return value === undefined ? 'absent' : stringifyJson(value)
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// Where the path relative to the base address starts: the first segment of an operation's path, which every revision
// keeps (in any letter case, after any number of slashes, so path variants show as sent). The record keeps only the
// absolute URL.
const ROOT = new RegExp(
  `/+(?:${[...new Set(Object.values(OPERATIONS).map((op) => op.path.split('/')[1]!))].map(escapeRegExp).join('|')})(?=[/?#]|$)`,
  'i',
)

/** `GET /pets?limit=5`: the request line as messages quote it, path relative to the base address. */
export function requestLine(exchange: Pick<Exchange, 'request'>): string {
  const { method, url } = exchange.request
  const target = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
  const at = target.search(ROOT)
  return `${method} ${at >= 0 ? target.slice(at) : target}`
}

/** True when the response status is documented for the exchange's operation. */
export function documented(spec: Spec, operationId: OperationId, status: number): boolean {
  return spec.statuses(operationId).includes(String(status))
}

/** Differences between the pet a response shows and the one expected, field by field, int64-exact. */
export function petDifferences(
  actual: JsonValue | undefined,
  expected: JsonValue,
  fields: readonly string[],
): string[] {
  if (!isObject(actual)) return [`body ${show(actual)} is not a pet`]
  if (!isObject(expected)) return []
  const messages: string[] = []
  for (const field of fields) {
    const a = actual[field]
    const e = expected[field]
    if (!sameJson(a, e)) messages.push(`${field} ${show(a)}; expected ${show(e)}`)
  }
  return messages
}

/**
 * Equality of JSON values where 1 and 1n are the same integer. A double past 2^53 (a `number` property the suite sent
 * as one) is equal to any integer that rounds to it: its decimal text was never exact.
 */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (isInexact(a) || isInexact(b)) return isNumeric(a) && isNumeric(b) && Number(a) === Number(b)
  const ai = integerText(a)
  const bi = integerText(b)
  if (ai !== undefined || bi !== undefined) return ai === bi
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]))
  // Members in any order: JSON gives their order no meaning, and stores such as PostgreSQL's jsonb reorder them.
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false
    const keys = Object.keys(a)
    return (
      keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
    )
  }
  return show(a) === show(b)
}

const isNumeric = (value: JsonValue | undefined): value is number | bigint =>
  typeof value === 'number' || typeof value === 'bigint'

/** A double too large for every integer near it to have its own: its digits past 2^53 are rounded. */
const isInexact = (value: JsonValue | undefined) =>
  typeof value === 'number' && Number.isFinite(value) && Math.abs(value) > Number.MAX_SAFE_INTEGER

/**
 * The fields a later read must show as createPet returned them: every property the spec's Pet declares but the
 * optional ones the expected pet lacks. A pet created without a status may show one later: the default is not
 * described, and a 201 that leaves it out has not said what it is.
 */
export function fieldsToMatch(spec: Spec, expected: JsonValue, fields = petFields(spec)): readonly string[] {
  const required = new Set(spec.requiredOf('Pet'))
  return isObject(expected) ? fields.filter((f) => required.has(f) || expected[f] !== undefined) : fields
}

/** Every property the spec's Pet declares (NewPet's and `id`) but write-only ones: what a comparison of pets covers. */
export function petFields(spec: Spec): readonly string[] {
  return spec.shownOf('Pet')
}

/**
 * Pet properties listPets filters by (a query parameter of the same name: `status`): the animal's state, whose
 * transitions the interface does not describe, so a pet held before the run may have moved on.
 */
export function stateFields(spec: Spec): string[] {
  const query = spec.operation('listPets').parameters
  return petFields(spec).filter((name) => query[name]?.in === 'query')
}

/** Number of UTF-8 bytes of a string: the largest of the usual ways to count a field's size. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

export { codePoints } from '../values/index.js'

/** The effective page size: the limit asked, or the documented default. */
export function pageSize(spec: Spec, limit: number | undefined): number {
  return limit ?? Number(spec.parameter('listPets', 'limit').default)
}

/** Fields of a body that the NewPet schema does not name (the interface is silent on them). */
export function undescribedFields(spec: Spec, body: JsonValue): string[] {
  if (!isObject(body)) return []
  const described = spec.propertiesOf('NewPet')
  return Object.keys(body).filter((key) => !Object.hasOwn(described, key))
}

const INT32 = 2n ** 31n

/**
 * Whether one parameter value, as sent, is one its schema documents (canonical integers only, in range and a multiple
 * of its `multipleOf`; enum members).
 */
export function documentedValue(parameter: ParameterSchema, value: string): boolean {
  if (parameter.enum) return parameter.enum.includes(value)
  if (parameter.type !== 'integer') return true
  if (!/^(0|-?[1-9][0-9]*)$/.test(value)) return false
  const n = BigInt(value)
  if (parameter.format === 'int64' && !isInt64(n)) return false
  if (parameter.format === 'int32' && (n < -INT32 || n >= INT32)) return false
  if (parameter.minimum !== undefined && n < BigInt(parameter.minimum)) return false
  if (parameter.multipleOf !== undefined && n % BigInt(parameter.multipleOf) !== 0n) return false
  return parameter.maximum === undefined || n <= BigInt(parameter.maximum)
}

/**
 * Names of the query parameters of a request outside the operation's documented input: unknown to the
 * operation, repeated, or with a value the schema does not allow. `[]`: the query is documented.
 */
export function queryOutsideRange(spec: Spec, operationId: OperationId, url: string): string[] {
  const query = new URL(url).searchParams
  const { parameters } = spec.operation(operationId)
  return [...new Set(query.keys())].filter((name) => {
    const values = query.getAll(name)
    const parameter = parameters[name]
    return parameter?.in !== 'query' || values.length !== 1 || !documentedValue(parameter, values[0]!)
  })
}

/**
 * What puts a request outside the documented input on purpose, where the interface does not say what the answer is,
 * or undefined when it is within: query parameters outside their range (found by the engine), a petId that is no
 * int64, another spelling of a documented path, a method no operation of the path documents. The one rule for the
 * suite's checks and for Prism's opinion alike.
 */
export function outsideDocumentedInput(facts: Facts): string | undefined {
  if (facts.outOfRange?.length) return `${facts.outOfRange.join(' and ')} outside the documented range`
  if (facts.petIdForm !== undefined) return `a petId that is no int64 (${facts.petIdForm.kind})`
  if (facts.pathVariant !== undefined) return `another spelling of a documented path (${facts.pathVariant})`
  if (facts.otherMethod !== undefined) return `a method no operation of ${facts.otherMethod} documents`
  return undefined
}

/** True unless the request is outside the operation's documented input on purpose ({@link outsideDocumentedInput}). */
export function withinDocumentedInput(facts: Facts): boolean {
  return outsideDocumentedInput(facts) === undefined
}

/** The last path segment of a request, percent-decoded; undefined when its encoding is malformed. */
export function lastSegment(url: string): string | undefined {
  const segment = new URL(url).pathname.split('/').pop() ?? ''
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/** An integer written canonically (`0`, `-12`, no sign, no leading zero) within int64, as decimal text; else undefined. */
export function canonicalInt64(text: string | undefined): string | undefined {
  if (text === undefined || !/^(0|-?[1-9][0-9]*)$/.test(text)) return undefined
  return isInt64(BigInt(text)) ? text : undefined
}

/** The documented statuses that carry an Error body on some operation (400, 401, 404): the interface's error statuses. */
export function errorStatuses(spec: Spec): number[] {
  const statuses = Object.values(spec.operations).flatMap((op) =>
    op.statuses
      .filter((status) => Number(status) >= 400 && spec.responseSchemaName(op.operationId, status) === 'Error')
      .map(Number),
  )
  return [...new Set(statuses)].sort((a, b) => a - b)
}

/** The operations the spec marks `deprecated` (the bundled spec: getPet alone; a revision may mark others, or none). */
export function deprecatedOperations(spec: Spec): OperationId[] {
  return Object.values(spec.operations)
    .filter((op) => op.deprecated)
    .map((op) => op.operationId)
}

/** The operation the spec marks `deprecated`; throws when it marks none or several (a spec the checks do not fit). */
export function deprecatedOperation(spec: Spec): OperationId {
  const deprecated = deprecatedOperations(spec)
  if (deprecated.length !== 1)
    throw new Error(`the spec marks ${deprecated.length} operations deprecated; the deprecation checks expect one`)
  return deprecated[0]!
}

/**
 * When a check of one of `operationId`'s deprecation headers applies: on the statuses the judged spec documents
 * `header` for, while it still deprecates the operation (a revision may not); otherwise it is not applicable.
 */
export function whileDeprecated(operationId: OperationId, header: string) {
  return {
    inapplicable: (judged: Spec) =>
      judged.operation(operationId).deprecated ? undefined : `the spec does not deprecate ${operationId}`,
    on: {
      operation: operationId,
      statuses: (judged: Spec) => statusesWithHeader(judged, operationId, header),
      when: ({ operationId: id }: { operationId: OperationId }, judged: Spec) => judged.operation(id).deprecated,
    },
  }
}

/** The statuses for which the spec documents a response header (e.g. `Deprecation`) on an operation. */
export function statusesWithHeader(spec: Spec, operationId: OperationId, header: string): number[] {
  const op = spec.operation(operationId)
  const responses: Record<string, object> = spec.doc.paths[op.path][op.method.toLowerCase()].responses ?? {}
  return Object.entries(responses)
    .filter(([status, response]) => {
      const headers = Object.keys(spec.resolve<{ headers?: object }>(response).headers ?? {})
      return /^[0-9]{3}$/.test(status) && headers.some((name) => name.toLowerCase() === header.toLowerCase())
    })
    .map(([status]) => Number(status))
}
