import { operationPointer } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import {
  fieldsToMatch,
  idOf,
  isObject,
  listedPets,
  pageSize,
  petDifferences,
  requestLine,
  withinDocumentedInput,
} from './util.js'

/**
 * listPets shows the pets this run created as they were created, and, when the page is not full (so it
 * holds every matching pet), lists each of them. Ordering is not described, so a full page proves nothing.
 */
export const findsCreated = exchangeCheck({
  id: 'listPets.finds-created',
  title: 'listPets lists created pets as created, whenever the page has room for them',
  severity: 'fail',
  basis: (spec) => [
    { spec: operationPointer(spec, 'listPets', 'summary') },
    { spec: operationPointer(spec, 'createPet', 'responses', '201', 'description') },
  ],
  on: {
    operation: 'listPets',
    statuses: [200],
    needs: ['created'],
    when: ({ exchange, facts }) => withinDocumentedInput(facts) && listedPets(exchange) !== undefined,
  },
  run: ({ exchange, facts: { created, limit, status } }, spec) => {
    const listed = listedPets(exchange)!
    const byId = new Map(listed.map((pet) => [idOf(pet), pet]))
    const room = listed.length < pageSize(spec, limit)
    const matching = created.filter((pet) => status === undefined || (isObject(pet) && pet.status === status))
    const shownAny = created.some((pet) => byId.has(idOf(pet)))
    // Nothing of the run's to look for, or a full page that shows none of it: the listing proves nothing.
    if (!matching.length && !shownAny)
      return notJudged(`${requestLine(exchange)} was sent before the run created a pet it matches`)
    if (!room && !shownAny) return notJudged(`${requestLine(exchange)} returned a full page: it need not show them`)
    const messages: string[] = []
    for (const pet of created) {
      const shown = byId.get(idOf(pet))
      if (shown === undefined) continue
      const differences = petDifferences(shown, pet, fieldsToMatch(spec, pet))
      if (differences.length)
        messages.push(
          `${requestLine(exchange)} lists pet ${idOf(pet)} differently from how it was created: ${differences.join('; ')}`,
        )
    }
    const missing = matching.filter((pet) => !byId.has(idOf(pet)))
    if (room && missing.length) {
      messages.push(
        `${requestLine(exchange)} returned ${listed.length} pets (page not full) without ${missing.length} pet(s) this run created, e.g. id ${idOf(missing[0])}; documented: every matching pet fits the page`,
      )
    }
    return messages
  },
})
