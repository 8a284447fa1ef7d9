/**
 * Requests the conformance tests share: sentinels and the search for pets that must not exist, and the
 * choice of an id no pet has. There is no delete operation, so "nothing was stored" is shown by looking.
 */
import type { JsonValue } from '../spec/index.js'
import { idOf, isObject, listedPets } from './checks/util.js'
import type { Exchange } from './client.js'
import type { Recorder } from './harness.js'

// getPet probes spent looking between two sentinels; more ids in between than this and the search gives up.
const MAX_PROBES = 60
const MAX_PAGE = 100

/** Creates a valid pet named after `label` and returns its id, so later ids can be bracketed. */
export async function sentinel(r: Recorder, label: string): Promise<bigint | undefined> {
  const { pet } = await r.createValid({ name: `${r.s.prefix}sentinel-${label}`, categoryId: 1n })
  const id = idOf(pet)
  return id === undefined ? undefined : BigInt(id)
}

/**
 * Pets whose name starts with `marker`, or undefined when the target cannot tell: found either in a
 * complete listing (fewer than 100 pets in all) or, when ids ascend, by getPet of every id between two sentinels.
 */
export async function findMarked(r: Recorder, marker: string, from?: bigint, to?: bigint): Promise<JsonValue[] | undefined> {
  const marked = (pet: JsonValue) => isObject(pet) && typeof pet.name === 'string' && pet.name.startsWith(marker)
  const listing = await r.listPets([['limit', String(MAX_PAGE)]])
  const pets = listedPets(listing)
  if (listing.response?.status === 200 && pets && pets.length < MAX_PAGE) return pets.filter(marked)
  if (from === undefined || to === undefined || to <= from || to - from - 1n > BigInt(MAX_PROBES)) return undefined
  const found: JsonValue[] = []
  for (let id = from + 1n; id < to; id++) {
    const exchange = await r.getPet(String(id))
    const pet = exchange.json.kind === 'json' ? exchange.json.value : undefined
    if (exchange.response?.status === 200 && pet !== undefined && marked(pet)) found.push(pet)
  }
  return found
}

/**
 * An id beyond 2^53 that no pet is likely to have (a double cannot hold it exactly), or undefined when the
 * run has seen ids around it.
 */
export function unknownBigId(r: Recorder, seen: Iterable<string> = []): string | undefined {
  const candidate = 2n ** 58n + 1_234_567n
  const near = (id: bigint) => (id > candidate ? id - candidate : candidate - id) < 1_000_000_000n
  return [...r.s.created.keys(), ...seen].some((id) => near(BigInt(id))) ? undefined : String(candidate)
}

/** An id no pet is likely to have: far past the largest id known, within int64. */
export function unknownId(r: Recorder, seen: Iterable<string> = [], offset = 0n): string {
  const max = r.s.maxKnownId(seen) ?? 0n
  const int64Max = 2n ** 63n - 1n
  const far = max + 1_000_000_007n + offset
  if (far <= int64Max) return String(far)
  // Ids already reach the top of int64: go far below the smallest one instead.
  const min = [...r.s.created.keys(), ...seen].map(BigInt).reduce((a, b) => (b < a ? b : a), max)
  return String(min - 1_000_000_007n - offset)
}

/** Creates a valid pet and checks that getPet returns it as created. */
export async function createAndGet(r: Recorder, newPet: JsonValue): Promise<JsonValue | undefined> {
  const { pet, exchange } = await r.createValid(newPet)
  if (isObject(newPet) && newPet.status === undefined) r.check('createPet.status.default', { exchange }, 'POST /pets without status')
  const id = idOf(pet)
  if (id === undefined) return undefined
  const get = await r.getPet(id)
  r.check('getPet.returns-created', { exchange: get, expected: pet })
  return pet
}

/** Checks that none of `sent` left a pet behind, when the target gives a way to look. */
export async function checkNothingStored(r: Recorder, marker: string, sent: Map<string, Exchange>, before?: bigint): Promise<void> {
  const after = await sentinel(r, `${marker.slice(r.s.prefix.length)}after`)
  const found = await findMarked(r, marker, before, after)
  if (found === undefined) return // no way to look on this target: the check stays skipped
  for (const [tag, exchange] of sent) {
    const stored = found.find((pet) => isObject(pet) && String(pet.name).startsWith(`${marker}${tag}-`))
    r.check('createPet.invalid-stores-nothing', { exchange, found: stored })
  }
}
