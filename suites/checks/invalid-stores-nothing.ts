import { operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { show } from './util.js'

/** A createPet refused as invalid stores nothing. */
export const invalidStoresNothing = exchangeCheck({
  id: 'createPet.invalid-stores-nothing',
  title: 'A createPet refused as invalid stores nothing',
  severity: 'fail',
  basis: (spec) => [
    { spec: operationPointer(spec, 'createPet', 'responses', '400', 'description') },
    { spec: operationPointer(spec, 'createPet', 'responses', '201', 'description') },
  ],
  // Without a valid key, createPet.auth.stores-nothing judges it.
  on: { operation: 'createPet', needs: ['invalid', 'storedAfter'], credential: 'valid' },
  run: ({ exchange, response, facts: { storedAfter } }) =>
    storedAfter === null
      ? []
      : [
          `createPet with the invalid body ${exchange.request.body?.slice(0, 200) ?? '(none)'} answered ${response.status}, yet a pet was stored: ${show(storedAfter)}`,
        ],
})
