/**
 * createPet, by example: valid NewPets are added and echoed exactly (int64 included) and getPet returns them;
 * invalid bodies get 400 and store nothing; concurrent creates get distinct ids; the service assigns ids.
 * The properties over any NewPet and any invalid body run later (6-properties), once every operation had its turn.
 */
import { readFileSync } from 'node:fs'
import { parseJson, type JsonValue } from '../../spec/index.js'
import { invalidExamples, renderInvalid } from '../arbitraries.js'
import { idOf, isObject } from '../checks/util.js'
import type { Exchange } from '../client.js'
import { conformanceTest } from '../harness.js'
import { checkNothingStored, createAndGet, sentinel, unknownId } from '../probes.js'

interface Fixtures {
  valid: { title: string; body: { [key: string]: JsonValue } }[]
  invalid: { title: string; body?: JsonValue; raw?: string }[]
}

const fixtures = parseJson(readFileSync(new URL('../../fixtures/new-pets.json', import.meta.url), 'utf8')) as unknown as Fixtures

const CREATE = ['createPet', 'getPet'] as const

conformanceTest(
  'createPet adds each valid example, echoes it exactly, and getPet returns it',
  {
    area: 'create',
    operations: [...CREATE],
    checks: ['createPet.accepts-valid', 'createPet.echo', 'createPet.ids-unique', 'getPet.returns-created', 'createPet.status.default'],
  },
  async (r) => {
    for (const { body } of fixtures.valid) {
      // Every pet carries the run's prefix, except the one whose point is an empty name.
      const name = body.name === '' ? '' : `${r.s.prefix}${String(body.name)}`
      await createAndGet(r, { ...body, name })
    }
  },
)

conformanceTest(
  'createPet refuses each invalid example (fixtures, and each missing field and wrong type) with 400 and stores nothing',
  { area: 'create', operations: ['createPet'], checks: ['createPet.rejects-invalid', 'createPet.invalid-stores-nothing'] },
  async (r) => {
    const marker = `${r.s.prefix}bad-`
    const before = await sentinel(r, 'bad-before')
    const sent = new Map<string, Exchange>()
    for (const [i, fixture] of fixtures.invalid.entries()) {
      const body = isObject(fixture.body) && typeof fixture.body.name === 'string' ? { ...fixture.body, name: `${marker}${i}-${fixture.body.name}` } : fixture.body
      const exchange = await r.createPet(body, fixture.raw === undefined ? {} : { raw: fixture.raw === '' ? undefined : fixture.raw })
      r.check('createPet.rejects-invalid', { exchange })
      sent.set(String(i), exchange)
    }
    // Then every kind of invalid body the spec implies: each required field missing, each field of each wrong type.
    for (const [i, invalid] of invalidExamples(r.spec).entries()) {
      const tag = `x${i}`
      const exchange = await r.createPet(undefined, { raw: renderInvalid(invalid, `${marker}${tag}-`) })
      r.check('createPet.rejects-invalid', { exchange })
      sent.set(tag, exchange)
    }
    await checkNothingStored(r, marker, sent, before)
  },
)

conformanceTest(
  '20 concurrent creates get 20 distinct ids, each returned by getPet',
  { area: 'create', operations: [...CREATE], checks: ['createPet.ids-unique', 'getPet.returns-created'] },
  async (r) => {
    const pets = Array.from({ length: 20 }, (_, i) => ({ name: `${r.s.prefix}concurrent-${i}`, categoryId: BigInt(i), status: 'pending' }))
    const created = await Promise.all(pets.map((pet) => r.createValid(pet, { concurrent: true })))
    const byId = new Map<string, number>()
    for (const { exchange, pet } of created) {
      const id = idOf(pet)
      if (id === undefined) continue
      // Duplicates within the batch: each id once, whatever order the answers came in.
      r.check('createPet.ids-unique', { exchange, takenIds: new Set(byId.has(id) ? [id] : []) })
      byId.set(id, (byId.get(id) ?? 0) + 1)
    }
    await Promise.all(
      created.map(async ({ pet }) => {
        const id = idOf(pet)
        if (id !== undefined && byId.get(id) === 1) r.check('getPet.returns-created', { exchange: await r.getPet(id), expected: pet })
      }),
    )
  },
)

conformanceTest(
  'where the interface is silent: a long name, an undescribed field, the id scheme',
  { area: 'create', operations: ['createPet'], checks: ['createPet.name.long', 'createPet.unknown-field', 'createPet.id-scheme', 'createPet.echo', 'createPet.accepts-valid'] },
  async (r) => {
    // A status, so the filtered pages at the end of the run (which have room) show it back.
    const long = { name: `${r.s.prefix}${'long name '.repeat(100)}`, categoryId: 7n, status: 'sold' }
    const { exchange: longExchange } = await r.createValid(long) // observes a 400 as a size limit itself
    if (longExchange.response?.status !== 400) r.check('createPet.name.long', { exchange: longExchange, sent: long }, 'POST /pets with a 1012-character name')
    const extra = { name: `${r.s.prefix}extra-field`, categoryId: 8n, nickname: 'Rexy' }
    const extraExchange = await r.createPet(extra)
    r.check('createPet.unknown-field', { exchange: extraExchange }, 'POST /pets with an undescribed field "nickname"')
    const ids = r.s.idsInOrder.map((id) => BigInt(id))
    r.check('createPet.id-scheme', { ids }, 'ids of the pets this run created, in order')
  },
)

conformanceTest(
  'createPet assigns the id itself: an id in the body is not used',
  { area: 'create', operations: [...CREATE], checks: ['createPet.assigns-id'] },
  async (r) => {
    // A valid NewPet (the schema allows more fields) that names an id no pet has; it must stay unused.
    const id = unknownId(r, [], 7_777_777n)
    const sent = { name: `${r.s.prefix}with-id`, categoryId: 13n, id: BigInt(id) }
    r.check('createPet.assigns-id', { exchange: await r.createPet(sent), sent })
    r.check('createPet.assigns-id', { exchange: await r.getPet(id) })
  },
)
