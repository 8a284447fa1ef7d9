/** getPet: a created pet comes back as created (with the deprecation headers, as advice); an unknown id gets 404. */
import { idOf, listedPets } from '../checks/util.js'
import { conformanceTest } from '../harness.js'
import { unknownBigId, unknownId } from '../probes.js'

conformanceTest(
  'getPet returns a created pet and says it is deprecated',
  {
    area: 'get',
    operations: ['getPet'],
    checks: ['getPet.returns-created', 'getPet.deprecation-header', 'getPet.sunset-header', 'getPet.successor-link'],
  },
  async (r) => {
    let [id, pet] = [...r.s.created.entries()].at(-1) ?? []
    if (id === undefined) {
      pet = (await r.createValid({ name: `${r.s.prefix}get`, categoryId: 3n, status: 'sold' })).pet
      id = idOf(pet)
    }
    if (id === undefined) return
    r.check('getPet.returns-created', { exchange: await r.getPet(id), expected: pet })
  },
)

conformanceTest(
  'getPet of an unknown id answers 404 Error',
  { area: 'get', operations: ['getPet'], checks: ['getPet.unknown-404'] },
  async (r) => {
    const listed = listedPets(await r.listPets([['limit', '100']])) ?? []
    const seen = listed.map(idOf).filter((id): id is string => id !== undefined)
    r.check('getPet.unknown-404', { exchange: await r.getPet(unknownId(r, seen)) })
    // One beyond 2^53, where a target that parses ids through a double (or as int32) goes wrong.
    const big = unknownBigId(r, seen)
    if (big !== undefined) r.check('getPet.unknown-404', { exchange: await r.getPet(big) })
  },
)
