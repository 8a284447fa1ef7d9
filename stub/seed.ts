/** Reads and checks the pets a stub starts with, and the snapshots it restores: every error names where. */
import { readFileSync } from 'node:fs'
import { isInt64, packageFile, parseJson, spec, type JsonValue } from '../spec/index.js'
import { StoreError, toInt64, type Int64, type PetRecord } from './store.js'

/** A pet to start with: a Pet of the spec (id, name, categoryId, optional status). */
export type SeedPet = PetRecord

/** A store's state as a snapshot holds it: pets, and optionally the id the next create gets. */
export interface Snapshot {
  pets: PetRecord[]
  nextId?: Int64
}

/** The seed used when none is named: the kit's fixture pets, read from the package's fixtures/ folder. */
export const DEFAULT_SEED_PATH = packageFile('fixtures/seed-pets.json')

/**
 * The seed pets from a file path, an array, or none (`false`); `undefined` means the default file.
 * Throws {@link StoreError} with one sentence naming the file, the pet's index and the field when a pet is wrong.
 */
export function loadSeed(seed: string | false | readonly SeedPet[] | undefined): PetRecord[] {
  if (seed === false) return []
  if (Array.isArray(seed)) return checkPets(seed as JsonValue, 'the seed')
  const path = typeof seed === 'string' ? seed : DEFAULT_SEED_PATH
  return checkPets(readJsonFile(path, 'seed file'), `the seed file ${path}`)
}

/** A JSON file read without losing int64 digits; throws StoreError naming the file. */
export function readJsonFile(path: string, what: string): JsonValue {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new StoreError(`cannot read the ${what} ${path}: ${(error as Error).message}`)
  }
  try {
    return parseJson(text)
  } catch (error) {
    throw new StoreError(`the ${what} ${path} is not valid JSON: ${(error as Error).message}`)
  }
}

/**
 * A snapshot read from JSON: `{ "pets": [...], "nextId": N }`, or a bare array of pets. Throws StoreError
 * naming `where`, the pet's index and the field.
 */
export function readSnapshot(value: JsonValue, where: string): Snapshot {
  if (Array.isArray(value)) return { pets: checkPets(value, where) }
  if (value === null || typeof value !== 'object')
    throw new StoreError(`${where} must be an object { "pets": [...], "nextId": N } or an array of pets`)
  const unknown = Object.keys(value).filter((key) => key !== 'pets' && key !== 'nextId')
  if (unknown.length > 0)
    throw new StoreError(`${where}: unknown field ${JSON.stringify(unknown[0])}; a snapshot has pets and nextId`)
  if (!Object.hasOwn(value, 'pets')) throw new StoreError(`${where}: pets is required`)
  const snapshot: Snapshot = { pets: checkPets(value.pets!, where) }
  const nextId = value.nextId
  if (nextId !== undefined) {
    const valid =
      (typeof nextId === 'number' && Number.isSafeInteger(nextId)) ||
      (typeof nextId === 'bigint' && isInt64(nextId - 1n))
    if (!valid) throw new StoreError(`${where}: nextId must be an integer from 1 to 2^63`)
    snapshot.nextId = toInt64(nextId as number | bigint)
  }
  return snapshot
}

/**
 * True for a pet of the plainest valid shape (safe-integer or in-range bigint ids, a string name, a known
 * status or none): such pets skip the compiled schema, so a million seed pets load in a moment. Anything
 * else goes through `spec().schema('Pet')`; a test pins that this never accepts what the schema rejects.
 */
export function isPlainPet(value: unknown, statuses: readonly string[]): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const pet = value as Record<string, unknown>
  return (
    isPlainInt64(pet.id) &&
    typeof pet.name === 'string' &&
    isPlainInt64(pet.categoryId) &&
    (pet.status === undefined || statuses.includes(pet.status as string))
  )
}

function isPlainInt64(value: unknown): boolean {
  return Number.isSafeInteger(value) || (typeof value === 'bigint' && isInt64(value))
}

/** Checks every pet against the spec's Pet schema and for unique ids; messages read `<where>: pets[3].name must be string`. */
function checkPets(value: JsonValue, where: string): PetRecord[] {
  if (!Array.isArray(value)) throw new StoreError(`${where}: pets must be a JSON array of pets`)
  const validate = spec().schema('Pet')
  const statuses = spec().enumOf('PetStatus')
  const seen = new Map<Int64, number>()
  return value.map((item, index) => {
    const problems = isPlainPet(item, statuses) ? [] : validate(item)
    if (problems.length > 0) {
      const located = problems.map((problem) =>
        problem.replace(
          /^Pet(\/(\S*))?/,
          (_, __, field?: string) => `pets[${index}]${field ? '.' + field.replaceAll('/', '.') : ''}`,
        ),
      )
      throw new StoreError(`${where}: ${[...new Set(located)].join('; ')}`)
    }
    const pet = item as { id: number | bigint; name: string; categoryId: number | bigint; status?: string }
    // Only the Pet's own fields are kept; anything else in the file is ignored, as createPet ignores it.
    const record: PetRecord = { id: toInt64(pet.id), name: pet.name, categoryId: toInt64(pet.categoryId) }
    if (pet.status !== undefined) record.status = pet.status
    const earlier = seen.get(record.id)
    if (earlier !== undefined)
      throw new StoreError(`${where}: pets[${index}].id ${record.id} is also the id of pets[${earlier}]`)
    seen.set(record.id, index)
    return record
  })
}
