import { operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { show } from './util.js'

/** A createPet refused for want of a valid key stores nothing. */
export const authStoresNothing = exchangeCheck({
  id: 'createPet.auth.stores-nothing',
  title: 'An unauthenticated createPet stores nothing',
  severity: 'fail',
  basis: (spec) => [
    { spec: operationPointer(spec, 'createPet', 'responses', '401') },
    { spec: operationPointer(spec, 'createPet', 'responses', '201', 'description') },
  ],
  on: { operation: 'createPet', needs: ['storedAfter'], credential: 'invalid' },
  run: ({ response, facts: { storedAfter } }) =>
    storedAfter === null
      ? []
      : [`createPet without a valid key answered ${response.status}, yet the pet was stored: ${show(storedAfter)}`],
})
