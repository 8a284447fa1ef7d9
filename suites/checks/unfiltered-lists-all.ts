import { operationPointer, parameterPointer } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { idOf, isObject, listedPets, pageSize, requestLine, withinDocumentedInput } from './util.js'

/**
 * Without `status` no filter applies: a page with room lists every pet the run created before it, whatever its status.
 * Judged once the run has created a pet of each status the spec enumerates (the suite does, before any other listing),
 * so a list that keeps one status shows; a full page, where ordering decides what shows, is not judged.
 */
export const unfilteredListsAll = exchangeCheck({
  id: 'listPets.unfiltered-lists-all',
  title: 'Without status, a listPets page with room lists every pet created, one of each status included',
  severity: 'fail',
  basis: (spec) => [
    { spec: parameterPointer(spec, 'listPets', 'status', 'description') },
    { spec: operationPointer(spec, 'listPets', 'description') },
  ],
  on: {
    operation: 'listPets',
    statuses: [200],
    needs: ['created'],
    when: ({ exchange, facts }) =>
      facts.status === undefined && withinDocumentedInput(facts) && listedPets(exchange) !== undefined,
  },
  run: ({ exchange, facts: { created, limit } }, spec) => {
    const listed = listedPets(exchange)!
    const where = requestLine(exchange)
    const size = pageSize(spec, limit)
    // No limit sent and no default documented: how many pets a page holds is the service's choice.
    if (Number.isNaN(size))
      return notJudged(
        `${where} named no limit and the spec documents no default: the page size is the service's choice`,
      )
    if (listed.length >= size)
      return notJudged(`${where} returned a full page (${listed.length}): ordering decides which pets show`)
    const statuses = spec.parameter('listPets', 'status').enum ?? []
    const of = (status: string) => created.filter((pet) => isObject(pet) && pet.status === status)
    const lacking = statuses.filter((status) => of(status).length === 0)
    if (lacking.length)
      return notJudged(`${where} was sent before the run created a pet of status ${lacking.join(', ')}`)
    const shown = new Set(listed.map(idOf))
    const missing = created.filter((pet) => !shown.has(idOf(pet)))
    if (!missing.length) return []
    const missingStatuses = [
      ...new Set(missing.map((pet) => (isObject(pet) && typeof pet.status === 'string' ? pet.status : '(none)'))),
    ]
    return [
      `${where} returned ${listed.length} pets (page not full) without ${missing.length} pet(s) this run created, of status ${missingStatuses.join(', ')} (e.g. id ${idOf(missing[0])}); documented: without status no filter applies`,
    ]
  },
})
