/** Reads and checks the pets a stub starts with, and the snapshots it restores: every error names where. */
import {
  isInt64,
  packageFile,
  parseJson,
  readTextFile,
  spec as specInUse,
  type JsonValue,
  type Spec,
} from '../spec/index.js'
import { declaredOf, keepDeclared, requiredMakers } from './new-pet.js'
import { StoreError, toInt64, type Int64, type PetRecord } from './store.js'

/** A pet to start with: a Pet of the spec (every property its Pet schema declares). */
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
export function loadSeed(seed: string | false | readonly SeedPet[] | undefined, spec: Spec = specInUse()): PetRecord[] {
  if (seed === false) return []
  if (Array.isArray(seed)) return checkPets(seed as JsonValue, 'the seed', spec)
  const path = typeof seed === 'string' ? seed : DEFAULT_SEED_PATH
  // The kit's own seed is written for the bundled spec: under a revision it is fitted to it, not refused.
  return checkPets(readJsonFile(path, 'seed file'), `the seed file ${path}`, spec, seed === undefined)
}

/** A JSON file read without losing int64 digits; throws StoreError naming the file. */
export function readJsonFile(path: string, what: string): JsonValue {
  return readJsonText(path, what).value
}

/** {@link readJsonFile}, with the text it was read from. */
export function readJsonText(path: string, what: string): { text: string; value: JsonValue } {
  let text: string
  try {
    text = readTextFile(path)
  } catch (error) {
    throw new StoreError(`cannot read the ${what} ${path}: ${(error as Error).message}`)
  }
  try {
    return { text, value: parseJson(text) }
  } catch (error) {
    throw new StoreError(`the ${what} ${path} is not valid JSON: ${(error as Error).message}`)
  }
}

/** The names of the Pet properties the spec declares as int64 integers. */
export function int64Properties(spec: Spec = specInUse()): string[] {
  return Object.entries(spec.propertiesOf('Pet'))
    .filter(([, schema]) => schema.type === 'integer' && schema.format === 'int64')
    .map(([name]) => name)
}

/**
 * A decimal integer string within int64 (or, for `nextId`, one past it: 2^63 once every id is given) as its exact
 * value; anything else as it is (the checks then name it).
 */
function int64OfString(value: JsonValue | undefined, { onePast = false } = {}): JsonValue | undefined {
  if (typeof value !== 'string' || !/^-?(0|[1-9][0-9]{0,18})$/.test(value)) return value
  const exact = BigInt(value)
  return isInt64(onePast ? exact - 1n : exact) ? toInt64(exact) : value
}

/**
 * A snapshot whose int64 values (the Pet's int64 properties, and `nextId`) may be decimal strings, as a
 * JavaScript client keeps them (`GET /__stub/state?int64=string`), with those strings read as the integers
 * they spell. Everything else is left for the checks.
 */
function int64sOfStrings(value: JsonValue, spec: Spec): JsonValue {
  const names = int64Properties(spec)
  const pet = (item: JsonValue): JsonValue => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item
    if (!names.some((name) => typeof item[name] === 'string')) return item
    const copy = { ...item }
    for (const name of names) if (Object.hasOwn(copy, name)) copy[name] = int64OfString(copy[name])!
    return copy
  }
  if (Array.isArray(value)) return value.map(pet)
  if (value === null || typeof value !== 'object') return value
  const copy = { ...value }
  if (Array.isArray(copy.pets)) copy.pets = copy.pets.map(pet)
  if (Object.hasOwn(copy, 'nextId')) copy.nextId = int64OfString(copy.nextId, { onePast: true })!
  return copy
}

/**
 * A snapshot read from JSON: `{ "pets": [...], "nextId": N }`, or a bare array of pets; with `int64Strings`
 * (the admin API's restore), int64 values as integers or as decimal strings. Throws StoreError naming `where`,
 * the pet's index and the field.
 */
export function readSnapshot(
  json: JsonValue,
  where: string,
  spec: Spec = specInUse(),
  { int64Strings = false, placeOf }: { int64Strings?: boolean; placeOf?: PlaceOf } = {},
): Snapshot {
  const value = int64Strings ? int64sOfStrings(json, spec) : json
  if (Array.isArray(value)) return { pets: checkPets(value, where, spec, false, placeOf) }
  if (value === null || typeof value !== 'object')
    throw new StoreError(`${where} must be an object { "pets": [...], "nextId": N } or an array of pets`)
  const unknown = Object.keys(value).filter((key) => key !== 'pets' && key !== 'nextId')
  if (unknown.length > 0)
    throw new StoreError(`${where}: unknown field ${JSON.stringify(unknown[0])}; a snapshot has pets and nextId`)
  if (!Object.hasOwn(value, 'pets')) throw new StoreError(`${where}: pets is required`)
  const snapshot: Snapshot = { pets: checkPets(value.pets!, where, spec, false, placeOf) }
  const nextId = value.nextId
  if (nextId !== undefined) {
    const valid =
      (typeof nextId === 'number' && Number.isSafeInteger(nextId) && nextId >= 1) ||
      (typeof nextId === 'bigint' && nextId >= 1n && isInt64(nextId - 1n))
    if (!valid) throw new StoreError(`${where}: nextId must be an integer from 1 to 2^63`)
    // Ids are never given again: the next one is above every id held.
    const most = snapshot.pets.reduce<bigint | undefined>(
      (m, pet) => (m === undefined || BigInt(pet.id) > m ? BigInt(pet.id) : m),
      undefined,
    )
    if (most !== undefined && BigInt(nextId) <= most)
      throw new StoreError(`${where}: nextId ${nextId} must be above every pet id, the largest being ${most}`)
    snapshot.nextId = toInt64(nextId as number | bigint)
  }
  return snapshot
}

/**
 * Where the pet at an index of a snapshot's list came from, for messages: its data file and `pets[i]` by default; a
 * pet read from the data file's log is named by its line there.
 */
export type PlaceOf = (index: number) => { where: string; name: string } | undefined

/** A quick test of one property's value, read from its schema; `undefined` when only the compiled schema can tell. */
type PlainTest = (value: unknown) => boolean

/**
 * The quick tests of a Pet's properties, from the spec: a string with no other constraint, an enumeration, an
 * int64 with no bounds. A pet whose every property passes its test, with every required one present, skips the
 * compiled schema, so a million seed pets load in a moment.
 */
export function plainPetTests(spec: Spec): { tests: Map<string, PlainTest | undefined>; required: readonly string[] } {
  const tests = new Map<string, PlainTest | undefined>()
  for (const [name, schema] of Object.entries(spec.propertiesOf('Pet'))) {
    const keys = Object.keys(schema).filter((key) => !['description', 'example', 'examples', 'title'].includes(key))
    const only = (...allowed: string[]) => keys.every((key) => allowed.includes(key))
    if (Array.isArray(schema.enum) && only('type', 'enum'))
      tests.set(name, (value) => (schema.enum as unknown[]).includes(value))
    else if (schema.type === 'string' && only('type')) tests.set(name, (value) => typeof value === 'string')
    else if (schema.type === 'integer' && schema.format === 'int64' && only('type', 'format'))
      tests.set(name, isPlainInt64)
    else tests.set(name, undefined)
  }
  return { tests, required: spec.requiredOf('Pet') }
}

/**
 * True for a pet of the plainest valid shape by {@link plainPetTests}: such pets skip the compiled schema.
 * Anything else goes through the spec's Pet schema; a test pins that this never accepts what the schema rejects.
 */
export function isPlainPet(value: unknown, plain: ReturnType<typeof plainPetTests>): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const pet = value as Record<string, unknown>
  for (const name of plain.required) if (!Object.hasOwn(pet, name)) return false
  for (const name in pet) {
    const test = plain.tests.get(name)
    if (test === undefined || !test(pet[name])) return false
  }
  return true
}

function isPlainInt64(value: unknown): boolean {
  return Number.isSafeInteger(value) || (typeof value === 'bigint' && isInt64(value))
}

/**
 * A pet fitted to a revised spec: the optional properties its Pet schema refuses (a status no longer in the
 * enumeration) are left out, and a required one it refuses (a categoryId past a new maximum) gets a value made as
 * for a property Pet newly requires; `undefined` when it still does not validate.
 */
function fitted(
  item: JsonValue,
  validate: (value: JsonValue) => string[],
  required: Set<string>,
  makers: ReadonlyMap<string, () => JsonValue>,
): JsonValue | undefined {
  const problems = validate(item)
  if (problems.length === 0) return item
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined
  const refused = new Set(
    problems.map((problem) => /^Pet\/([^/\s]+)/.exec(problem)?.[1]).filter((f) => f !== undefined),
  )
  const kept = Object.fromEntries(
    Object.entries(item)
      .filter(([name]) => !refused.has(name) || required.has(name))
      .map(([name, value]) => [name, refused.has(name) ? (makers.get(name)?.() ?? value) : value]),
  )
  return validate(kept).length === 0 ? kept : undefined
}

/** Checks every pet against the spec's Pet schema and for unique ids; messages read `<where>: pets[3].name must be string`. */
function checkPets(value: JsonValue, where: string, spec: Spec, fit = false, placeOf?: PlaceOf): PetRecord[] {
  const place = (index: number) => placeOf?.(index) ?? { where, name: `pets[${index}]` }
  if (!Array.isArray(value)) throw new StoreError(`${where}: pets must be a JSON array of pets`)
  const validate = spec.schema('Pet')
  const plain = plainPetTests(spec)
  const declared = declaredOf(spec, 'Pet') // a write-only value is never shown, so never kept
  const required = new Set(spec.requiredOf('Pet'))
  const seen = new Map<Int64, number>()
  // A seed written before a revision made Pet require a property gets a value for it: the moment of creation for a
  // date, else the schema's const, default or example, else a generated one (as a migration fills a new column).
  const assigned = fit ? requiredMakers(spec) : []
  const complete = (item: JsonValue): JsonValue => {
    if (assigned.length === 0 || item === null || typeof item !== 'object' || Array.isArray(item)) return item
    const missing = assigned.filter(({ name }) => !Object.hasOwn(item, name))
    return missing.length ? { ...item, ...Object.fromEntries(missing.map(({ name, value }) => [name, value()])) } : item
  }
  const makers = new Map(assigned.map(({ name, value }) => [name, value]))
  const pets = fit
    ? value.map((item) => fitted(complete(item), validate, required, makers)).filter((item) => item !== undefined)
    : value
  return pets.map((item, index) => {
    const problems = isPlainPet(item, plain) ? [] : validate(item)
    if (problems.length > 0) {
      const at = place(index)
      const located = problems.map((problem) =>
        problem.replace(
          /^Pet(\/(\S*))?/,
          (_, __, field?: string) => `${at.name}${field ? '.' + field.replaceAll('/', '.') : ''}`,
        ),
      )
      throw new StoreError(`${at.where}: ${[...new Set(located)].join('; ')}`)
    }
    // Only the Pet's own fields are kept; anything else in the file is ignored, as createPet ignores it.
    const record = keepDeclared(declared, item as { [key: string]: JsonValue }) as PetRecord
    const earlier = seen.get(record.id)
    if (earlier !== undefined) {
      const [at, first] = [place(index), place(earlier)]
      const other = first.where === at.where ? first.name : `${first.name} of ${first.where}`
      throw new StoreError(`${at.where}: ${at.name}.id ${record.id} is also the id of ${other}`)
    }
    seen.set(record.id, index)
    return record
  })
}
