import type { Check } from './check.js'
import { bodyOf, fieldsToMatch, idOf, petDifferences, requestLine } from './util.js'

/** A created pet is available: getPet of its id answers 200 with the pet as created. */
export const returnsCreated: Check = {
  id: 'getPet.returns-created',
  title: 'getPet returns a created pet as it was created',
  severity: 'fail',
  operationId: 'getPet',
  applies: ({ exchange, expected }) => exchange?.response !== undefined && idOf(expected) !== undefined,
  run: ({ exchange, expected }) => {
    const status = exchange!.response!.status
    const where = `${requestLine(exchange!)} of a pet created by this run`
    if (status !== 200) return [`${where} answered ${status}; documented: 200 Pet`]
    const differences = petDifferences(bodyOf(exchange), expected!, fieldsToMatch(expected!, ['id', 'name', 'categoryId', 'status']))
    return differences.length ? [`${where} returned a different pet: ${differences.join('; ')}`] : []
  },
}
