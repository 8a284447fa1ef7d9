import { operationPointer } from '../../spec/index.js'
import { refusedBeyondInterface } from './beyond.js'
import { exchangeCheck, notJudged } from './check.js'
import { requestLine } from './util.js'

/**
 * An invalid body (missing, malformed, required field absent, wrong type, outside the enum) is refused: 400. A body
 * beyond what the interface describes (over the size floor, of an undocumented media type) may get HTTP's own
 * refusal instead (413, 415): observed, not failed.
 */
export const rejectsInvalid = exchangeCheck({
  id: 'createPet.rejects-invalid',
  title: 'createPet refuses every invalid body with 400',
  severity: 'fail',
  basis: (spec) => [
    { spec: operationPointer(spec, 'createPet', 'responses', '400', 'description') },
    { spec: '#/components/schemas/NewPet/required' },
  ],
  // Without a valid key the answer is 401 whatever the body: createPet.auth.required judges that.
  on: { operation: 'createPet', needs: ['invalid'], credential: 'valid' },
  run: ({ exchange, response, facts }, spec) => {
    if (response.status === 400) return []
    const beyond = refusedBeyondInterface(exchange, spec)
    if (beyond !== undefined) return notJudged(`${requestLine(exchange)}: ${beyond}`)
    const body = exchange.request.body === undefined ? 'no body' : `body ${exchange.request.body.slice(0, 200)}`
    // Why the body is invalid names what of NewPet it breaks (a closed NewPet's undeclared field, say).
    return [
      `${requestLine(exchange)} with the invalid ${body} answered ${response.status}; documented: 400 Error (invalid: ${facts.invalid})`,
    ]
  },
})
