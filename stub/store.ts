/**
 * The stub's in-memory pet store: a plain class that knows pets, not HTTP.
 *
 * Each pet is kept once, as its serialized JSON, in id order, outside V8's heap ({@link TextArena}); list pages and
 * single pets are answered with that JSON, so no read re-serializes and no read costs more with more pets.
 */
import { constants as bufferConstants } from 'node:buffer'
import { INT64_MAX, isInt64, parseJson, stringifyJson, type JsonValue } from '../spec/index.js'
import { joinedPieces, TextArena, type ArenaView } from './arena.js'
import { Column } from './column.js'

/** An int64 id or categoryId: a `number` when it is a safe integer, otherwise an exact `bigint`. */
export type Int64 = number | bigint

/**
 * The fields of a pet the store keeps: the properties the spec declares for NewPet, as read from a request or a
 * seed (int64 values as {@link Int64}). The store knows no field by name but `id` and the listing filter's.
 */
export interface NewPetRecord {
  [property: string]: JsonValue | undefined
}

/** A stored pet (the spec's Pet). */
export interface PetRecord extends NewPetRecord {
  id: Int64
}

/** Where a store's changes are kept (the data file): told of each change as it is made. */
export interface ChangeLog {
  /** A pet was stored; `json` is its JSON. */
  added(json: string): void
  /** An id was taken without a pet; `nextId` is the one after it. */
  reserved(nextId: Int64): void
  /** Every pet was replaced; throws {@link PersistError} when that cannot be kept (the store then stays as it was). */
  replaced(): void
  /** Resolves once every change told so far is kept, rejects with {@link PersistError} when it cannot be; `undefined` when all is kept. */
  settled(): Promise<void> | undefined
}

/** Thrown (or rejected with) when a change cannot be kept in the data file: it is then not stored either. */
export class PersistError extends Error {
  override name = 'PersistError'
}

/** Thrown when a store is built from pets that break its rules (duplicate or non-int64 ids). */
export class StoreError extends Error {
  override name = 'StoreError'
}

/**
 * Thrown by {@link PetStore.add} when the pets take {@link PetStore.maxBytes} already, or the new pet would take them
 * past it: nothing is stored.
 */
export class StoreFullError extends StoreError {
  override name = 'StoreFullError'
}

/** The pet field that listPets' filter of the same name (`status`) selects on; the app reads the filter from the spec. */
export const FILTERED = 'status'

/** The one representation of an int64 value: `number` when safe, `bigint` otherwise (so `===` compares). */
export function toInt64(value: number | bigint): Int64 {
  if (typeof value === 'number') return Number.isSafeInteger(value) || !Number.isInteger(value) ? value : BigInt(value)
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value
}

/** `,"name":` for each field name seen, so that a pet's JSON does not encode its field names again. */
const MEMBER_PREFIXES = new Map<string, string>()
/** Field names come from the spec; a store restored with many other names stops remembering them here. */
const PREFIXES_KEPT = 256

function memberPrefix(key: string): string {
  let prefix = MEMBER_PREFIXES.get(key)
  if (prefix === undefined) {
    prefix = ',' + JSON.stringify(key) + ':'
    if (MEMBER_PREFIXES.size < PREFIXES_KEPT) MEMBER_PREFIXES.set(key, prefix)
  }
  return prefix
}

/** The pet as JSON text, int64 values as exact digits: `id` first, then its other fields in their order. */
export function petJson(pet: PetRecord): string {
  // The usual pet, of strings and safe numbers with `id` first, is what JSON.stringify writes, in one pass.
  if (isPlain(pet)) return JSON.stringify(pet)
  let json = '{"id":' + String(pet.id)
  for (const key in pet) {
    if (key === 'id') continue
    const value = pet[key]
    if (value === undefined) continue
    json +=
      memberPrefix(key) +
      (typeof value === 'string'
        ? JSON.stringify(value)
        : typeof value === 'number' || typeof value === 'bigint'
          ? String(value)
          : stringifyJson(value))
  }
  json += '}'
  json.charCodeAt(0) // flattens the concatenation once, for the store to copy and the answer to send
  return json
}

/** {@link petJson} of a pet whose other fields `JSON.stringify` writes as `written` (an object's JSON, no `id` in it). */
function withId(id: Int64, written: string): string {
  const json = written.length > 2 ? '{"id":' + String(id) + ',' + written.slice(1) : '{"id":' + String(id) + '}'
  json.charCodeAt(0) // flattened once, as petJson's
  return json
}

/**
 * True when `JSON.stringify` writes `pet` as {@link petJson} must: `id` its first key, and every value a string, a
 * boolean, null, a finite number or nothing (a bigint, an object or an array takes the careful path).
 */
function isPlain(pet: PetRecord): boolean {
  let first = true
  for (const key in pet) {
    if (first && key !== 'id') return false
    first = false
    const value = pet[key]
    if (
      typeof value === 'number'
        ? !Number.isFinite(value)
        : typeof value === 'object'
          ? value !== null
          : typeof value === 'bigint'
    )
      return false
  }
  return !first
}

/** What the app asks of a store: {@link PetStore}, or something wrapped around it with the same shape. */
export type Store = Pick<
  PetStore,
  'size' | 'version' | 'nextId' | 'add' | 'addWithId' | 'reserveId' | 'find' | 'page' | 'count' | 'settled'
>

/** The whole state of a store: its pets in id order and the id the next create gets. */
export interface StoreState {
  nextId: Int64
  pets: PetRecord[]
}

/** The state at one moment, its pets still as stored JSON: the next id, and the pets' JSON joined by commas. */
export interface StateView {
  nextId: Int64
  pets: ArenaView
}

/** In-memory pets in ascending id order, with an index per status. */
export class PetStore {
  /** Ids in ascending order; `#json.at(i)` is the pet whose id is `#ids.at(i)`. */
  #ids = new Column<Int64>()
  #json = new TextArena()
  /** Per status, the positions of the pets with that status, in id order (ids only grow, so appends keep it sorted). */
  #byStatus = new Map<string, Column<number>>()
  #nextId: Int64 = 1
  #version = 0
  /**
   * How many pets, from the first, reads see: with a {@link changeLog}, only those it keeps already ({@link commit}), so
   * that no client reads a pet whose create may yet be refused (503) and its id given again after a crash.
   */
  #visible = 0
  /** Why the store takes no more changes (its data file closed), when it does not. */
  #refusal: Error | undefined
  /**
   * The most bytes of JSON the pets may take before a create is refused ({@link StoreFullError}); a reset or a restore
   * may bring more. Memory, the data file and the state's one JSON text (which V8 caps at about 512 MiB) stay bounded.
   */
  maxBytes = Infinity
  /** Called after every change. */
  onChange: (() => void) | undefined
  /** Keeps every change (the data file), when set. */
  changeLog: ChangeLog | undefined

  /**
   * A store holding `seed` (any order); new ids continue from `nextId` when given, else from the largest seed
   * id + 1, and from 1 at least. Throws StoreError on ids that repeat or are no int64, or a `nextId` at or
   * below the largest id.
   */
  constructor(seed: readonly PetRecord[] = [], nextId?: Int64) {
    this.#load(seed, nextId)
  }

  /** Replaces every pet (a restore, or a reset to the seed); the same checks as the constructor. */
  replace(pets: readonly PetRecord[], nextId?: Int64): void {
    if (this.#refusal) throw this.#refusal
    const before = [this.#ids, this.#json, this.#byStatus, this.#nextId, this.#visible] as const
    try {
      this.#load(pets, nextId)
      this.changeLog?.replaced()
    } catch (error) {
      ;[this.#ids, this.#json, this.#byStatus, this.#nextId, this.#visible] = before // a bad restore changes nothing
      throw error
    }
    this.#changed()
  }

  /** Every pet reads see in id order, and the next id: what a snapshot holds. */
  state(): StoreState {
    const pets = new Array<PetRecord>(this.#visible)
    for (let at = 0; at < pets.length; at++) pets[at] = readPet(this.#json.at(at))
    return { nextId: this.#nextId, pets }
  }

  /** {@link state} as JSON text, int64 values exact, written from the stored JSON without parsing it again. */
  stateJson(): string {
    return '{"nextId":' + String(this.#nextId) + ',"pets":[' + this.#json.joined() + ']}'
  }

  /**
   * {@link stateJson} a piece at a time, the pets' as views of the store's own memory: written with no copy of it. Every
   * pet, those its change log has yet to keep too: what the data file's snapshot holds.
   */
  *stateJsonPieces(): Generator<string | Buffer> {
    yield '{"nextId":' + String(this.#nextId) + ',"pets":['
    yield* joinedPieces(this.#json.view().pieces())
    yield ']}'
  }

  /**
   * {@link stateJson} as it is now, to be read later a piece at a time while the store goes on changing: a state answer
   * streamed to its client holds no copy of the pets.
   */
  view(): StateView {
    return { nextId: this.#nextId, pets: this.#json.view(this.#visible) }
  }

  #load(seed: readonly PetRecord[], nextId: Int64 | undefined): void {
    this.#ids = new Column()
    this.#json = new TextArena()
    this.#byStatus = new Map()
    this.#nextId = 1
    // Seeds usually come in id order already; only an unordered one pays for a sorted copy.
    const sorted = isSorted(seed) ? seed : [...seed].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    for (const pet of sorted) {
      const id = toInt64(pet.id)
      if (typeof id === 'bigint' && !isInt64(id)) throw new StoreError(`pet id ${id} is outside int64`)
      if (typeof id === 'number' && !Number.isInteger(id)) throw new StoreError(`pet id ${id} is not an integer`)
      const last = this.#ids.last()
      if (last !== undefined && last === id) throw new StoreError(`pet id ${id} appears twice`)
      this.#append(id === pet.id ? pet : { ...pet, id })
    }
    this.#visible = this.#ids.length // a replace is kept before it returns (a compaction), a seed was read from disk
    const last = this.#ids.last()
    if (last !== undefined && last >= 1) this.#nextId = increment(last)
    if (nextId !== undefined) {
      const next = toInt64(nextId)
      if (next < this.#nextId || next < 1 || (typeof next === 'bigint' && next > INT64_MAX + 1n)) {
        throw new StoreError(`nextId ${next} must be at least ${this.#nextId} (1, and above every pet id)`)
      }
      this.#nextId = next
    }
  }

  /** The bytes the pets' JSON takes. */
  get bytes(): number {
    return this.#json.bytes
  }

  /** How many pets reads see: all but those the change log has yet to keep ({@link commit}). */
  get size(): number {
    return this.#visible
  }

  /** How many pets are stored, those the change log has yet to keep included. */
  get stored(): number {
    return this.#ids.length
  }

  /**
   * Shows reads the first `count` pets: the change log kept them. A change log calls it once its changes are on disk;
   * without one, every pet is shown once stored.
   */
  commit(count: number): void {
    const visible = Math.max(this.#visible, Math.min(count, this.#ids.length))
    if (visible === this.#visible) return
    this.#visible = visible
    this.#version++ // what reads see changed: a cached answer is no longer valid
  }

  /** Grows with every change: a cache of answers is valid while it stays the same. */
  get version(): number {
    return this.#version
  }

  /** The id the next {@link add} assigns, or `undefined` when no int64 id is left. */
  get nextId(): Int64 | undefined {
    return typeof this.#nextId === 'bigint' && this.#nextId > INT64_MAX ? undefined : this.#nextId
  }

  /**
   * Stores a new pet under the next id and returns it with its JSON. Synchronous: the id is read and
   * bumped in one step, so concurrent requests never share one. Throws {@link StoreError} when the int64
   * ids are used up, {@link StoreFullError} when the pets take {@link maxBytes} already. `written` is `pet`
   * exactly as `JSON.stringify` writes it, when the caller has that text (the body it read `pet` from): given
   * only for `pet` unchanged, it spares writing the JSON again.
   */
  add(pet: NewPetRecord, written?: string): { pet: PetRecord; json: string } {
    if (this.#refusal) throw this.#refusal
    this.#checkRoom()
    const next = this.#nextId
    const id = this.#takeId()
    try {
      return this.#addWithId(pet, id, written)
    } catch (error) {
      if (error instanceof StoreFullError) this.#nextId = next // a pet too large to store takes no id
      throw error
    }
  }

  /**
   * Stores a pet under an id taken earlier with {@link nextId}. An id below the largest stored one is
   * raised to it, so the ids stay in order even when two pets share one.
   */
  addWithId(pet: NewPetRecord, id: Int64, written?: string): { pet: PetRecord; json: string } {
    if (this.#refusal) throw this.#refusal
    this.#checkRoom()
    return this.#addWithId(pet, id, written)
  }

  #addWithId(pet: NewPetRecord, id: Int64, written?: string): { pet: PetRecord; json: string } {
    const last = this.#ids.last()
    const ordered = last !== undefined && id < last ? last : id
    const record: PetRecord = { id: ordered, ...pet }
    record.id = ordered // an `id` among the fields never overrides the one assigned
    const json = this.#jsonOf(record, written)
    this.#checkFits(json)
    if (ordered >= this.#nextId) this.#nextId = increment(ordered)
    this.#append(record, json)
    if (this.changeLog === undefined) this.#visible = this.#ids.length
    this.#changed()
    this.changeLog?.added(json)
    return { pet: record, json }
  }

  /**
   * The pet's JSON; {@link StoreFullError} when it would be longer than a text can be (a body at `--max-body`'s most,
   * with the id put in front): far past the most a store keeps anyway.
   */
  #jsonOf(record: PetRecord, written: string | undefined): string {
    try {
      if (written === undefined) return petJson(record)
      // The id and a comma take at most 27 characters more: a text that could not hold them is not copied first.
      if (written.length <= bufferConstants.MAX_STRING_LENGTH - 27) return withId(record.id, written)
    } catch (error) {
      if (!(error instanceof RangeError)) throw error
    }
    throw new StoreFullError(
      `a pet of more than ${bufferConstants.MAX_STRING_LENGTH} bytes would take the pets stored (${this.#json.bytes} bytes) past the most this stub keeps (${this.maxBytes})`,
    )
  }

  #checkRoom(): void {
    const bytes = this.#json.bytes
    if (bytes >= this.maxBytes)
      throw new StoreFullError(`the pets stored take ${bytes} bytes, the most this stub keeps (${this.maxBytes})`)
  }

  /**
   * Throws {@link StoreFullError} when a pet of this JSON would take the store past {@link maxBytes}: one large pet
   * (a body of hundreds of MiB, with a large `--max-body`) must not take it far past, to where its state could no
   * longer be one JSON text, nor its data file be read back. Measured only near the limit (UTF-8 takes at most 3 bytes
   * per UTF-16 unit).
   */
  #checkFits(json: string): void {
    const bytes = this.#json.bytes
    if (bytes + json.length * 3 + 1 <= this.maxBytes) return
    const size = Buffer.byteLength(json) + 1
    if (bytes + size > this.maxBytes)
      throw new StoreFullError(
        `a pet of ${size} bytes would take the pets stored (${bytes} bytes) past the most this stub keeps (${this.maxBytes})`,
      )
  }

  #changed(): void {
    this.#version++
    this.onChange?.()
  }

  /**
   * From now on every change throws `error` (a {@link PersistError}: answered 503): the data file that kept the store
   * was closed, and a change it cannot keep must never be acknowledged.
   */
  refuseChanges(error: Error): void {
    this.#refusal = error
  }

  /** Takes the next id without storing a pet. Throws {@link StoreError} when the int64 ids are used up. */
  reserveId(): Int64 {
    if (this.#refusal) throw this.#refusal
    const id = this.#takeId()
    this.#changed()
    this.changeLog?.reserved(this.#nextId)
    return id
  }

  /** Resolves once every change so far is kept (see {@link ChangeLog.settled}); `undefined` when there is nothing to wait for. */
  settled(): Promise<void> | undefined {
    return this.changeLog?.settled()
  }

  /**
   * Drops the pets after the first `size` (in id order): changes that could not be kept, taken back. The next id
   * stays where it is, so the dropped ids are never given again.
   */
  truncate(size: number): void {
    if (size >= this.#ids.length) return
    this.#visible = Math.min(this.#visible, size)
    this.#ids.truncate(size)
    this.#json.truncate(size)
    for (const positions of this.#byStatus.values()) {
      let kept = positions.length
      while (kept > 0 && positions.at(kept - 1) >= size) kept--
      positions.truncate(kept)
    }
    this.#changed()
  }

  #takeId(): Int64 {
    const id = this.nextId
    if (id === undefined) throw new StoreError('no int64 id is left for a new pet')
    this.#nextId = increment(id)
    return id
  }

  /** The JSON of the pet with this id, or `undefined`. */
  find(id: Int64): string | undefined {
    const ids = this.#ids
    if (ids.length === 0) return undefined
    const first = ids.at(0)
    // Ids are usually one dense run, so the position is a subtraction; gaps fall back to a binary search.
    if (typeof id === 'number' && typeof first === 'number') {
      const guess = id - first
      if (guess >= 0 && guess < this.#visible && ids.at(guess) === id) return this.#json.at(guess)
    }
    let low = 0
    let high = this.#visible - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const at = ids.at(middle)
      if (at === id) return this.#json.at(middle)
      if (at < id) low = middle + 1
      else high = middle - 1
    }
    return undefined
  }

  /** The JSON of the first `limit` pets in id order, only those with `status` when one is given. */
  page(limit: number, status?: string): string[] {
    const count = Math.min(Math.max(0, limit) || 0, this.count(status))
    const positions = status === undefined ? undefined : this.#byStatus.get(status)
    const page = new Array<string>(count)
    for (let i = 0; i < count; i++) page[i] = this.#json.at(positions === undefined ? i : positions.at(i))
    return page
  }

  /** How many pets reads see, or how many of them have `status`. */
  count(status?: string): number {
    if (status === undefined) return this.#visible
    const positions = this.#byStatus.get(status)
    if (positions === undefined) return 0
    // Those not shown yet are the last few, a batch of creates at most.
    let shown = positions.length
    while (shown > 0 && positions.at(shown - 1) >= this.#visible) shown--
    return shown
  }

  #append(pet: PetRecord, json: string = petJson(pet)): string {
    this.#ids.push(pet.id)
    const at = this.#json.push(json)
    const status = pet[FILTERED]
    if (typeof status === 'string') {
      let index = this.#byStatus.get(status)
      if (index === undefined) this.#byStatus.set(status, (index = new Column()))
      index.push(at)
    }
    return json
  }
}

/** A stored pet's JSON read back into a record, int64 values exact. */
function readPet(json: string): PetRecord {
  const pet = parseJson(json) as PetRecord
  for (const key of Object.keys(pet)) {
    const value = pet[key]
    if (typeof value === 'number' || typeof value === 'bigint') pet[key] = toInt64(value)
  }
  return pet
}

function isSorted(pets: readonly PetRecord[]): boolean {
  for (let i = 1; i < pets.length; i++) if (!(pets[i - 1]!.id < pets[i]!.id)) return false
  return true
}

function increment(id: Int64): Int64 {
  return typeof id === 'number' && id < Number.MAX_SAFE_INTEGER ? id + 1 : toInt64(BigInt(id) + 1n)
}
