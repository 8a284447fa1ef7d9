/**
 * Properties, seeded with --seed and sized by --runs: any valid NewPet (any Unicode name, each status or none,
 * any int64 categoryId) is added, echoed and returned; any invalid body is refused and stores nothing; any
 * limit from 1 to 100 caps and fills the page. They run after the example-based checks of every operation,
 * so a slow target that reaches --max-time has had each operation judged at least once.
 */
import { asJson, invalidBody, listLimit, newPet, renderInvalid, type InvalidBody } from '../arbitraries.js'
import { listedPets } from '../checks/util.js'
import type { Exchange } from '../client.js'
import { conformanceTest } from '../harness.js'
import { checkNothingStored, createAndGet, sentinel } from '../probes.js'

const CREATE = ['createPet', 'getPet'] as const

conformanceTest(
  'createPet adds any valid NewPet (any Unicode name, each status or none, any int64 categoryId) and getPet returns it',
  {
    area: 'create',
    operations: [...CREATE],
    checks: ['createPet.accepts-valid', 'createPet.echo', 'createPet.ids-unique', 'getPet.returns-created'],
  },
  async (r) => {
    await r.property({
      arbitrary: newPet(r.spec, r.s.prefix),
      numRuns: r.s.config.runs,
      maxShrinkRuns: 25, // each shrink step creates a pet
      run: async (pet, child) => {
        await createAndGet(child, asJson(pet))
      },
    })
  },
)

conformanceTest(
  'createPet refuses any invalid body with 400 and stores nothing',
  { area: 'create', operations: ['createPet'], checks: ['createPet.rejects-invalid', 'createPet.invalid-stores-nothing'] },
  async (r) => {
    const marker = `${r.s.prefix}badp-`
    const before = await sentinel(r, 'badp-before')
    const sent = new Map<string, Exchange>()
    await r.property({
      arbitrary: invalidBody(r.spec),
      numRuns: r.s.config.runs,
      maxShrinkRuns: 12,
      show: (invalid: InvalidBody) => `${invalid.why}: ${renderInvalid(invalid, '') ?? '(no body)'}`,
      run: async (invalid, child) => {
        const tag = String(sent.size)
        const text = renderInvalid(invalid, `${marker}${tag}-`)
        const exchange = await child.createPet(undefined, { raw: text })
        child.check('createPet.rejects-invalid', { exchange })
        sent.set(tag, exchange)
      },
    })
    await checkNothingStored(r, marker, sent, before)
  },
)

conformanceTest(
  'listPets returns exactly min(limit, pets held) pets for any limit from 1 to 100',
  { area: 'list', operations: ['listPets'], checks: ['listPets.limit.max', 'listPets.limit.fills', 'listPets.valid-query-accepted'] },
  async (r) => {
    const { maximum } = r.spec.parameter('listPets', 'limit')
    const held = listedPets(await r.listPets([['limit', String(maximum)]]))?.length
    await r.property({
      arbitrary: listLimit(r.spec),
      numRuns: r.s.config.runs,
      run: async (limit, child) => {
        const exchange = await child.listPets([['limit', String(limit)]])
        child.check('listPets.limit.max', { exchange, limit, atLeast: held })
        child.check('listPets.limit.fills', { exchange, limit, atLeast: held })
      },
      show: (limit) => `GET /pets?limit=${limit}`,
    })
  },
)
