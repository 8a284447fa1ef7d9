/**
 * Deliberate, realistic single faults the stub can be started with (`--fault`, `startStub({ fault })`), so
 * the conformance suite can prove that each of its checks catches the bug it is meant to catch. Each is a
 * wrapper around the stub's app or store (see wrap.ts); with none the stub is correct.
 */
import { noAuthCreate, noAuthList, unauthCreateStores, wrongKeyAccepted } from './auth.js'
import { largeBody500, refusedMediaTypeStored, trailingDataStored } from './bodies.js'
import { dropsConnection, hangs } from './connection.js'
import {
  acceptsInvalidStatus,
  create200,
  createNotStored,
  duplicateIds,
  idMissing,
  int64Precision,
  missingField500,
  nameTruncated,
  statusDropped,
} from './create.js'
import {
  defaultLimit50,
  emptyListNull,
  filterIgnored,
  limitCap50,
  limitIgnored,
  limitShort,
  listKeepsAvailable,
  listWrapped,
} from './list.js'
import {
  errorShape,
  errorStatusMismatch,
  getWrongPet,
  notFoundEmpty,
  textContentType,
  unauthorizedWithoutStatus,
} from './responses.js'
import { listRedirect, slashRedirect } from './redirects.js'
import type { Fault } from './wrap.js'

export type { Fault, FaultContext, FaultWrappers } from './wrap.js'

/** Every fault by name; `catches` is the id of the suite check meant to catch it. */
export const FAULTS = {
  'list-wrapped': listWrapped,
  'create-200': create200,
  'no-auth-list': noAuthList,
  'no-auth-create': noAuthCreate,
  'unauth-create-stores': unauthCreateStores,
  'wrong-key-accepted': wrongKeyAccepted,
  'error-status-mismatch': errorStatusMismatch,
  'error-shape': errorShape,
  'unauthorized-without-status': unauthorizedWithoutStatus,
  'limit-ignored': limitIgnored,
  'default-limit-50': defaultLimit50,
  'limit-short': limitShort,
  'limit-cap-50': limitCap50,
  'filter-ignored': filterIgnored,
  'list-keeps-available': listKeepsAvailable,
  'empty-list-null': emptyListNull,
  'id-missing': idMissing,
  'int64-precision': int64Precision,
  'status-dropped': statusDropped,
  'name-truncated': nameTruncated,
  'accepts-invalid-status': acceptsInvalidStatus,
  'missing-field-500': missingField500,
  'create-not-stored': createNotStored,
  'duplicate-ids': duplicateIds,
  'text-content-type': textContentType,
  'not-found-empty': notFoundEmpty,
  'get-wrong-pet': getWrongPet,
  hangs,
  'drops-connection': dropsConnection,
  'large-body-500': largeBody500,
  'refused-media-type-stored': refusedMediaTypeStored,
  'trailing-data-stored': trailingDataStored,
  'list-redirect': listRedirect,
  'slash-redirect': slashRedirect,
} as const satisfies Record<string, Fault>

/** The name of one injectable fault. */
export type FaultName = keyof typeof FAULTS

/** True when `name` names a fault of {@link FAULTS}. */
export function isFaultName(name: string): name is FaultName {
  return Object.hasOwn(FAULTS, name)
}
