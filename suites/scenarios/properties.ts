/**
 * Properties, seeded with --seed and sized by --runs: any valid NewPet (any Unicode name, each status or none,
 * any int64 categoryId) is added, echoed and returned; any invalid body is refused and stores nothing; any
 * documented limit caps and fills the page.
 */
import type { Exchange } from '../../model/index.js'
import { renderInvalid } from '../engine/index.js'
import { scenario } from '../engine/scenario.js'
import { asJson, invalidBody, listLimit, newPet, type InvalidBody } from '../values/index.js'
import { createAndGet, lookForStored, sentinel } from './probes.js'

export const anyValidPet = scenario({
  name: 'createPet adds any valid NewPet (any Unicode name, each status or none, any int64 categoryId) and getPet returns it',
  area: 'create',
  operations: ['createPet', 'getPet'],
  states: ['sent'],
  async run(s) {
    await s.property({
      arbitrary: newPet(s.spec, s.prefix),
      numRuns: s.run.config.runs,
      maxShrinkRuns: 25, // each shrink step creates a pet
      run: async (pet, child) => {
        await createAndGet(child, asJson(pet))
      },
    })
  },
})

export const anyInvalidBody = scenario({
  name: 'createPet refuses any invalid body with 400 and stores nothing',
  area: 'create',
  operations: ['createPet'],
  uses: ['listPets', 'getPet'],
  states: ['sent', 'invalid', 'storedAfter'],
  async run(s) {
    const marker = `${s.prefix}badp-`
    const before = await sentinel(s, 'badp-before')
    const sent = new Map<string, Exchange>()
    await s.property({
      arbitrary: invalidBody(s.spec),
      numRuns: s.run.config.runs,
      maxShrinkRuns: 12,
      show: (invalid: InvalidBody) => `${invalid.why}: ${renderInvalid(invalid, '', s.spec) ?? '(no body)'}`,
      run: async (invalid, child) => {
        const tag = String(sent.size)
        sent.set(tag, await child.createInvalid(renderInvalid(invalid, `${marker}${tag}-`, s.spec), invalid.why))
      },
    })
    // The property's runs were judged apart; what is learned now is judged on this scenario's record.
    await lookForStored(s, marker, sent, before, ['createPet.invalid-stores-nothing'])
  },
})

export const anyLimit = scenario({
  name: 'listPets returns exactly min(limit, pets held) pets for any documented limit',
  area: 'list',
  operations: ['listPets'],
  async run(s) {
    await s.property({
      arbitrary: listLimit(s.spec),
      numRuns: s.run.config.runs,
      run: async (limit, child) => {
        await child.listPets([['limit', String(limit)]])
      },
      show: (limit) => `GET /pets?limit=${limit}`,
    })
  },
})

export const PROPERTIES = [anyValidPet, anyInvalidBody, anyLimit]
