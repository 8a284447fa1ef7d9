import type { OperationId } from '../../spec/index.js'
import type { Credential } from '../curl.js'
import type { Check } from './check.js'
import { requestLine } from './util.js'

const WHAT: Record<Credential, string> = {
  key: 'the valid key',
  none: 'no Authorization header',
  empty: 'an empty Bearer token',
  wrong: 'a wrong key',
  basic: 'the key under the Basic scheme',
  extended: 'the key with a character appended',
  truncated: 'the key without its last character',
  'lowercase-scheme': 'the key under the scheme written "bearer"',
  'case-changed': 'the key with the case of its letters swapped',
}

/** What a credential is, in words. */
export function describeCredential(credential: Credential): string {
  return WHAT[credential]
}

// Not a valid credential: the interface asks for `Bearer <API_KEY>` and 401 otherwise.
const invalid = (credential: Credential) => credential !== 'key' && credential !== 'lowercase-scheme'

function authRequired(operationId: OperationId): Check {
  return {
    id: `${operationId}.auth.required`,
    title: `${operationId} answers 401 without a valid Bearer key`,
    severity: 'fail',
    operationId,
    applies: ({ exchange }) => exchange?.operationId === operationId && exchange.response !== undefined && invalid(exchange.credential),
    run: ({ exchange }) => {
      const status = exchange!.response!.status
      if (status === 401) return []
      return [`${requestLine(exchange!)} with ${describeCredential(exchange!.credential)} answered ${status}; documented: 401 Error`]
    },
  }
}

/** listPets refuses a missing or invalid key. */
export const listPetsAuthRequired = authRequired('listPets')
/** createPet refuses a missing or invalid key. */
export const createPetAuthRequired = authRequired('createPet')
/** getPet refuses a missing or invalid key. */
export const getPetAuthRequired = authRequired('getPet')
