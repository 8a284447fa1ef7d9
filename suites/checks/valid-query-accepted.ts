import type { Check } from './check.js'
import { requestLine } from './util.js'

/** The query of a listPets request, when every parameter in it is within its documented range. */
function documentedQuery(url: string, spec: Parameters<Check['run']>[1]): boolean {
  const query = new URL(url).searchParams
  const { minimum, maximum } = spec.parameter('listPets', 'limit')
  for (const [name, value] of query) {
    if (name === 'limit' && !(/^[1-9]\d*$/.test(value) && Number(value) >= Number(minimum) && Number(value) <= Number(maximum))) return false
    else if (name === 'status' && !spec.enumOf('PetStatus').includes(value)) return false
    else if (name !== 'limit' && name !== 'status') return false
  }
  return true
}

/** listPets answers 200 to every documented query: a limit from 1 to 100, a status of the enumeration. */
export const validQueryAccepted: Check = {
  id: 'listPets.valid-query-accepted',
  title: 'listPets answers 200 to every limit from 1 to 100 and every status of the enumeration',
  severity: 'fail',
  operationId: 'listPets',
  applies: ({ exchange }, spec) =>
    exchange?.operationId === 'listPets' && exchange.response !== undefined && exchange.credential === 'key' && documentedQuery(exchange.request.url, spec),
  run: ({ exchange }) => {
    const status = exchange!.response!.status
    return status === 200 ? [] : [`${requestLine(exchange!)} (a documented query) answered ${status}; documented: 200 Pets`]
  },
}
