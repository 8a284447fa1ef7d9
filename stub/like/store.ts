/** The store as a twin shows it: mapped ids, the service's order, a default status and the fields it adds. */
import { toInt64, FILTERED, type NewPetRecord, type Store } from '../store.js'
import type { IdMapping } from './ids.js'
import type { Traits } from './likeness.js'

/** The id at the start of a pet's JSON, as the store writes it. */
export const LEADING_ID = /^\{"id":(-?[0-9]+)/

/** A pet's JSON as the twin shows it: its id mapped, then the fields it keeps and the service's extra ones. */
export function withAdded(
  json: string,
  ids: IdMapping | undefined,
  added: Map<string, string>,
  extras: readonly string[],
  started: string,
): string {
  const stored = LEADING_ID.exec(json)?.[1]
  if (stored === undefined) return json
  let out = ids ? `{"id":${String(ids.shown(BigInt(stored)))}${json.slice(6 + stored.length)}` : json
  const more = added.get(stored) ?? (extras.length ? extraMembers(extras, started) : '')
  if (more) out = out.slice(0, -1) + more + '}'
  return out
}

/** `,"createdAt":"...","tags":[]`: values for fields the report names without their values, made from their names. */
function extraMembers(names: readonly string[], now: string): string {
  return names
    .map((name) => {
      const value = /(At|Date|Time)$|^(date|time|created|updated)/i.test(name)
        ? now
        : /s$/.test(name)
          ? []
          : /^(is|has)[A-Z]/.test(name)
            ? false
            : null
      return `,${JSON.stringify(name)}:${JSON.stringify(value)}`
    })
    .join('')
}

/** The store as the twin shows it: mapped ids, its order, a default status and added fields. */
export function likeStore(
  store: Store,
  {
    traits,
    ids,
    shown,
    added,
    extras,
  }: {
    traits: Traits
    ids: IdMapping | undefined
    shown: (json: string) => string
    added: Map<string, string>
    extras: readonly string[]
  },
): Store {
  const defaultStatus = traits.defaultStatus
  const order = traits.order
  const storedId = (id: bigint): bigint | undefined => (ids ? ids.stored(id) : id)
  const methods: Partial<Store> = {
    add(pet: NewPetRecord) {
      const record =
        defaultStatus !== undefined && pet[FILTERED] === undefined ? { ...pet, [FILTERED]: defaultStatus } : pet
      const result = store.add(record)
      // A pet made now gets its extra fields now (a creation time is its own); kept fields are added by the app.
      if (extras.length) added.set(String(result.pet.id), extraMembers(extras, new Date().toISOString()))
      else added.delete(String(result.pet.id))
      return { pet: result.pet, json: shown(result.json) }
    },
    find(id) {
      const stored = storedId(BigInt(id))
      if (stored === undefined) return undefined
      const json = store.find(toInt64(stored))
      return json === undefined ? undefined : shown(json)
    },
    page(limit, status) {
      if (order === undefined) return store.page(limit, status).map(shown)
      const all = store.page(store.count(status), status)
      const count = Math.min(Math.max(0, limit) || 0, all.length)
      if (order === 'newest-first')
        return all
          .slice(all.length - count)
          .reverse()
          .map(shown)
      const keyed = all.map((json) => ({ json: shown(json), key: sortKey(json, order, ids) }))
      keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      return keyed.slice(0, count).map((k) => k.json)
    },
  }
  return new Proxy(store, {
    get(target, key) {
      if (Object.hasOwn(methods, key)) return methods[key as keyof Store]
      const value: unknown = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** What a page is sorted by: the shown id, upwards or downwards, or a scramble of it that follows neither. */
function sortKey(json: string, order: 'by-id' | 'by-id-descending' | 'scattered', ids: IdMapping | undefined): bigint {
  const stored = BigInt(LEADING_ID.exec(json)?.[1] ?? '0')
  const id = ids ? ids.shown(stored) : stored
  if (order === 'by-id') return id
  if (order === 'by-id-descending') return -id
  return (stored * 0x9e3779b97f4a7c15n) % 1000003n // a fixed shuffle: the same page every time
}
