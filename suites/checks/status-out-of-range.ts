import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'

/** Observed: what listPets does with a `status` outside the enumeration (other casing included). */
export const statusOutOfRange = exchangeCheck({
  id: 'listPets.status.out-of-range',
  title: 'listPets with status outside the enumeration',
  severity: 'observed',
  on: { operation: 'listPets', needs: ['outOfRange'], when: ({ facts }) => facts.outOfRange.includes('status') },
  run: ({ exchange }) => [describeAnswer(exchange)],
})
