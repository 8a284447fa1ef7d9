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

/**
 * The first JSON object of a text followed by more data (what a decoder that reads one value and stops, such as Go's
 * json.Decoder, takes), or undefined when the text is not an object with data after it.
 */
function leadingObject(text: string): string | undefined {
  if (!text.startsWith('{')) return undefined
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{' || c === '[') depth++
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1 < text.length ? text.slice(0, i + 1) : undefined
  }
  return undefined
}

export const trailingDataStored = wrapApp(
  'createPet refuses a body with data after its JSON value (400), yet stores the JSON value read up to there',
  'createPet.invalid-stores-nothing',
  (next, context) => async (request) => {
    const response = await next(request)
    if (context.operationOf(request) !== 'createPet' || response.status !== 400) return response
    const body = request.body ?? ''
    const head = leadingObject(typeof body === 'string' ? body : new TextDecoder().decode(body))
    // The refusal goes back, but the value before the trailing data was read and stored all the same.
    if (head !== undefined) await next({ ...request, body: head })
    return response
  },
)
