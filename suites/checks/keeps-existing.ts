import type { Check } from './check.js'
import { bodyOf, idOf, petDifferences, requestLine } from './util.js'

/**
 * A pet the target listed at the start of the run is still there at its end, with its name and category.
 * Its status is not compared: transitions between statuses are not described and may happen at any time.
 */
export const keepsExisting: Check = {
  id: 'getPet.keeps-existing',
  title: 'Pets listed at the start of the run are still returned at its end',
  severity: 'fail',
  operationId: 'getPet',
  applies: ({ exchange, expected }) => exchange?.response !== undefined && idOf(expected) !== undefined,
  run: ({ exchange, expected }) => {
    const status = exchange!.response!.status
    const where = `${requestLine(exchange!)} of a pet listed at the start of the run`
    if (status !== 200) return [`${where} answered ${status}; documented: 200 Pet (pets are never removed by the described operations)`]
    const differences = petDifferences(bodyOf(exchange), expected!, ['id', 'name', 'categoryId'])
    return differences.length ? [`${where} returned a different pet: ${differences.join('; ')}`] : []
  },
}
