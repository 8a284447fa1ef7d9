import { spec, operationPointer, parameterPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { listedPets, requestLine, withinDocumentedInput } from './util.js'

/** listPets returns at most `limit` pets. */
export const limitMax = exchangeCheck({
  id: 'listPets.limit.max',
  title: 'listPets returns at most `limit` pets',
  severity: 'fail',
  basis: [
    { spec: parameterPointer(spec(), 'listPets', 'limit', 'description') },
    { spec: operationPointer(spec(), 'listPets', 'responses', '200', 'description') },
  ],
  on: {
    operation: 'listPets',
    statuses: [200],
    needs: ['limit'],
    when: ({ exchange, facts }) => withinDocumentedInput(facts) && listedPets(exchange) !== undefined,
  },
  run: ({ exchange, facts }) => {
    const count = listedPets(exchange)!.length
    return count <= facts.limit
      ? []
      : [`${requestLine(exchange)} returned ${count} pets; documented: at most ${facts.limit}`]
  },
})
