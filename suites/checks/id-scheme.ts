import { runCheck } from './check.js'

/** Observed: how the target assigns ids: ascending, dense, beyond 2^53, ... */
export const idScheme = runCheck({
  id: 'createPet.id-scheme',
  title: 'How ids are assigned',
  severity: 'observed',
  on: { operation: 'createPet', oneAtATime: true },
  subject: 'ids of the pets this run created, in order',
  applies: ({ idsInOrder }) => idsInOrder.length >= 2,
  run: ({ idsInOrder }) => {
    const values = idsInOrder.map(BigInt)
    const steps = values.slice(1).map((v, i) => v - values[i]!)
    const order = steps.every((s) => s > 0n) ? 'ascending' : steps.every((s) => s < 0n) ? 'descending' : 'not monotonic'
    const dense = steps.every((s) => s === 1n) ? ', step 1' : ''
    const big = values.some((v) => v > 2n ** 53n || v < -(2n ** 53n)) ? ', beyond 2^53' : ''
    const negative = values.some((v) => v < 0n) ? ', some negative' : ''
    return [`${order} integers${dense}${big}${negative} (e.g. ${values.slice(0, 3).join(', ')})`]
  },
})
