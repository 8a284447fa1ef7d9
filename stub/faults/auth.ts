/** Faults in authentication: operations that let requests through without a valid key. */
import { wrapApp, withKey } from './wrap.js'

export const noAuthList = wrapApp(
  'listPets needs no API key',
  'listPets.auth.required',
  (next, context) => async (request) => {
    return next(context.operationOf(request) === 'listPets' ? withKey(request, context) : request)
  },
)

export const noAuthCreate = wrapApp(
  'createPet needs no API key and stores the pet',
  'createPet.auth.required',
  (next, context) => async (request) => {
    return next(context.operationOf(request) === 'createPet' ? withKey(request, context) : request)
  },
)

export const unauthCreateStores = wrapApp(
  'createPet without a valid key answers 401 but stores the pet anyway',
  'createPet.auth.stores-nothing',
  (next, context) => async (request) => {
    const response = await next(request)
    // The 401 goes back, but the body is stored as if the key had been good (an invalid body still is not).
    if (response.status === 401 && context.operationOf(request) === 'createPet') await next(withKey(request, context))
    return response
  },
)

export const wrongKeyAccepted = wrapApp(
  'any Bearer token is accepted',
  'getPet.auth.required',
  (next, context) => async (request) => {
    const header = request.headers.authorization
    // Still refused: no header, two headers, another scheme, an empty token; any other token passes.
    const anyToken = typeof header === 'string' && /^bearer[ \t]+\S/i.test(header.trim())
    return next(anyToken ? withKey(request, context) : request)
  },
)
