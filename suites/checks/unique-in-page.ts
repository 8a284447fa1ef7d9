import { exchangeCheck, notJudged } from './check.js'
import { idOf, listedPets, requestLine } from './util.js'

/** A page of listPets holds each pet once. */
export const uniqueInPage = exchangeCheck({
  id: 'listPets.unique-in-page',
  title: 'A page of listPets holds each pet once',
  severity: 'fail',
  basis: [
    { spec: '#/components/schemas/Pets/description' },
    { spec: '#/components/schemas/Pet/allOf/1/properties/id/description' },
  ],
  on: { operation: 'listPets', statuses: [200], when: ({ exchange }) => listedPets(exchange) !== undefined },
  run: ({ exchange }) => {
    const listed = listedPets(exchange)!
    if (listed.length < 2) return notJudged(`${requestLine(exchange)} listed ${listed.length} pet(s): none to repeat`)
    const seen = new Set<string>()
    const repeated = new Set<string>()
    for (const id of listed.map(idOf)) {
      if (id === undefined) continue
      if (seen.has(id)) repeated.add(id)
      seen.add(id)
    }
    if (!repeated.size) return []
    return [
      `${requestLine(exchange)} listed ${repeated.size} pet(s) more than once, e.g. id ${[...repeated][0]}; documented: an array of pets`,
    ]
  },
})
