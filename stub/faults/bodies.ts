/** Faults in reading createPet bodies: what a large body or a media type the stub does not take leads to. */
import { errorOf, mapResponses, withBody, withStatus, wrapApp } from './wrap.js'

export const largeBody500 = mapResponses(
  'a body over 64 KiB (the body limit) crashes the server: 500 instead of 400 body_too_large',
  'response.no-server-error',
  (response) => {
    if (errorOf(response)?.code !== 'body_too_large') return response
    const body = { code: 'internal_error', message: 'request entity too large', status: 500 }
    return { ...withBody(withStatus(response, 500), JSON.stringify(body)), code: body.code }
  },
)

export const refusedMediaTypeStored = wrapApp(
  'createPet refuses a body of a media type it does not take (400 unsupported_media_type), yet stores the pet',
  'createPet.refused-stores-nothing',
  (next, context) => async (request) => {
    const response = await next(request)
    // The refusal goes back, but the body was read as JSON and stored all the same.
    if (context.operationOf(request) === 'createPet' && errorOf(response)?.code === 'unsupported_media_type')
      await next({ ...request, headers: { ...request.headers, 'content-type': 'application/json' } })
    return response
  },
)
