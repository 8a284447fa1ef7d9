import { operationPointer, parameterPointer } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { listedPets, requestLine, withinDocumentedInput } from './util.js'

/** listPets fills the page: min(limit, pets held) pets, not fewer. */
export const limitFills = exchangeCheck({
  id: 'listPets.limit.fills',
  title: 'listPets returns min(limit, pets held) pets, not fewer',
  severity: 'fail',
  basis: (spec) => [
    { spec: operationPointer(spec, 'listPets', 'summary') },
    { spec: parameterPointer(spec, 'listPets', 'limit', 'description') },
  ],
  on: {
    operation: 'listPets',
    statuses: [200],
    needs: ['limit', 'atLeast'],
    when: ({ exchange, facts }) => withinDocumentedInput(facts) && listedPets(exchange) !== undefined,
  },
  run: ({ exchange, facts: { limit, atLeast } }) => {
    const count = listedPets(exchange)!.length
    if (atLeast === 0) return notJudged(`${requestLine(exchange)} was sent before the run knew of any pet`)
    const expected = Math.min(limit, atLeast)
    if (count >= expected) return []
    return [
      `${requestLine(exchange)} returned ${count} pets while the target holds at least ${atLeast}; documented: ${expected} (min of limit and pets held)`,
    ]
  },
})
