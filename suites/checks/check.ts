/** The shape of a check: one small pure function from what the suite saw to messages. */
import type { JsonValue, OperationId, Spec } from '../../spec/index.js'
import type { Exchange } from '../client.js'
import type { Severity, StatusCoverage } from '../model.js'

/** What a check judges: an exchange, and what the suite knows that the exchange alone does not say. */
export interface CheckInput {
  exchange?: Exchange
  /** The request is outside the documented input (e.g. `limit=0`): the status is the target's choice. */
  undocumentedInput?: boolean
  /** createPet: the NewPet sent, as the suite built it. */
  sent?: JsonValue
  /** The pet as createPet returned it: what getPet must show. */
  expected?: JsonValue
  /** listPets: the `limit` asked, when one was. */
  limit?: number
  /** listPets: pets the target held before the request, at least. */
  atLeast?: number
  /** listPets: the `status` filter asked, when one was. */
  status?: string
  /** listPets: pets this run created, as createPet returned them. */
  created?: JsonValue[]
  /** createPet: ids (as decimal text) already given to other pets. */
  takenIds?: ReadonlySet<string>
  /** A stored pet that should not exist, found after a request that must store nothing. */
  found?: JsonValue
  /** Ids of pets the target created, in creation order. */
  ids?: JsonValue[]
  /** Which documented statuses the run provoked. */
  coverage?: StatusCoverage[]
}

/** One entry of the catalogue. */
export interface Check {
  /** Stable id naming the property that must hold, e.g. `listPets.limit.max`. */
  id: string
  title: string
  severity: Severity
  operationId: OperationId | 'all'
  /** For observed checks judged on many exchanges: what their observations are about, instead of each request line. */
  subject?: string
  /** False when the check says nothing about this input (outcome `skipped` if it never applies). */
  applies?: (input: CheckInput, spec: Spec) => boolean
  /** One message per violation (for `observed`: what the target chose); `[]` means the property holds. */
  run: (input: CheckInput, spec: Spec) => string[]
}
