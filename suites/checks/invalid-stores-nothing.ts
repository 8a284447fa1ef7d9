import type { Check } from './check.js'
import { show } from './util.js'

/** A refused createPet stores nothing. */
export const invalidStoresNothing: Check = {
  id: 'createPet.invalid-stores-nothing',
  title: 'A createPet refused as invalid stores nothing',
  severity: 'fail',
  operationId: 'createPet',
  run: ({ exchange, found }) =>
    found === undefined
      ? []
      : [`createPet with the invalid body ${exchange?.request.body?.slice(0, 200) ?? '(none)'} answered ${exchange?.response?.status ?? 'nothing'}, yet a pet was stored: ${show(found)}`],
}
