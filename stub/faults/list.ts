/** Faults in listPets: the array's shape, the limit and the status filter. */
import { readQuery, splitTarget } from '../request.js'
import { mapResponses, withBody, wrapApp, wrapStore, type Fault } from './wrap.js'

export const listWrapped = mapResponses(
  'listPets answers {"pets": [...]} instead of a bare array',
  'response.schema',
  (response, _, operationId) =>
    operationId === 'listPets' && response.status === 200 ? withBody(response, `{"pets":${response.body}}`) : response,
)

export const limitIgnored = wrapStore(
  'listPets ignores limit and returns every pet',
  'listPets.limit.max',
  (store) => ({
    page: (_limit, status) => store.page(store.count(status), status),
  }),
)

export const defaultLimit50 = wrapApp(
  'listPets without limit returns up to 50 pets instead of 20',
  'listPets.limit.default',
  (next, context) => async (request) => {
    if (context.operationOf(request) !== 'listPets') return next(request)
    const { path, query } = splitTarget(request.url)
    if (readQuery(query, ['limit']).has('limit')) return next(request)
    return next({ ...request, url: `${path}?${query === '' ? '' : query + '&'}limit=50` })
  },
)

export const limitShort = wrapStore(
  'listPets returns limit - 1 pets when more exist',
  'listPets.limit.fills',
  (store) => ({
    page: (limit, status) => store.page(store.count(status) >= limit ? limit - 1 : limit, status),
  }),
)

export const limitCap50 = wrapStore(
  'listPets never returns more than 50 pets, even when limit is larger and more exist',
  'listPets.limit.fills',
  (store) => ({ page: (limit, status) => store.page(Math.min(limit, 50), status) }),
)

export const filterIgnored = wrapStore('listPets ignores the status filter', 'listPets.status.filter', (store) => ({
  page: (limit) => store.page(limit),
}))

export const listKeepsAvailable = wrapStore(
  'listPets without status lists only available pets (a default filter nobody asked for)',
  'listPets.unfiltered-lists-all',
  (store) => ({
    page: (limit, status) => store.page(limit, status ?? 'available'),
  }),
)

/** listPets answers `null` for an empty result: Go's nil slice, serialised as is. */
export const emptyListNull: Fault = {
  ...mapResponses(
    'listPets answers null instead of [] for an empty result',
    'listPets.empty-is-array',
    (response, _, op) =>
      op === 'listPets' && response.status === 200 && response.body === '[]' ? withBody(response, 'null') : response,
  ),
  emptyStore: true,
}
