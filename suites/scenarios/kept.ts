/** At the end of the run, the pets created at its start, and those the target held before it, are still there. */
import { listedPets } from '../checks/util.js'
import { ONE_AT_A_TIME } from '../engine/config.js'
import { scenario } from '../engine/scenario.js'

const SAMPLE = 6

export const petsKept = scenario({
  name: 'pets created early in the run, and those held before it, are still returned at its end',
  area: 'get',
  operations: ['getPet'],
  uses: ['listPets'],
  async run(s) {
    // The pets the target held before the run are known from a listing; one, unless the run has listed them.
    if (!s.run.existing.size) await s.listPets([['limit', String(s.spec.parameter('listPets', 'limit').maximum)]])
    const created = [...s.run.created.keys()]
    // The first pets, and a spread over the rest: a store that drops or overwrites old records shows it.
    const step = Math.max(1, Math.floor(created.length / SAMPLE))
    const sample = new Set(
      [...created.slice(0, SAMPLE), ...created.filter((_, i) => i % step === 0)].slice(0, 2 * SAMPLE),
    )
    const existing = [...s.run.existing.keys()].slice(0, 2 * SAMPLE)
    if (!existing.length)
      s.premiseMissing(
        ['getPet.keeps-existing'],
        'the target listed no pets of its own (held before the run): none to look for at its end',
      )
    await Promise.all([...sample, ...existing].map((id) => s.getPet(id)))
  },
})

export const listedKept = scenario({
  name: 'listPets still lists the pets of the run as created, wherever a filtered page has room; each status without limit gets the default page',
  area: 'list',
  operations: ['listPets'],
  async run(s) {
    const maximum = Number(s.spec.parameter('listPets', 'limit').maximum)
    // Without limit too: by now each status likely holds more pets than the default page, so a filter that pages
    // by another default shows here, whatever ran side by side before.
    await Promise.all(
      s.spec
        .enumOf('PetStatus')
        .flatMap((status) => [s.listPets(filtered(status, maximum)), s.listPets([['status', status]])]),
    )
  },
})

const filtered = (status: string, limit: number): [string, string][] => [
  ['status', status],
  ['limit', String(limit)],
]

/** Creates made one at a time, each followed by the same listing: a list served stale shows on one of them. */
const READ_AFTER_WRITE = ONE_AT_A_TIME

/**
 * The last phase, alone: its creates overlap no other create, so they neither blur how ids are assigned nor
 * meet another scenario's pets on the page.
 */
export const listedRightAfterCreate = scenario({
  name: 'listPets lists a pet right after its create returned, on the same filtered query, five times over',
  area: 'list',
  operations: ['listPets'],
  uses: ['createPet'],
  states: ['sent'],
  oneAtATime: true,
  async run(s) {
    const maximum = Number(s.spec.parameter('listPets', 'limit').maximum)
    const statuses = s.spec.enumOf('PetStatus')
    const pages = await Promise.all(statuses.map((status) => s.listPets(filtered(status, maximum))))
    // The status whose page has most room: each pet created with it must show on the same query right after.
    const sizes = pages.map((page) => listedPets(page)?.length ?? maximum)
    const roomiest = sizes.indexOf(Math.min(...sizes))
    if (sizes[roomiest]! + READ_AFTER_WRITE > maximum) {
      s.premiseMissing(['listPets.finds-created'], 'every filtered page is full: a listing proves nothing')
      return
    }
    const status = statuses[roomiest]!
    for (let i = 0; i < READ_AFTER_WRITE && s.mayCreate(); i++) {
      await s.createValid({ name: `${s.prefix}read-after-write-${i}`, categoryId: 22n, status })
      await s.listPets(filtered(status, maximum))
    }
  },
})

export const idsOneAtATime = scenario({
  name: 'how ids are assigned, read from creates made one at a time',
  area: 'create',
  operations: ['createPet'],
  states: ['sent'],
  oneAtATime: true,
  async run(s) {
    // Creates that overlapped others say nothing of the order ids are given in; these overlap none.
    for (let i = 0; s.run.idsInOrder.length < 3 && i < 3; i++)
      await s.createValid({ name: `${s.prefix}in-order-${i}`, categoryId: 21n })
  },
})

export const KEPT = [petsKept, listedKept, idsOneAtATime]

/** After everything, alone. */
export const LAST = [listedRightAfterCreate]
