import type { Check } from './check.js'
import { listedPets, requestLine } from './util.js'

/** listPets fills the page: min(limit, pets held) pets, not fewer. */
export const limitFills: Check = {
  id: 'listPets.limit.fills',
  title: 'listPets returns min(limit, pets held) pets, not fewer',
  severity: 'fail',
  operationId: 'listPets',
  applies: ({ exchange, limit, atLeast }) =>
    limit !== undefined && atLeast !== undefined && exchange?.response?.status === 200 && listedPets(exchange) !== undefined,
  run: ({ exchange, limit, atLeast }) => {
    const count = listedPets(exchange)!.length
    const expected = Math.min(limit!, atLeast!)
    return count >= expected ? [] : [`${requestLine(exchange!)} returned ${count} pets while the target holds at least ${atLeast}; documented: ${expected} (min of limit and pets held)`]
  },
}
