import { operationPointer, parameterPointer } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { bodyOf, canonicalInt64, idOf, lastSegment, requestLine } from './util.js'

/** The id a getPet asks for, as decimal text: the canonical petId, or the integer a non-canonical one spells. */
function askedId(url: string, spells: string | undefined, outsideForm: boolean): string | undefined {
  return outsideForm ? spells : canonicalInt64(lastSegment(url))
}

/** A 200 from getPet shows the pet asked for: its id is the petId, int64-exact (not a neighbour, not an example). */
export const idMatches = exchangeCheck({
  id: 'getPet.id-matches',
  title: 'getPet answers 200 only with the pet whose id was asked for',
  severity: 'fail',
  basis: (spec) => [
    { spec: parameterPointer(spec, 'getPet', 'petId', 'description') },
    { spec: operationPointer(spec, 'getPet', 'responses', '200') },
  ],
  on: {
    operation: 'getPet',
    statuses: [200],
    when: ({ exchange, facts }) =>
      askedId(exchange.request.url, facts.petIdForm?.spells, facts.petIdForm !== undefined) !== undefined,
  },
  run: ({ exchange, facts }) => {
    const asked = askedId(exchange.request.url, facts.petIdForm?.spells, facts.petIdForm !== undefined)!
    const shown = idOf(bodyOf(exchange))
    // A body that is no Pet is response.schema's to judge: it shows no id to compare.
    if (shown === undefined) return notJudged(`${requestLine(exchange)} answered 200 with a body that shows no id`)
    if (shown === asked) return []
    return [
      `${requestLine(exchange)} answered 200 with the pet of id ${shown}; documented: the animal with id ${asked}`,
    ]
  },
})
