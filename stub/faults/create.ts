/** Faults in createPet: its status, its echo, what it stores, how it validates, how it assigns ids. */
import { parseJson, spec, stringifyJson, type JsonValue } from '../../spec/index.js'
import { petJson, toInt64, type Int64, type NewPetRecord } from '../store.js'
import { errorOf, mapResponses, override, withBody, withMiddleware, withStatus, wrapStore, type Fault } from './wrap.js'

const created = (response: { status: number }, operationId: string | undefined) =>
  operationId === 'createPet' && response.status === 201

export const create200 = mapResponses(
  'createPet answers 200 instead of 201',
  'createPet.accepts-valid',
  (response, _, operationId) => (created(response, operationId) ? withStatus(response, 200) : response),
)

export const idMissing = mapResponses(
  'the created Pet echoed by createPet lacks its id',
  'response.schema',
  (response, _, operationId) =>
    // The stub writes the id first: `{"id":1,"name":...}` becomes `{"name":...}`.
    created(response, operationId)
      ? withBody(response, '{' + response.body.slice(response.body.indexOf(',') + 1))
      : response,
)

export const statusDropped = mapResponses(
  'the created Pet echoed by createPet omits status',
  'createPet.echo',
  (response, _, operationId) => {
    if (!created(response, operationId)) return response
    const pet = parseJson(response.body) as { id: Int64; name: string; categoryId: Int64 }
    return withBody(response, petJson({ id: pet.id, name: pet.name, categoryId: pet.categoryId }))
  },
)

export const int64Precision = wrapStore(
  'categoryId passes through a double: 9223372036854775807 comes back as 9223372036854775808',
  'createPet.echo',
  (store) => ({ add: (pet) => store.add({ ...pet, categoryId: toInt64(BigInt(Number(pet.categoryId))) }) }),
)

export const nameTruncated = wrapStore(
  'names longer than 32 characters are stored and echoed cut to 32',
  'createPet.echo',
  (store) => ({
    add: (pet) => store.add({ ...pet, name: Array.from(String(pet.name)).slice(0, 32).join('') }),
  }),
)

export const missingField500 = mapResponses(
  'createPet with a body without name crashes the handler: 500',
  'response.no-server-error',
  (response, _, operationId) => {
    const error = operationId === 'createPet' ? errorOf(response) : undefined
    if (error?.code !== 'missing_field' || !error.message.endsWith(' name is required')) return response
    const body = {
      code: 'internal_error',
      message: "Cannot read properties of undefined (reading 'length')",
      status: 500,
    }
    return { ...withBody(withStatus(response, 500), JSON.stringify(body)), code: body.code }
  },
)

export const createNotStored = wrapStore(
  'createPet answers 201 but does not store the pet (getPet 404, not listed)',
  'getPet.returns-created',
  (store) => ({
    add: (pet) => {
      const unsaved = { ...pet, id: store.reserveId() }
      return { pet: unsaved, json: petJson(unsaved) }
    },
  }),
)

/** The body's NewPet when it is a JSON object, else `undefined`. */
function objectIn(body: Uint8Array | string | undefined): Record<string, JsonValue> | undefined {
  try {
    const value = parseJson(typeof body === 'string' ? body : Buffer.from(body ?? '').toString('utf8'))
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}

export const acceptsInvalidStatus: Fault = {
  description: 'createPet accepts and stores a status outside the enumeration',
  catches: 'createPet.rejects-invalid',
  wrap() {
    const statuses = spec().enumOf('PetStatus')
    let smuggled: string | undefined // the invalid status of the create now being stored
    return {
      store: (store) =>
        override(store, {
          add: (pet: NewPetRecord) => store.add(smuggled === undefined ? pet : { ...pet, status: smuggled }),
        }),
      layer: (context) =>
        withMiddleware(context, (next, { operationOf }) => async (request) => {
          const pet = operationOf(request) === 'createPet' ? objectIn(request.body) : undefined
          if (typeof pet?.status !== 'string' || statuses.includes(pet.status)) return next(request)
          // The app validates a valid stand-in; the store, wrapped above, keeps the invalid one.
          smuggled = pet.status
          const pending = next({ ...request, body: stringifyJson({ ...pet, status: statuses[0] }) }) // stores synchronously
          smuggled = undefined
          return pending
        }),
    }
  },
}

export const duplicateIds: Fault = {
  description: 'ids are assigned after an await, so concurrent creates can share an id',
  catches: 'createPet.ids-unique',
  wrap() {
    let taken: Int64 | undefined // the id read before the await, for the create now being stored
    return {
      store: (store) =>
        override(store, {
          add: (pet: NewPetRecord) => (taken === undefined ? store.add(pet) : store.addWithId(pet, taken)),
        }),
      layer: (context) =>
        withMiddleware(context, (next, { operationOf, store }) => async (request) => {
          if (operationOf(request) !== 'createPet') return next(request)
          const id = store.nextId
          await new Promise((resolve) => setImmediate(resolve)) // other creates read the same id meanwhile
          taken = id
          const pending = next(request) // stores synchronously
          taken = undefined
          return pending
        }),
    }
  },
}
