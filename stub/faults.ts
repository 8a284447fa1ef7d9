/**
 * Deliberate, realistic single faults the stub can be started with, so the conformance suite can prove
 * that each of its checks catches the bug it is meant to catch. With no fault the stub is correct.
 */
export const FAULTS = {
  'list-wrapped': 'listPets answers {"pets": [...]} instead of a bare array',
  'create-200': 'createPet answers 200 instead of 201',
  'no-auth-list': 'listPets needs no API key',
  'no-auth-create': 'createPet needs no API key and stores the pet',
  'unauth-create-stores': 'createPet without a valid key answers 401 but stores the pet anyway',
  'wrong-key-accepted': 'any Bearer token is accepted',
  'error-status-mismatch': 'Error bodies say status 400 whatever the HTTP status',
  'error-shape': 'Error bodies are {"error": "<message>"}',
  'limit-ignored': 'listPets ignores limit and returns every pet',
  'default-limit-50': 'listPets without limit returns up to 50 pets instead of 20',
  'limit-short': 'listPets returns limit - 1 pets when more exist',
  'limit-cap-50': 'listPets never returns more than 50 pets, even when limit is larger and more exist',
  'filter-ignored': 'listPets ignores the status filter',
  'id-missing': 'the created Pet echoed by createPet lacks its id',
  'int64-precision': 'categoryId passes through a double: 9223372036854775807 comes back as 9223372036854775808',
  'status-dropped': 'the created Pet echoed by createPet omits status',
  'name-truncated': 'names longer than 32 characters are stored and echoed cut to 32',
  'accepts-invalid-status': 'createPet accepts and stores a status outside the enumeration',
  'missing-field-500': 'createPet with a body without name crashes the handler: 500',
  'create-not-stored': 'createPet answers 201 but does not store the pet (getPet 404, not listed)',
  'duplicate-ids': 'ids are assigned after an await, so concurrent creates can share an id',
  'text-content-type': 'every response says Content-Type: text/plain',
  'not-found-empty': 'getPet answers 404 with an empty body',
  'get-wrong-pet': 'getPet returns the pet with id + 1 when it exists',
  hangs: 'getPet of an unknown id never answers',
  'drops-connection': 'listPets with status=pending destroys the connection without answering',
} as const satisfies Record<string, string>

/** The name of one injectable fault. */
export type FaultName = keyof typeof FAULTS

/** True when `name` names a fault of {@link FAULTS}. */
export function isFaultName(name: string): name is FaultName {
  return Object.hasOwn(FAULTS, name)
}
