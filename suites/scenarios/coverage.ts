/** Every documented status the suite can provoke from a conformant target is provoked; the engine tallies them. */
import { idOf } from '../checks/util.js'
import { scenario } from '../engine/scenario.js'

export const provokeEveryStatus = scenario({
  name: 'each documented status of each operation is provoked',
  area: 'coverage',
  operations: ['listPets', 'createPet', 'getPet'],
  states: ['sent', 'invalid', 'unknown'],
  credentials: ['valid', 'invalid'],
  async run(s) {
    const { minimum } = s.spec.parameter('listPets', 'limit')
    await s.listPets([['limit', String(minimum)]])
    await s.listPets([], { credential: 'none' })
    const { pet } = await s.createValid({ name: `${s.prefix}coverage`, categoryId: 5n })
    await s.createInvalid(undefined, 'there is no body')
    await s.createPet({ name: `${s.prefix}coverage-unauth`, categoryId: 5n }, { credential: 'none' })
    const id = idOf(pet) ?? [...s.run.created.keys()].at(-1) ?? '1'
    await s.getPet(id)
    await s.getPet(id, { credential: 'none' })
    await s.getUnknown(s.run.unknownId())
  },
})

export const COVERAGE = [provokeEveryStatus]
