import { operationPointer, parameterPointer } from '../../spec/index.js'
import { refusedBeyondInterface } from './beyond.js'
import { exchangeCheck, notJudged } from './check.js'
import { bodyOf, idOf, requestLine } from './util.js'

/** Where a petId outside its documented form is answered, on which grounds. */
const GROUNDS = '404 Error, as for any petId that identifies no animal, or 400 Error for input that is no int64'

/**
 * A petId that is no int64 in canonical form (`abc`, `1.5`, beyond int64, `007`) identifies no animal as the spec
 * writes ids: 404 (documented) or 400 (the usual refusal of such input) are both accepted; a spelling of an integer
 * (`007`) may also be read as that integer, and answered 200 with that very pet. A petId so long that HTTP refuses
 * the target (414, or 431) is input beyond the interface: observed by getPet.invalid-id. Anything else fails; a 5xx always.
 */
export const invalidIdRefused = exchangeCheck({
  id: 'getPet.invalid-id-refused',
  title: 'getPet refuses a petId that is no int64 with 404 or 400',
  severity: 'fail',
  basis: (spec) => [
    { spec: parameterPointer(spec, 'getPet', 'petId', 'schema') },
    { spec: operationPointer(spec, 'getPet', 'responses', '404') },
  ],
  on: { operation: 'getPet', needs: ['petIdForm'], credential: 'valid' },
  run: ({ exchange, response, facts: { petIdForm } }, spec) => {
    const { status } = response
    if (status === 400 || status === 404) return []
    const beyond = refusedBeyondInterface(exchange, spec)
    if (beyond !== undefined) return notJudged(`${requestLine(exchange)}: ${beyond}`)
    if (status === 200 && petIdForm.spells !== undefined && idOf(bodyOf(exchange)) === petIdForm.spells) return []
    const read = petIdForm.spells === undefined ? '' : `, or 200 with the pet whose id it spells (${petIdForm.spells})`
    return [`${requestLine(exchange)} (${petIdForm.kind}) answered ${status}; documented: ${GROUNDS}${read}`]
  },
})
