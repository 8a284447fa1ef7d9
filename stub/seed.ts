/** Reads and checks the pets a stub starts with. */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isInt64, parseJson, spec, type JsonValue } from '../spec/index.js'
import { StoreError, toInt64, type PetRecord } from './store.js'

/** A pet to start with: a Pet of the spec (id, name, categoryId, optional status). */
export type SeedPet = PetRecord

/** The seed used when none is named: the kit's fixture pets. */
export const DEFAULT_SEED_PATH = fileURLToPath(new URL('../fixtures/seed-pets.json', import.meta.url))

/**
 * The seed pets from a file path, an array, or none (`false`); `undefined` means the default file.
 * Throws {@link StoreError} with a plain sentence when the file cannot be read or a pet is not a Pet.
 */
export function loadSeed(seed: string | false | readonly SeedPet[] | undefined): PetRecord[] {
  if (seed === false) return []
  if (Array.isArray(seed)) return checkSeed(seed as JsonValue, 'the seed')
  const path = typeof seed === 'string' ? seed : DEFAULT_SEED_PATH
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new StoreError(`cannot read the seed file ${path}: ${(error as Error).message}`)
  }
  let value: JsonValue
  try {
    value = parseJson(text)
  } catch (error) {
    throw new StoreError(`the seed file ${path} is not valid JSON: ${(error as Error).message}`)
  }
  return checkSeed(value, `the seed file ${path}`)
}

/**
 * True for a pet of the plainest valid shape (safe-integer or in-range bigint ids, a string name, a known
 * status or none): such pets skip the compiled schema, so a million seed pets load in a moment. Anything
 * else goes through `spec().schema('Pet')`; a test pins that this never accepts what the schema rejects.
 */
export function isPlainPet(value: unknown, statuses: readonly string[]): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const pet = value as Record<string, unknown>
  return isPlainInt64(pet.id) && typeof pet.name === 'string' && isPlainInt64(pet.categoryId) && (pet.status === undefined || statuses.includes(pet.status as string))
}

function isPlainInt64(value: unknown): boolean {
  return Number.isSafeInteger(value) || (typeof value === 'bigint' && isInt64(value))
}

function checkSeed(value: JsonValue, where: string): PetRecord[] {
  if (!Array.isArray(value)) throw new StoreError(`${where} must hold a JSON array of pets`)
  const validate = spec().schema('Pet')
  const statuses = spec().enumOf('PetStatus')
  return value.map((item, index) => {
    const problems = isPlainPet(item, statuses) ? [] : validate(item)
    if (problems.length > 0) throw new StoreError(`${where}, pet #${index + 1}: ${problems.join('; ')}`)
    const pet = item as { id: number | bigint; name: string; categoryId: number | bigint; status?: string }
    // Only the Pet's own fields are kept; anything else in the file is ignored, as createPet ignores it.
    const record: PetRecord = { id: toInt64(pet.id), name: pet.name, categoryId: toInt64(pet.categoryId) }
    if (pet.status !== undefined) record.status = pet.status
    return record
  })
}
