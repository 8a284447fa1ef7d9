/**
 * listPets: `limit` caps and fills the page, the default page is 20, `status` filters and finds the pets just
 * created when the page has room; out-of-range values are observed, never a 5xx.
 */
import { outOfRangeLimits, outOfRangeStatuses } from '../arbitraries.js'
import { listedPets } from '../checks/util.js'
import { conformanceTest, type Recorder } from '../harness.js'

const BATCH = 10

/** Pets the target holds, at least, after creating what is needed (within the allowance) to reach `want`. */
async function ensurePets(r: Recorder, want: number): Promise<number | undefined> {
  const page = await r.listPets([['limit', String(want)]])
  r.check('listPets.limit.max', { exchange: page, limit: want })
  r.check('listPets.ordering', { exchange: page }, `order of GET /pets?limit=${want}`)
  const listed = listedPets(page)
  if (page.response?.status !== 200 || !listed) return undefined
  // Fewer than `want` listed: that is all the target holds (a target that lists fewer fails limit.fills below).
  let held = Math.min(listed.length, want)
  const missing = want - held
  for (let start = 0; start < missing && r.mayCreate(1 + 3); start += BATCH) {
    const count = Math.min(BATCH, missing - start)
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) => r.createValid({ name: `${r.s.prefix}fill-${start + i}`, categoryId: BigInt(start + i) }, { concurrent: true })),
    )
    held += results.filter((x) => x.pet !== undefined).length
  }
  return held
}

conformanceTest(
  'listPets returns exactly min(limit, pets held) pets, at the edges of limit and in between',
  {
    area: 'list',
    operations: ['listPets'],
    checks: ['listPets.limit.max', 'listPets.limit.fills', 'listPets.finds-created', 'listPets.ordering'],
  },
  async (r) => {
    const { maximum } = r.spec.parameter('listPets', 'limit')
    const held = await ensurePets(r, Number(maximum))
    const full = await r.listPets([['limit', String(maximum)]])
    const context = { limit: Number(maximum), atLeast: held, created: [...r.s.created.values()] }
    r.check('listPets.limit.max', { exchange: full, ...context })
    r.check('listPets.limit.fills', { exchange: full, ...context })
    r.check('listPets.finds-created', { exchange: full, ...context })
    // Every limit from 1 to 100 is a property (6-properties); here the edges and the default, by example.
    for (const limit of [1, 2, 20, Number(maximum) - 1]) {
      const exchange = await r.listPets([['limit', String(limit)]])
      r.check('listPets.limit.max', { exchange, limit, atLeast: held })
      r.check('listPets.limit.fills', { exchange, limit, atLeast: held })
    }
  },
)

conformanceTest(
  'listPets without limit returns the default page of 20',
  { area: 'list', operations: ['listPets'], checks: ['listPets.limit.default'] },
  async (r) => {
    const held = listedPets(await r.listPets([['limit', '100']]))?.length
    r.check('listPets.limit.default', { exchange: await r.listPets(), atLeast: held })
  },
)

conformanceTest(
  'listPets with status returns only that status, and the pets just created when the page has room',
  { area: 'list', operations: ['listPets', 'createPet'], checks: ['listPets.status.filter', 'listPets.finds-created', 'listPets.limit.default'] },
  async (r) => {
    const statuses = r.spec.enumOf('PetStatus')
    const { maximum } = r.spec.parameter('listPets', 'limit')
    const filtered = (status: string) => r.listPets([['status', status], ['limit', String(maximum)]])
    // One fresh pet of each status first, so a filter that filters nothing shows it.
    for (const status of statuses) await r.createValid({ name: `${r.s.prefix}status-${status}`, categoryId: 11n, status })
    for (const status of statuses) {
      const page = await filtered(status)
      r.check('listPets.status.filter', { exchange: page, status })
      r.check('listPets.finds-created', { exchange: page, status, limit: Number(maximum), created: [...r.s.created.values()] })
      // The full page says how many pets of the status there are, at least: the default page holds min(20, that).
      const held = listedPets(page)?.length
      const defaultPage = await r.listPets([['status', status]])
      r.check('listPets.status.filter', { exchange: defaultPage, status })
      r.check('listPets.limit.default', { exchange: defaultPage, atLeast: held })
    }
    // The same queries again after one more create each: a list must show what was just created, not a cached page.
    for (const status of statuses) {
      if (!(await r.createValid({ name: `${r.s.prefix}status-again-${status}`, categoryId: 12n, status })).pet) continue
      const page = await filtered(status)
      r.check('listPets.status.filter', { exchange: page, status })
      r.check('listPets.finds-created', { exchange: page, status, limit: Number(maximum), created: [...r.s.created.values()] })
    }
  },
)

conformanceTest(
  'listPets with limit or status outside the documented range: observed, never a 5xx',
  { area: 'list', operations: ['listPets'], checks: ['listPets.limit.out-of-range', 'listPets.status.out-of-range'] },
  async (r) => {
    for (const limit of outOfRangeLimits(r.spec)) {
      const exchange = await r.listPets([['limit', limit]], { context: { undocumentedInput: true } })
      r.check('listPets.limit.out-of-range', { exchange })
    }
    for (const status of outOfRangeStatuses(r.spec)) {
      const exchange = await r.listPets([['status', status]], { context: { undocumentedInput: true } })
      r.check('listPets.status.out-of-range', { exchange })
    }
  },
)
