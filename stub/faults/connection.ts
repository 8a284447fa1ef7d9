/** Faults at the connection, through the stub's socket directives: no answer at all, or a dropped connection. */
import { readQuery, splitTarget } from '../request.js'
import { mapResponses } from './wrap.js'
import { unknownPet } from './responses.js'

export const hangs = mapResponses(
  'getPet of an unknown id never answers',
  'transport.ok',
  (response, request, operationId) =>
    unknownPet(response, request, operationId) ? { ...response, socket: 'hang' } : response,
)

export const dropsConnection = mapResponses(
  'listPets with status=pending destroys the connection without answering',
  'transport.ok',
  (response, request, operationId) => {
    if (operationId !== 'listPets' || response.status !== 200 || !request) return response
    const status = readQuery(splitTarget(request.url).query, ['status']).get('status')
    return status?.[0] === 'pending' ? { ...response, socket: 'empty' } : response
  },
)
