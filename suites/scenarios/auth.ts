/** Authentication on every operation: a missing or invalid key gets 401, and an unauthenticated create stores nothing. */
import type { Credential, Exchange } from '../../model/index.js'
import { idOf, listedPets } from '../checks/util.js'
import { scenario } from '../engine/scenario.js'
import { swapCase } from '../transport/curl.js'
import { lookForStored, sentinel } from './probes.js'

const INVALID: Credential[] = ['none', 'empty', 'wrong', 'basic', 'extended', 'truncated']

/** Every invalid credential the run can make from its key (a key without letters has no other case). */
function invalidCredentials(apiKey: string): Credential[] {
  return swapCase(apiKey) === apiKey ? INVALID : [...INVALID, 'case-changed']
}

export const everyOperationNeedsAKey = scenario({
  name: 'every operation answers 401 without a valid Bearer key',
  area: 'auth',
  operations: ['listPets', 'getPet'],
  credentials: ['invalid'],
  async run(s) {
    // An existing pet: getPet of one cannot answer 404 before it looks at the key.
    const listed = listedPets(await s.listPets([['limit', '10']])) ?? []
    const id = idOf(listed[0]) ?? '1'
    await Promise.all(
      invalidCredentials(s.run.config.apiKey).map(async (credential) => {
        await s.listPets([], { credential })
        await s.getPet(id, { credential })
      }),
    )
  },
})

export const unauthenticatedCreateStoresNothing = scenario({
  name: 'createPet without a valid key answers 401 and stores nothing',
  area: 'auth',
  operations: ['createPet'],
  uses: ['listPets', 'getPet'],
  states: ['storedAfter'],
  credentials: ['invalid'],
  async run(s) {
    const marker = `${s.prefix}unauth-`
    const before = await sentinel(s, 'auth-before')
    const sent = new Map<string, Exchange>()
    for (const [i, credential] of invalidCredentials(s.run.config.apiKey).entries()) {
      sent.set(
        String(i),
        await s.createPet({ name: `${marker}${i}-Rex`, categoryId: 1n, status: 'available' }, { credential }),
      )
    }
    // The key comes first: an invalid body without a key is still a 401, not a 400 (and stores nothing either).
    sent.set('body', await s.createPet({ name: `${marker}body-Rex`, categoryId: 'one' }, { credential: 'none' }))
    await lookForStored(s, marker, sent, before, ['createPet.auth.stores-nothing'])
  },
})

export const schemeCase = scenario({
  name: 'the scheme written in another letter case ("bearer", "BEARER")',
  area: 'auth',
  operations: ['listPets', 'getPet'],
  credentials: ['scheme-case'],
  async run(s) {
    const cases = ['lowercase-scheme', 'uppercase-scheme'] as const
    const pages = await Promise.all(cases.map((credential) => s.listPets([['limit', '1']], { credential })))
    // A pet a page showed, else an id no pet has: either way the answer is not 401.
    const id = pages.map((page) => idOf(listedPets(page)?.[0])).find((known) => known !== undefined)
    await Promise.all(cases.map((credential) => s.getPet(id ?? s.run.unknownId(), { credential })))
  },
})

export const AUTH = [everyOperationNeedsAKey, unauthenticatedCreateStoresNothing, schemeCase]
