import type { Check } from './check.js'
import { listedPets, pageSize, requestLine } from './util.js'

/** Without `limit`, listPets returns the documented default number of pets: at most 20, exactly 20 when there are more. */
export const limitDefault: Check = {
  id: 'listPets.limit.default',
  title: 'Without limit, listPets returns the default page (20)',
  severity: 'fail',
  operationId: 'listPets',
  applies: ({ exchange, limit }) => limit === undefined && exchange?.response?.status === 200 && listedPets(exchange) !== undefined,
  run: ({ exchange, atLeast }, spec) => {
    const count = listedPets(exchange)!.length
    const size = pageSize(spec, undefined)
    if (count > size) return [`${requestLine(exchange!)} without limit returned ${count} pets; documented default: ${size}`]
    if (atLeast !== undefined && count < Math.min(size, atLeast)) {
      return [`${requestLine(exchange!)} without limit returned ${count} pets while the target holds at least ${atLeast}; documented default: ${size}`]
    }
    return []
  },
}
