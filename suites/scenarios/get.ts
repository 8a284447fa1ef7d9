/** getPet: a created pet comes back as created (with the deprecation headers, as advice); an unknown id gets 404. */
import { idOf, listedPets } from '../checks/util.js'
import { scenario } from '../engine/scenario.js'

export const getCreated = scenario({
  name: 'getPet returns a created pet and says it is deprecated',
  area: 'get',
  operations: ['getPet'],
  uses: ['createPet'],
  states: ['sent'],
  async run(s) {
    let id = [...s.run.created.keys()].at(-1)
    if (id === undefined)
      id = idOf((await s.createValid({ name: `${s.prefix}get`, categoryId: 3n, status: 'sold' })).pet)
    if (id !== undefined) await s.getPet(id)
  },
})

export const getUnknown = scenario({
  name: 'getPet of an unknown id answers 404 Error',
  area: 'get',
  operations: ['getPet'],
  uses: ['listPets'],
  states: ['unknown'],
  async run(s) {
    const maximum = s.spec.parameter('listPets', 'limit').maximum
    listedPets(await s.listPets([['limit', String(maximum)]])) // what the target holds, so the unknown id is far from all
    await s.getUnknown(s.run.unknownId())
    // One beyond 2^53, where a target that parses ids through a double (or as int32) goes wrong.
    const big = s.run.unknownBigId()
    if (big !== undefined) await s.getUnknown(big)
  },
})

export const GET = [getCreated, getUnknown]
