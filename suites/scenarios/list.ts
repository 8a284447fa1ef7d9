/**
 * listPets: `limit` caps and fills the page, the default page holds the documented default, `status` filters
 * and finds the pets just created when the page has room; out-of-range values are observed, never a 5xx.
 * The engine derives what each page is judged against (the limit sent, the pets known to exist).
 */
import { outOfRangeLimits, outOfRangeStatuses } from '../values/index.js'
import { listedPets } from '../checks/util.js'
import { scenario, type Scenario } from '../engine/scenario.js'

const BATCH = 10

/** Creates what is needed (within the allowance) for the target to hold a full page of pets. */
export async function ensureFullPage(s: Scenario): Promise<void> {
  const want = Number(s.spec.parameter('listPets', 'limit').maximum)
  const page = await s.listPets([['limit', String(want)]])
  const listed = listedPets(page)
  if (page.response?.status !== 200 || !listed) return
  const missing = want - Math.min(listed.length, want)
  for (let start = 0; start < missing && s.mayCreate(1 + 3); start += BATCH) {
    const count = Math.min(BATCH, missing - start)
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        s.createValid({ name: `${s.prefix}fill-${start + i}`, categoryId: BigInt(start + i) }),
      ),
    )
  }
}

export const limitEdges = scenario({
  name: 'listPets returns exactly min(limit, pets held) pets, at the edges of limit and in between',
  area: 'list',
  operations: ['listPets'],
  uses: ['createPet'],
  states: ['sent'],
  async run(s) {
    const { minimum, maximum, default: byDefault } = s.spec.parameter('listPets', 'limit')
    await ensureFullPage(s)
    // Every limit in the range is a property (properties); here the edges and the default, by example.
    const limits = [
      ...new Set([Number(maximum), Number(minimum), Number(minimum) + 1, Number(byDefault), Number(maximum) - 1]),
    ]
    await Promise.all(limits.map((limit) => s.listPets([['limit', String(limit)]])))
  },
})

export const defaultPage = scenario({
  name: 'listPets without limit returns the default page',
  area: 'list',
  operations: ['listPets'],
  async run(s) {
    await s.listPets()
  },
})

export const statusFilter = scenario({
  name: 'listPets with status returns only that status, and the pets just created when the page has room',
  area: 'list',
  operations: ['listPets'],
  uses: ['createPet'],
  states: ['sent'],
  async run(s) {
    const statuses = s.spec.enumOf('PetStatus')
    const { maximum } = s.spec.parameter('listPets', 'limit')
    const filtered = (status: string) =>
      s.listPets([
        ['status', status],
        ['limit', String(maximum)],
      ])
    // One fresh pet of each status first, so a filter that filters nothing shows it.
    await Promise.all(
      statuses.map((status) => s.createValid({ name: `${s.prefix}status-${status}`, categoryId: 11n, status })),
    )
    await Promise.all(statuses.flatMap((status) => [filtered(status), s.listPets([['status', status]])]))
    // The same queries again after one more create each: a list must show what was just created, not a cached page.
    await Promise.all(
      statuses.map(async (status) => {
        if ((await s.createValid({ name: `${s.prefix}status-again-${status}`, categoryId: 12n, status })).pet)
          await filtered(status)
      }),
    )
  },
})

export const outOfRange = scenario({
  name: 'listPets with limit or status outside the documented range: observed, never a 5xx',
  area: 'list',
  operations: ['listPets'],
  async run(s) {
    await Promise.all([
      ...outOfRangeLimits(s.spec).map((limit) => s.listPets([['limit', limit]])),
      ...outOfRangeStatuses(s.spec).map((status) => s.listPets([['status', status]])),
    ])
  },
})

/**
 * The state the list semantics need, set up on every run rather than left to the random phase, while the store is
 * still small: each status listed before the run creates a pet of it (a status with none must list `[]`), then one
 * pet of each status, then the unfiltered page at `limit`'s maximum, which must list them all when it has room.
 */
export const listSemantics = scenario({
  name: 'listPets lists [] for a status with no pet, and, without a filter, a pet of each status once one exists',
  area: 'list',
  operations: ['listPets'],
  uses: ['createPet'],
  states: ['sent'],
  async run(s) {
    const statuses = s.spec.parameter('listPets', 'status').enum ?? []
    const maximum = String(s.spec.parameter('listPets', 'limit').maximum)
    const before = await Promise.all([
      s.listPets([['limit', maximum]]),
      ...statuses.map((status) =>
        s.listPets([
          ['status', status],
          ['limit', maximum],
        ]),
      ),
    ])
    if (before.every((page) => (listedPets(page)?.length ?? 0) > 0))
      s.premiseMissing(
        ['listPets.empty-is-array'],
        'every status held pets before the run created one (a shared or seeded target): no empty result to judge',
      )
    if (!s.mayCreate(statuses.length)) return
    await Promise.all(
      statuses.map((status) => s.createValid({ name: `${s.prefix}each-${status}`, categoryId: 13n, status })),
    )
    const page = await s.listPets([['limit', maximum]])
    const listed = listedPets(page)
    if (listed && listed.length >= Number(maximum))
      s.premiseMissing(
        ['listPets.unfiltered-lists-all'],
        `the target holds at least ${maximum} pets, a full page: an unfiltered page has no room to show every pet`,
      )
  },
})

export const LIST = [limitEdges, defaultPage, statusFilter, outOfRange]
