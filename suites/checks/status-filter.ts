import { parameterPointer } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { isObject, listedPets, requestLine, show, withinDocumentedInput } from './util.js'

/** With `status`, listPets returns only pets of that status. */
export const statusFilter = exchangeCheck({
  id: 'listPets.status.filter',
  title: 'With status, listPets returns only pets of that status',
  severity: 'fail',
  basis: (spec) => [{ spec: parameterPointer(spec, 'listPets', 'status', 'description') }],
  on: {
    operation: 'listPets',
    statuses: [200],
    needs: ['status'],
    when: ({ exchange, facts }) => withinDocumentedInput(facts) && listedPets(exchange) !== undefined,
  },
  run: ({ exchange, facts: { status } }) => {
    const listed = listedPets(exchange)!
    if (!listed.length) return notJudged(`${requestLine(exchange)} listed no pet: nothing shows how it filters`)
    const others = listed.filter((pet) => !isObject(pet) || pet.status !== status)
    if (!others.length) return []
    const sample = others
      .slice(0, 3)
      .map((pet) => show(pet))
      .join(', ')
    return [
      `${requestLine(exchange)} returned ${others.length} pets of another status, e.g. ${sample}; documented: only status "${status}"`,
    ]
  },
})
