/**
 * What scenarios share: the example NewPets, sentinels, and the search for pets that must not exist. There is no
 * delete operation, so "nothing was stored" is shown by looking.
 */
import { readFileSync } from 'node:fs'
import type { Exchange } from '../../model/index.js'
import { packageFile, parseJson, type JsonValue } from '../../spec/index.js'
import type { CheckId } from '../checks/index.js'
import { idOf, isObject, listedPets } from '../checks/util.js'
import type { Scenario } from '../engine/scenario.js'

/** The example NewPets of fixtures/new-pets.json: valid ones, invalid ones, and names of every class of Unicode. */
export interface NewPetFixtures {
  valid: { title: string; body: { [key: string]: JsonValue } }[]
  invalid: { title: string; body?: JsonValue; raw?: string }[]
  names: { title: string; name: string }[]
}

/** fixtures/new-pets.json, read once from the package's root, int64 digits kept. */
export const NEW_PET_FIXTURES = parseJson(
  readFileSync(packageFile('fixtures/new-pets.json'), 'utf8'),
) as unknown as NewPetFixtures

// getPet probes spent looking between two sentinels; more ids in between than this and the search gives up.
const MAX_PROBES = 60

/** Creates a valid pet named after `label` and returns its id, so later ids can be bracketed. */
export async function sentinel(s: Scenario, label: string): Promise<bigint | undefined> {
  const { pet } = await s.createValid({ name: `${s.prefix}sentinel-${label}`, categoryId: 1n })
  const id = idOf(pet)
  return id === undefined ? undefined : BigInt(id)
}

/**
 * Pets whose name starts with `marker`, or why the target gives no way to tell: they are found either in a complete
 * listing (fewer pets in all than a full page at `limit`'s maximum), whatever the ids, or, when ids ascend closely
 * enough, by getPet of every id between two sentinels.
 */
export async function findMarked(
  s: Scenario,
  marker: string,
  from?: bigint,
  to?: bigint,
): Promise<JsonValue[] | { why: string }> {
  const marked = (pet: JsonValue) => isObject(pet) && typeof pet.name === 'string' && pet.name.startsWith(marker)
  const maximum = Number(s.spec.parameter('listPets', 'limit').maximum)
  const listing = await s.listPets([['limit', String(maximum)]])
  const pets = listedPets(listing)
  if (listing.response?.status === 200 && pets && pets.length < maximum) return pets.filter(marked)
  const whole =
    listing.response?.status === 200 && pets
      ? `the target holds more pets than one listing at limit=${maximum} shows`
      : `listPets?limit=${maximum} answered ${listing.response?.status ?? listing.error} without a list of pets`
  if (from === undefined || to === undefined)
    return { why: `${whole}, and a sentinel pet to bracket the ids between was not created` }
  if (to <= from) return { why: `${whole}, and its ids do not ascend (a later pet got ${to}, an earlier one ${from})` }
  // Ids of pets the run created itself (its other scenarios', meanwhile) need no look; a pet only seen in a listing
  // may be one a refused request left behind, so it is looked at.
  const unknown: string[] = []
  for (let id = from + 1n; id < to && unknown.length <= MAX_PROBES; id++)
    if (!s.run.created.has(String(id))) unknown.push(String(id))
  if (unknown.length > MAX_PROBES)
    return {
      why: `${whole}, and its ids ascend too far apart to look each one up (${to - from - 1n} ids between ${from} and ${to}; at most ${MAX_PROBES} are)`,
    }
  const found: JsonValue[] = []
  for (const id of unknown) {
    const exchange = await s.getPet(id)
    const pet = exchange.json.kind === 'json' ? exchange.json.value : undefined
    if (exchange.response?.status === 200 && pet !== undefined && marked(pet)) found.push(pet)
  }
  return found
}

/**
 * Looks whether any of `sent` (tagged creates that must store nothing, each named `<marker><tag>-...`) left a pet,
 * and says so of each exchange; where the target gives no way to look, the checks are not applicable, and why.
 */
export async function lookForStored(
  s: Scenario,
  marker: string,
  sent: Map<string, Exchange>,
  before: bigint | undefined,
  checks: readonly CheckId[],
): Promise<void> {
  const after = await sentinel(s, `${marker.slice(s.prefix.length)}after`)
  const found = await findMarked(s, marker, before, after)
  if (!Array.isArray(found)) {
    s.premiseMissing(checks, `there is no way to look for a stored pet: ${found.why}`)
    return
  }
  for (const [tag, exchange] of sent) {
    const stored = found.find((pet) => isObject(pet) && String(pet.name).startsWith(`${marker}${tag}-`))
    s.know(exchange, { storedAfter: stored ?? null })
  }
}

/** Creates a valid pet, then reads it back (the engine judges both). */
export async function createAndGet(s: Scenario, newPet: JsonValue): Promise<JsonValue | undefined> {
  const { pet } = await s.createValid(newPet)
  const id = idOf(pet)
  if (id === undefined) return undefined
  await s.getPet(id)
  return pet
}
