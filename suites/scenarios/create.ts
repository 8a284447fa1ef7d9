/**
 * createPet, by example: valid NewPets are added and echoed exactly (int64 included) and getPet returns them;
 * invalid bodies get 400 and store nothing; concurrent creates get distinct ids; the service assigns ids.
 */
import type { Exchange } from '../../model/index.js'
import { stringifyJson } from '../../spec/index.js'
import { idOf, isObject } from '../checks/util.js'
import { markLabel, renderInvalid } from '../engine/index.js'
import { scenario } from '../engine/scenario.js'
import { invalidExamples } from '../values/index.js'
import { createAndGet, lookForStored, NEW_PET_FIXTURES as fixtures, sentinel } from './probes.js'

export const validExamples = scenario({
  name: 'createPet adds each valid example, echoes it exactly, and getPet returns it',
  area: 'create',
  operations: ['createPet', 'getPet'],
  states: ['sent'],
  async run(s) {
    // The fixtures are written for the bundled spec: a revision's run sends those it still takes as valid.
    const valid = s.spec.schema('NewPet')
    for (const { body } of fixtures.valid.filter((fixture) => valid(fixture.body).length === 0)) {
      // Every pet carries the run's prefix, except the one whose point is an empty name (or one the prefix would
      // push over its maxLength).
      await createAndGet(s, isObject(body) && body.name === '' ? body : markLabel(s.spec, body, s.prefix))
    }
  },
})

export const invalidExamplesRefused = scenario({
  name: 'createPet refuses each invalid example (fixtures, and each missing field and wrong type) with 400 and stores nothing',
  area: 'create',
  operations: ['createPet'],
  uses: ['listPets', 'getPet'],
  states: ['sent', 'invalid', 'storedAfter'],
  async run(s) {
    const marker = `${s.prefix}bad-`
    const before = await sentinel(s, 'bad-before')
    const sent = new Map<string, Exchange>()
    // The fixtures are written for the bundled spec: a revision's run sends those it still refuses.
    const valid = s.spec.schema('NewPet')
    for (const [i, fixture] of fixtures.invalid.entries()) {
      if (fixture.raw === undefined && fixture.body !== undefined && valid(fixture.body).length === 0) continue
      const body = fixture.body === undefined ? undefined : markLabel(s.spec, fixture.body, `${marker}${i}-`)
      const text =
        fixture.raw !== undefined ? fixture.raw || undefined : body === undefined ? undefined : stringifyJson(body)
      sent.set(String(i), await s.createInvalid(text, fixture.title))
    }
    // Then every kind of invalid body the spec implies: each required field missing, each field of each wrong type.
    for (const [i, invalid] of invalidExamples(s.spec).entries()) {
      const tag = `x${i}`
      sent.set(tag, await s.createInvalid(renderInvalid(invalid, `${marker}${tag}-`, s.spec), invalid.why))
    }
    await lookForStored(s, marker, sent, before, ['createPet.invalid-stores-nothing'])
  },
})

export const concurrentCreates = scenario({
  name: '20 concurrent creates get 20 distinct ids, each returned by getPet',
  area: 'create',
  operations: ['createPet', 'getPet'],
  states: ['sent'],
  async run(s) {
    const statuses = s.spec.enumOf('PetStatus')
    const pets = Array.from({ length: 20 }, (_, i) => ({
      name: `${s.prefix}concurrent-${i}`,
      categoryId: BigInt(i),
      status: statuses[i % statuses.length]!,
    }))
    const created = await Promise.all(pets.map((pet) => s.createValid(pet)))
    const ids = created.map(({ pet }) => idOf(pet)).filter((id): id is string => id !== undefined)
    // Each id once: a duplicate is for ids-unique to report, not for getPet to read twice.
    await Promise.all(
      [...new Set(ids)].filter((id) => ids.indexOf(id) === ids.lastIndexOf(id)).map((id) => s.getPet(id)),
    )
  },
})

export const silentChoices = scenario({
  name: 'where the interface is silent: a long name, an undescribed field',
  area: 'create',
  operations: ['createPet'],
  states: ['sent'],
  async run(s) {
    // A status, so the filtered pages at the end of the run (which have room) show it back.
    await s.createValid({ name: `${s.prefix}${'long name '.repeat(100)}`, categoryId: 7n, status: 'sold' })
    // Valid but for a field the schema does not describe: accepting or refusing it is the target's choice.
    await s.createValid({ name: `${s.prefix}extra-field`, categoryId: 8n, nickname: 'Rexy' })
  },
})

export const serviceAssignsIds = scenario({
  name: 'createPet assigns the id itself: an id in the body is not used',
  area: 'create',
  operations: ['createPet', 'getPet'],
  states: ['sent', 'clientId'],
  async run(s) {
    // A valid NewPet (the schema allows more fields) that names an id no pet has; it must stay unused.
    const clientId = s.run.unknownId(7_777_777n)
    const sent = { name: `${s.prefix}with-id`, categoryId: 13n, id: BigInt(clientId) }
    await s.createValid(sent, { facts: { clientId } })
    await s.getPet(clientId, { facts: { clientId, sent } })
  },
})

export const CREATE = [validExamples, invalidExamplesRefused, concurrentCreates, silentChoices, serviceAssignsIds]
