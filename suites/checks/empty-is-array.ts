import { operationPointer } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { isObject, requestLine, withinDocumentedInput } from './util.js'

/**
 * An empty result is the empty array: Pets is "a JSON array of Pet objects", so a page with no pet is `[]`, never
 * `null` (a nil slice serialised), `{}` or no body at all. Judged on the pages that hold no pet; a page with pets
 * says nothing of how the target spells none.
 */
export const emptyIsArray = exchangeCheck({
  id: 'listPets.empty-is-array',
  title: 'An empty listPets result is [] (never null, {} or no body)',
  severity: 'fail',
  basis: (spec) => [
    { spec: '#/components/schemas/Pets/description' },
    { spec: operationPointer(spec, 'listPets', 'responses', '200') },
  ],
  on: { operation: 'listPets', statuses: [200], when: ({ facts }) => withinDocumentedInput(facts) },
  run: ({ exchange }) => {
    const where = `${requestLine(exchange)} answered 200`
    const { json } = exchange
    const value = json.kind === 'json' ? json.value : undefined
    if (Array.isArray(value))
      return value.length ? notJudged(`${where} with ${value.length} pet(s): the result is not empty`) : []
    const none =
      json.kind === 'empty'
        ? 'no body'
        : value === null
          ? 'null'
          : isObject(value) && Object.keys(value).length === 0
            ? '{}'
            : undefined
    if (none === undefined) return notJudged(`${where} with a body that is no array (response.schema judges it)`)
    return [`${where} with ${none}; documented: a Pets array, [] when no pet matches`]
  },
})
