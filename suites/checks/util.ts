/** Small readers shared by the checks: bodies, pets and int64-exact comparisons. */
import { stringifyJson, type JsonValue, type OperationId, type Spec } from '../../spec/index.js'
import type { Exchange } from '../client.js'

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

/** `GET /pets?limit=5`: the request line as messages quote it, path relative to the base address. */
export function requestLine(exchange: Exchange): string {
  const url = exchange.request.url
  const at = url.indexOf('/pets')
  return `${exchange.request.method} ${at >= 0 ? url.slice(at) : url}`
}

/** True when the response status is documented for the exchange's operation. */
export function documented(spec: Spec, operationId: OperationId, status: number): boolean {
  return spec.statuses(operationId).includes(String(status))
}

/** Differences between the pet a response shows and the one expected, field by field, int64-exact. */
export function petDifferences(actual: JsonValue | undefined, expected: JsonValue, fields: string[]): string[] {
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

/** Equality of JSON values where 1 and 1n are the same integer. */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const ai = integerText(a)
  const bi = integerText(b)
  if (ai !== undefined || bi !== undefined) return ai === bi
  return show(a) === show(b)
}

/**
 * The fields a later read must show as createPet returned them. A pet created without a status may show
 * one later: the default is not described, and a 201 that leaves it out has not said what it is.
 */
export function fieldsToMatch(expected: JsonValue, fields: string[]): string[] {
  return isObject(expected) && expected.status === undefined ? fields.filter((f) => f !== 'status') : fields
}

/** Number of UTF-8 bytes of a string: the largest of the usual ways to count a field's size. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

/** Number of Unicode code points of a string. */
export function codePoints(text: string): number {
  return [...text].length
}

/** The effective page size: the limit asked, or the documented default. */
export function pageSize(spec: Spec, limit: number | undefined): number {
  return limit ?? Number(spec.parameter('listPets', 'limit').default)
}
