/** Faults in what every answer looks like (Error bodies, content type) and in getPet's answers. */
import { parsePetId, splitTarget } from '../request.js'
import { toInt64, type Int64 } from '../store.js'
import type { AppRequest } from '../app.js'
import { errorOf, mapResponses, withBody, withHeader, wrapStore } from './wrap.js'

export const errorStatusMismatch = mapResponses(
  'Error bodies say status 400 whatever the HTTP status',
  'error.status-echoed',
  (response) => {
    const error = errorOf(response)
    return error
      ? withBody(response, JSON.stringify({ code: error.code, message: error.message, status: 400 }))
      : response
  },
)

export const unauthorizedWithoutStatus = mapResponses(
  'the 401 Error body has no status field',
  'error.status-echoed',
  (response) => {
    const error = errorOf(response)
    return error && response.status === 401
      ? withBody(response, JSON.stringify({ code: error.code, message: error.message }))
      : response
  },
)

export const errorShape = mapResponses('Error bodies are {"error": "<message>"}', 'response.schema', (response) => {
  const error = errorOf(response)
  return error ? withBody(response, JSON.stringify({ error: error.message })) : response
})

export const textContentType = mapResponses(
  'every response says Content-Type: text/plain',
  'response.content-type',
  (response) => withHeader(response, 'Content-Type', 'text/plain; charset=utf-8'),
)

/** True for getPet's 404 on a petId that is an int64 (one that simply names no pet). */
export function unknownPet(
  response: { status: number },
  request: AppRequest | undefined,
  operationId: string | undefined,
): boolean {
  if (operationId !== 'getPet' || response.status !== 404 || !request) return false
  return parsePetId(splitTarget(request.url).path.split('/').pop() ?? '') !== undefined
}

export const notFoundEmpty = mapResponses(
  'getPet answers 404 with an empty body',
  'response.schema',
  (response, request, operationId) => (unknownPet(response, request, operationId) ? withBody(response, '') : response),
)

export const getWrongPet = wrapStore(
  'getPet returns the pet with id + 1 when it exists',
  'getPet.returns-created',
  (store) => ({
    find: (id: Int64) => store.find(toInt64(BigInt(id) + 1n)) ?? store.find(id),
  }),
)
