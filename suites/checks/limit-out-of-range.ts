import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'
import { listedPets, pageSize } from './util.js'

/** Observed: what listPets does with `limit` outside its documented range or not an integer. */
export const limitOutOfRange = exchangeCheck({
  id: 'listPets.limit.out-of-range',
  title: 'listPets with limit outside its documented range',
  severity: 'observed',
  on: { operation: 'listPets', needs: ['outOfRange'], when: ({ facts }) => facts.outOfRange.includes('limit') },
  run: ({ exchange }, spec) => {
    const pets = listedPets(exchange)
    const max = Number(spec.parameter('listPets', 'limit').maximum)
    const note = !pets
      ? ''
      : pets.length === max
        ? ' (clamped to the maximum?)'
        : pets.length === pageSize(spec, undefined)
          ? ' (default page?)'
          : ''
    return [`${describeAnswer(exchange)}${note}`]
  },
})
