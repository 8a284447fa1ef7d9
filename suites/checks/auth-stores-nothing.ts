import type { Check } from './check.js'
import { show } from './util.js'

/** A createPet refused for want of a valid key stores nothing. */
export const authStoresNothing: Check = {
  id: 'createPet.auth.stores-nothing',
  title: 'An unauthenticated createPet stores nothing',
  severity: 'fail',
  operationId: 'createPet',
  run: ({ exchange, found }) =>
    found === undefined ? [] : [`createPet without a valid key answered ${exchange?.response?.status ?? 'nothing'}, yet the pet was stored: ${show(found)}`],
}
