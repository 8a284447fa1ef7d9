/** At the end of the run, the pets created at its start, and those the target held before it, are still there. */
import { conformanceTest } from '../harness.js'

const SAMPLE = 6

conformanceTest(
  'pets created early in the run, and those held before it, are still returned at its end',
  { area: 'get', operations: ['getPet'], checks: ['getPet.returns-created', 'getPet.keeps-existing'] },
  async (r) => {
    const created = [...r.s.created.entries()]
    // The first pets, and a spread over the rest: a store that drops or overwrites old records shows it.
    const step = Math.max(1, Math.floor(created.length / SAMPLE))
    const sample = [...created.slice(0, SAMPLE), ...created.filter((_, i) => i % step === 0)].slice(0, 2 * SAMPLE)
    for (const [id, pet] of new Map(sample)) r.check('getPet.returns-created', { exchange: await r.getPet(id), expected: pet })
    for (const [id, pet] of r.s.listedAtStart) r.check('getPet.keeps-existing', { exchange: await r.getPet(id), expected: pet })
  },
)

conformanceTest(
  'listPets still lists the pets of the run as created, wherever a filtered page has room',
  { area: 'list', operations: ['listPets'], checks: ['listPets.finds-created', 'listPets.status.filter'] },
  async (r) => {
    const { maximum } = r.spec.parameter('listPets', 'limit')
    const created = [...r.s.created.values()]
    for (const status of r.spec.enumOf('PetStatus')) {
      const page = await r.listPets([['status', status], ['limit', String(maximum)]])
      r.check('listPets.status.filter', { exchange: page, status })
      r.check('listPets.finds-created', { exchange: page, status, limit: Number(maximum), created })
    }
  },
)
