import { operationPointer } from '../../spec/index.js'
import { describeMediaType, requestBodyBytes } from './beyond.js'
import { exchangeCheck } from './check.js'
import { show } from './util.js'

/**
 * A valid NewPet the target refused (whatever its reason: a media type it does not take, a size limit) stores
 * nothing: 201 is the one documented answer for an animal added, so a refusal that adds one misleads the client.
 */
export const refusedStoresNothing = exchangeCheck({
  id: 'createPet.refused-stores-nothing',
  title: 'A createPet refused with an error status stores nothing',
  severity: 'fail',
  basis: (spec) => [{ spec: operationPointer(spec, 'createPet', 'responses', '201', 'description') }],
  // Without a valid key, createPet.auth.stores-nothing judges it; an invalid body, createPet.invalid-stores-nothing.
  // A body the parser may read either way (a duplicate key) has no `sent`, and is judged all the same.
  on: {
    operation: 'createPet',
    needs: ['storedAfter'],
    credential: 'valid',
    when: ({ response, facts }) => response.status >= 400 && facts.invalid === undefined,
  },
  run: ({ exchange, response, facts: { storedAfter, sent } }) =>
    storedAfter === null
      ? []
      : [
          `createPet with ${sent === undefined ? 'a body' : 'a valid NewPet'} of ${requestBodyBytes(exchange)} bytes sent with ${describeMediaType(exchange)} answered ${response.status}, yet the pet was stored: ${show(storedAfter).slice(0, 200)}`,
        ],
})
