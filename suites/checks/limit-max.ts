import { operationPointer, parameterPointer } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { listedPets, requestLine, withinDocumentedInput } from './util.js'

/** listPets returns at most `limit` pets. */
export const limitMax = exchangeCheck({
  id: 'listPets.limit.max',
  title: 'listPets returns at most `limit` pets',
  severity: 'fail',
  basis: (spec) => [
    { spec: parameterPointer(spec, 'listPets', 'limit', 'description') },
    { spec: operationPointer(spec, 'listPets', 'responses', '200', 'description') },
  ],
  on: {
    operation: 'listPets',
    statuses: [200],
    needs: ['limit'],
    when: ({ exchange, facts }) => withinDocumentedInput(facts) && listedPets(exchange) !== undefined,
  },
  run: ({ exchange, facts }) => {
    const count = listedPets(exchange)!.length
    // A page short of `limit` had nothing beyond it to leave out (listPets.limit.fills judges whether it should have).
    if (count < facts.limit)
      return notJudged(`${requestLine(exchange)} returned ${count} pets, fewer than limit: nothing beyond it to cut`)
    return count <= facts.limit
      ? []
      : [`${requestLine(exchange)} returned ${count} pets; documented: at most ${facts.limit}`]
  },
})
