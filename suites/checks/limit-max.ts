import type { Check } from './check.js'
import { listedPets, requestLine } from './util.js'

/** listPets returns at most `limit` pets. */
export const limitMax: Check = {
  id: 'listPets.limit.max',
  title: 'listPets returns at most `limit` pets',
  severity: 'fail',
  operationId: 'listPets',
  applies: ({ exchange, limit }) => limit !== undefined && exchange?.response?.status === 200 && listedPets(exchange) !== undefined,
  run: ({ exchange, limit }) => {
    const count = listedPets(exchange)!.length
    return count <= limit! ? [] : [`${requestLine(exchange!)} returned ${count} pets; documented: at most ${limit}`]
  },
}
