import { parameterPointer } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { listedPets, pageSize, requestLine, withinDocumentedInput } from './util.js'

/** Without `limit`, listPets returns the documented default number of pets: at most that, exactly that when there are more. */
export const limitDefault = exchangeCheck({
  id: 'listPets.limit.default',
  // The title names no number: the basis shows the judged spec's default, in its words.
  title: "Without limit, listPets returns the default page (limit's documented default)",
  severity: 'fail',
  basis: (spec) => [{ spec: parameterPointer(spec, 'listPets', 'limit', 'schema', 'default') }],
  on: {
    operation: 'listPets',
    statuses: [200],
    // No limit sent: a documented one is a fact, an undocumented one is named in outOfRange.
    when: ({ exchange, facts }) =>
      facts.limit === undefined && withinDocumentedInput(facts) && listedPets(exchange) !== undefined,
  },
  run: ({ exchange, facts: { atLeast } }, spec) => {
    const count = listedPets(exchange)!.length
    const size = pageSize(spec, undefined)
    if (count > size)
      return [`${requestLine(exchange)} without limit returned ${count} pets; documented default: ${size}`]
    if (count < size && !(atLeast! > 0))
      return notJudged(`${requestLine(exchange)} returned ${count} pets before the run knew of any: no page to fill`)
    if (atLeast !== undefined && count < Math.min(size, atLeast)) {
      return [
        `${requestLine(exchange)} without limit returned ${count} pets while the target holds at least ${atLeast}; documented default: ${size}`,
      ]
    }
    return []
  },
})
