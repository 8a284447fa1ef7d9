/** Faults of a router that redirects the documented paths to another spelling, as some frameworks do by default. */
import { splitTarget } from '../request.js'
import type { AppRequest, AppResponse } from '../app.js'
import { mapResponses } from './wrap.js'

/** A `301`/`308` to the same path with a trailing slash (the query kept), with the empty body such routers send. */
function toTrailingSlash(request: AppRequest, status: 301 | 308): AppResponse {
  const { path, query } = splitTarget(request.url)
  return {
    status,
    headers: ['Location', `${path}/${query === '' ? '' : `?${query}`}`, 'Content-Length', '0'],
    body: '',
  }
}

export const listRedirect = mapResponses(
  'GET /pets answers 301 Location: /v1/pets/ (a router that wants a trailing slash)',
  'response.no-redirect',
  (response, request, operationId) =>
    operationId === 'listPets' && request ? toTrailingSlash(request, 301) : response,
)

export const slashRedirect = mapResponses(
  'every documented GET (listPets, getPet) answers 308 to its path with a trailing slash',
  'response.no-redirect',
  (response, request, operationId) =>
    (operationId === 'listPets' || operationId === 'getPet') && request ? toTrailingSlash(request, 308) : response,
)
