import type { Check } from './check.js'
import { isObject, listedPets, requestLine, show } from './util.js'

/** With `status`, listPets returns only pets of that status. */
export const statusFilter: Check = {
  id: 'listPets.status.filter',
  title: 'With status, listPets returns only pets of that status',
  severity: 'fail',
  operationId: 'listPets',
  applies: ({ exchange, status }) => status !== undefined && exchange?.response?.status === 200 && listedPets(exchange) !== undefined,
  run: ({ exchange, status }) => {
    const others = listedPets(exchange)!.filter((pet) => !isObject(pet) || pet.status !== status)
    if (!others.length) return []
    const sample = others.slice(0, 3).map((pet) => show(pet)).join(', ')
    return [`${requestLine(exchange!)} returned ${others.length} pets of another status, e.g. ${sample}; documented: only status "${status}"`]
  },
}
