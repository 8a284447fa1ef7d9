/**
 * The stub's in-memory pet store: a plain class that knows pets, not HTTP.
 *
 * Each pet is kept once, as its serialized JSON, in id order; list pages and single pets are answered by
 * handing out those strings, so no read re-serializes and no read costs more with more pets.
 */
import { INT64_MAX, isInt64 } from '../spec/index.js'

/** An int64 id or categoryId: a `number` when it is a safe integer, otherwise an exact `bigint`. */
export type Int64 = number | bigint

/** The fields of a pet the store keeps (the spec's NewPet). */
export interface NewPetRecord {
  name: string
  categoryId: Int64
  status?: string
}

/** A stored pet (the spec's Pet). */
export interface PetRecord extends NewPetRecord {
  id: Int64
}

/** Thrown when a store is built from pets that break its rules (duplicate or non-int64 ids). */
export class StoreError extends Error {
  override name = 'StoreError'
}

const EMPTY: readonly string[] = Object.freeze([])

/** The one representation of an int64 value: `number` when safe, `bigint` otherwise (so `===` compares). */
export function toInt64(value: number | bigint): Int64 {
  if (typeof value === 'number') return Number.isSafeInteger(value) || !Number.isInteger(value) ? value : BigInt(value)
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value
}

/** The pet as JSON text, int64 values as exact digits, fields in the order id, name, categoryId, status. */
export function petJson(pet: PetRecord): string {
  const status = pet.status === undefined ? '' : ',"status":' + JSON.stringify(pet.status)
  const json = '{"id":' + String(pet.id) + ',"name":' + JSON.stringify(pet.name) + ',"categoryId":' + String(pet.categoryId) + status + '}'
  json.charCodeAt(0) // flattens the concatenation, so a stored pet is one compact string, not a rope of pieces
  return json
}

/** What the app asks of a store: {@link PetStore}, or something wrapped around it with the same shape. */
export type Store = Pick<PetStore, 'size' | 'nextId' | 'add' | 'addWithId' | 'reserveId' | 'find' | 'page' | 'count'>

/** In-memory pets in ascending id order, with an index per status. */
export class PetStore {
  /** Ids in ascending order; `#json[i]` is the pet whose id is `#ids[i]`. */
  readonly #ids: Int64[] = []
  readonly #json: string[] = []
  /** Per status, the JSON of the pets with that status, in id order (ids only grow, so appends keep it sorted). */
  readonly #byStatus = new Map<string, string[]>()
  #nextId: Int64 = 1

  /** A store holding `seed` (any order); new ids continue from the largest seed id + 1, and from 1 at least. */
  constructor(seed: readonly PetRecord[] = []) {
    // Seeds usually come in id order already; only an unordered one pays for a sorted copy.
    const sorted = isSorted(seed) ? seed : [...seed].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    for (const pet of sorted) {
      const id = toInt64(pet.id)
      if (typeof id === 'bigint' && !isInt64(id)) throw new StoreError(`pet id ${id} is outside int64`)
      if (typeof id === 'number' && !Number.isInteger(id)) throw new StoreError(`pet id ${id} is not an integer`)
      const last = this.#ids[this.#ids.length - 1]
      if (last !== undefined && last === id) throw new StoreError(`pet id ${id} appears twice`)
      this.#append(id === pet.id ? pet : { ...pet, id })
    }
    const last = this.#ids[this.#ids.length - 1]
    if (last !== undefined && last >= 1) this.#nextId = increment(last)
  }

  /** How many pets are stored. */
  get size(): number {
    return this.#ids.length
  }

  /** The id the next {@link add} assigns, or `undefined` when no int64 id is left. */
  get nextId(): Int64 | undefined {
    return typeof this.#nextId === 'bigint' && this.#nextId > INT64_MAX ? undefined : this.#nextId
  }

  /**
   * Stores a new pet under the next id and returns it with its JSON. Synchronous: the id is read and
   * bumped in one step, so concurrent requests never share one. Throws {@link StoreError} when the int64
   * ids are used up.
   */
  add(pet: NewPetRecord): { pet: PetRecord; json: string } {
    return this.addWithId(pet, this.reserveId())
  }

  /**
   * Stores a pet under an id taken earlier with {@link nextId}. An id below the largest stored one is
   * raised to it, so the ids stay in order even when two pets share one.
   */
  addWithId(pet: NewPetRecord, id: Int64): { pet: PetRecord; json: string } {
    const last = this.#ids[this.#ids.length - 1]
    const ordered = last !== undefined && id < last ? last : id
    if (ordered >= this.#nextId) this.#nextId = increment(ordered)
    const record: PetRecord = { id: ordered, name: pet.name, categoryId: pet.categoryId }
    if (pet.status !== undefined) record.status = pet.status
    return { pet: record, json: this.#append(record) }
  }

  /** Takes the next id without storing a pet. Throws {@link StoreError} when the int64 ids are used up. */
  reserveId(): Int64 {
    const id = this.nextId
    if (id === undefined) throw new StoreError('no int64 id is left for a new pet')
    this.#nextId = increment(id)
    return id
  }

  /** The JSON of the pet with this id, or `undefined`. */
  find(id: Int64): string | undefined {
    const ids = this.#ids
    const first = ids[0]
    // Ids are usually one dense run, so the position is a subtraction; gaps fall back to a binary search.
    if (typeof id === 'number' && typeof first === 'number') {
      const guess = id - first
      if (guess >= 0 && guess < ids.length && ids[guess] === id) return this.#json[guess]
    }
    let low = 0
    let high = ids.length - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const at = ids[middle]!
      if (at === id) return this.#json[middle]
      if (at < id) low = middle + 1
      else high = middle - 1
    }
    return undefined
  }

  /** The JSON of the first `limit` pets in id order, only those with `status` when one is given. */
  page(limit: number, status?: string): string[] {
    const pets = status === undefined ? this.#json : (this.#byStatus.get(status) ?? EMPTY)
    return pets.slice(0, Math.max(0, limit))
  }

  /** How many pets are stored, or how many have `status`. */
  count(status?: string): number {
    return status === undefined ? this.#json.length : (this.#byStatus.get(status)?.length ?? 0)
  }

  #append(pet: PetRecord): string {
    const json = petJson(pet)
    this.#ids.push(pet.id)
    this.#json.push(json)
    if (pet.status !== undefined) {
      const index = this.#byStatus.get(pet.status)
      if (index) index.push(json)
      else this.#byStatus.set(pet.status, [json])
    }
    return json
  }
}

function isSorted(pets: readonly PetRecord[]): boolean {
  for (let i = 1; i < pets.length; i++) if (!(pets[i - 1]!.id < pets[i]!.id)) return false
  return true
}

function increment(id: Int64): Int64 {
  return typeof id === 'number' && id < Number.MAX_SAFE_INTEGER ? id + 1 : toInt64(BigInt(id) + 1n)
}
