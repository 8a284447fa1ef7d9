/** The shape of the interface as the kit reads it: its operations, their parameters, validators and headers. */
import type { JsonValue } from './json.js'

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

/** A parsed OpenAPI document, walked as plain JSON. */
export type Doc = Record<string, any>

/** The methods an OpenAPI path item may describe an operation for. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** The operations every revision of the interface keeps, with their methods and paths. */
export const OPERATIONS: Record<OperationId, { method: Operation['method']; path: string }> = {
  listPets: { method: 'GET', path: '/pets' },
  createPet: { method: 'POST', path: '/pets' },
  getPet: { method: 'GET', path: '/pets/{petId}' },
}

/** The operation ids the kit knows, in the order of {@link OperationId} (a test pins them to the bundled spec). */
export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[]
