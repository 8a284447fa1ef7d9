import type { Credential } from '../../model/index.js'
import { operationPointer, type OperationId } from '../../spec/index.js'
import { refusedBeyondInterface } from './beyond.js'
import { exchangeCheck, notJudged } from './check.js'
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
  'uppercase-scheme': 'the key under the scheme written "BEARER"',
  'case-changed': 'the key with the case of its letters swapped',
}

/** What a credential is, in words. */
export function describeCredential(credential: Credential): string {
  return WHAT[credential]
}

/**
 * The interface asks for `Bearer <API_KEY>` on every operation, and 401 otherwise. HTTP's refusal of input beyond the
 * interface (a 415 to an undocumented media type, a 413 to a body over the size floor) may come before the key is
 * read: it shows no data and stores nothing (judged apart), so it is observed, not failed.
 */
function authRequired<const Op extends OperationId>(operationId: Op) {
  return exchangeCheck({
    id: `${operationId}.auth.required` as const,
    title: `${operationId} answers 401 without a valid Bearer key`,
    severity: 'fail',
    basis: (spec) => [
      { spec: operationPointer(spec, operationId, 'security') },
      { spec: operationPointer(spec, operationId, 'responses', '401') },
    ],
    on: { operation: operationId, credential: 'invalid' },
    run: ({ exchange, response }, spec) => {
      if (response.status === 401) return []
      const beyond = refusedBeyondInterface(exchange, spec)
      if (beyond !== undefined) return notJudged(`${requestLine(exchange)}: ${beyond}, perhaps before the key was read`)
      return [
        `${requestLine(exchange)} with ${describeCredential(exchange.credential)} answered ${response.status}; documented: 401 Error`,
      ]
    },
  })
}

/** listPets refuses a missing or invalid key. */
export const listPetsAuthRequired = authRequired('listPets')
/** createPet refuses a missing or invalid key. */
export const createPetAuthRequired = authRequired('createPet')
/** getPet refuses a missing or invalid key. */
export const getPetAuthRequired = authRequired('getPet')
