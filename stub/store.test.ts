import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { constants } from 'node:buffer'
import { tmpdir } from 'node:os'
import { parseJson, spec, stringifyJson } from '../spec/index.js'
import { isPlainPet, loadSeed, plainPetTests } from './seed.js'
import { PetStore, StoreError, StoreFullError, petJson, toInt64, type PetRecord } from './store.js'

const pet = (id: number | bigint, status?: string): PetRecord => ({
  id,
  name: `Pet ${id}`,
  categoryId: 1,
  ...(status ? { status } : {}),
})

describe('PetStore', () => {
  it('assigns ids from the largest seed id + 1, ascending', () => {
    const store = new PetStore([pet(5), pet(2), pet(9)])
    expect(store.nextId).toBe(10)
    expect([store.add({ name: 'a', categoryId: 1 }).pet.id, store.add({ name: 'b', categoryId: 1 }).pet.id]).toEqual([
      10, 11,
    ])
    expect(store.size).toBe(5)
  })

  it('starts at 1 with no seed, and with only negative seed ids', () => {
    expect(new PetStore().nextId).toBe(1)
    expect(new PetStore([pet(-7)]).nextId).toBe(1)
  })

  it('finds pets in dense runs and across gaps, and nothing else', () => {
    const store = new PetStore([pet(1), pet(2), pet(3), pet(10), pet(2n ** 62n), pet(-4)])
    for (const id of [1, 2, 3, 10, -4, toInt64(2n ** 62n)]) expect(parseJson(store.find(id)!)).toMatchObject({ id: id })
    for (const id of [0, 4, 9, 11, 2 ** 40, -5, toInt64(2n ** 62n + 1n)]) expect(store.find(id)).toBeUndefined()
  })

  it('lists the first `limit` pets in id order, per status from its own index', () => {
    const store = new PetStore([pet(3, 'sold'), pet(1, 'available'), pet(2), pet(4, 'sold')])
    store.add({ name: 'n', categoryId: 1, status: 'sold' })
    const ids = (json: string[]) => json.map((j) => (parseJson(j) as { id: number }).id)
    expect(ids(store.page(10))).toEqual([1, 2, 3, 4, 5])
    expect(ids(store.page(2))).toEqual([1, 2])
    expect(ids(store.page(10, 'sold'))).toEqual([3, 4, 5])
    expect(ids(store.page(10, 'pending'))).toEqual([])
    expect([store.count(), store.count('sold'), store.count('pending')]).toEqual([5, 3, 0])
  })

  it('keeps a pet without status without it', () => {
    const store = new PetStore()
    const { json } = store.add({ name: 'Coco', categoryId: 2 })
    expect(parseJson(json)).toEqual({ id: 1, name: 'Coco', categoryId: 2 })
  })

  it('keeps int64 values exact', () => {
    const store = new PetStore([{ id: 2n ** 63n - 2n, name: 'Max', categoryId: -(2n ** 63n) }])
    const { json } = store.add({ name: 'Big', categoryId: 2n ** 63n - 1n })
    expect(json).toBe('{"id":9223372036854775807,"name":"Big","categoryId":9223372036854775807}')
    expect(store.find(2n ** 63n - 1n)).toBe(json)
    expect(store.find(2n ** 63n - 2n)).toContain('"categoryId":-9223372036854775808')
    expect(store.nextId).toBeUndefined()
    expect(() => store.add({ name: 'One too many', categoryId: 1 })).toThrow(StoreError)
  })

  it('rejects a seed with a repeated id or an id outside int64', () => {
    expect(() => new PetStore([pet(1), pet(1)])).toThrow(/appears twice/)
    expect(() => new PetStore([pet(2n ** 63n)])).toThrow(/outside int64/)
  })

  it('keeps ids ordered when a pet is stored under an id taken earlier', () => {
    const store = new PetStore([pet(1)])
    const early = store.nextId!
    store.add({ name: 'a', categoryId: 1 })
    const late = store.addWithId({ name: 'b', categoryId: 1 }, early)
    expect(late.pet.id).toBe(2) // raised to the largest id, never below it
    expect(store.page(10).map((j) => (parseJson(j) as { id: number }).id)).toEqual([1, 2, 2])
  })

  it('writes each pet as stringifyJson would', () => {
    fc.assert(
      fc.property(
        fc.record({
          id: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
          name: fc.string({ unit: 'binary' }),
          categoryId: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
          status: fc.option(fc.constantFrom(...spec().enumOf('PetStatus')), { nil: undefined }),
        }),
        (record) => {
          const value = {
            id: toInt64(record.id),
            name: record.name,
            categoryId: toInt64(record.categoryId),
            ...(record.status ? { status: record.status } : {}),
          }
          expect(petJson(value)).toBe(stringifyJson(value))
        },
      ),
    )
  })

  it('writes any record id first, then its other members in order, as lossless JSON writes each value', () => {
    const value = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.double({ noDefaultInfinity: true, noNaN: true }),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.record({ inner: fc.string() }),
    )
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.bigInt({ min: 2n ** 60n, max: 2n ** 63n - 1n })),
        fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('1', '42', '__proto__')), value, { maxKeys: 5 }),
        fc.boolean(),
        (id, fields, idFirst) => {
          const pet = (idFirst ? { id: toInt64(id), ...fields } : { ...fields, id: toInt64(id) }) as PetRecord
          const members = Object.entries(pet).filter(([key, v]) => key !== 'id' && v !== undefined)
          const expected = `{"id":${stringifyJson(pet.id)}${members.map(([key, v]) => `,${JSON.stringify(key)}:${stringifyJson(v)}`).join('')}}`
          expect(petJson(pet)).toBe(expected)
        },
      ),
    )
  })

  it('adds pets cheaply enough to hold a million (bulk add in a loop)', () => {
    const store = new PetStore()
    for (let i = 0; i < 100_000; i++) store.add({ name: `Pet ${i}`, categoryId: i, status: 'sold' })
    expect(store.size).toBe(100_000)
    expect(store.page(3, 'sold')).toHaveLength(3)
    expect(parseJson(store.find(100_000)!)).toMatchObject({ name: 'Pet 99999' })
  })
})

describe('seed', () => {
  it('loads the fixture seed with its int64 values exact', () => {
    const seed = loadSeed(undefined)
    expect(seed.length).toBeGreaterThan(20)
    expect(seed.find((p) => p.id === 7)?.categoryId).toBe(2n ** 63n - 1n)
    expect(seed.find((p) => p.id === 8)?.categoryId).toBe(-(2n ** 63n))
  })

  it('names the file and the pet when a seed is not valid', () => {
    expect(() => loadSeed('/nonexistent/seed.json')).toThrow(/cannot read the seed file \/nonexistent\/seed.json/)
    // A folder, or a device that would never end: refused before any read.
    expect(() => loadSeed(tmpdir())).toThrow(`cannot read the seed file ${tmpdir()}: it is a directory, not a file`)
    if (process.platform !== 'win32')
      expect(() => loadSeed('/dev/zero')).toThrow('cannot read the seed file /dev/zero: it is a device, not a file')
    expect(() => loadSeed([{ id: 1, name: 'x' } as PetRecord])).toThrow(
      /pets\[0\] must have required property 'categoryId'/,
    )
    expect(() => loadSeed([{ id: 1, name: 'x', categoryId: 1, status: 'lost' }])).toThrow(
      /the seed: pets\[0\]\.status must be/,
    )
    expect(loadSeed(false)).toEqual([])
  })

  it('drops fields that are not the Pet’s own', () => {
    expect(loadSeed([{ id: 1, name: 'x', categoryId: 1, extra: true } as PetRecord])).toEqual([
      { id: 1, name: 'x', categoryId: 1 },
    ])
  })

  it('takes the quick path only for pets the schema accepts', () => {
    const validate = spec().schema('Pet')
    const statuses = spec().enumOf('PetStatus')
    const anything = fc.record(
      {
        id: fc.oneof(fc.integer(), fc.bigInt(), fc.double(), fc.string()),
        name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        categoryId: fc.oneof(fc.integer(), fc.bigInt(), fc.double()),
        status: fc.oneof(fc.constantFrom(...statuses), fc.string()),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(anything, (value) => {
        if (isPlainPet(value, plainPetTests(spec()))) expect(validate(value as never)).toEqual([])
      }),
    )
  })
})

describe('taking back pets that could not be kept', () => {
  it('drops the pets after a size, from every view, and never gives their ids again', () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat(2000), fc.nat(10_000)), fc.oneof(fc.nat(1500), fc.nat(5000)), (kept, more) => {
        const store = new PetStore()
        // Long names fill the arena's chunks, so that a cut falls on a chunk's edge as well as inside one; past 8,192
        // pets, the ids and each status's positions (kept 4,096 to a chunk) are cut across their chunks too.
        for (let i = 0; i < kept + more; i++)
          store.add({ name: 'x'.repeat(200 + (i % 7)), categoryId: i, status: i % 2 ? 'sold' : 'available' })
        store.truncate(kept)
        expect(store.size).toBe(kept)
        expect(store.count('sold') + store.count('available')).toBe(kept)
        expect(store.state().pets.map((pet) => pet.id)).toEqual(Array.from({ length: kept }, (_, i) => i + 1))
        expect(store.find(kept + 1)).toBeUndefined()
        const idsOf = (pages: string[]) => pages.map((json) => (parseJson(json) as { id: number }).id)
        const odd = Array.from({ length: Math.floor(kept / 2) }, (_, i) => 2 * i + 2) // the pets added as i = 1, 3, ...
        expect(idsOf(store.page(kept + more + 1, 'sold'))).toEqual(odd)
        expect(idsOf(store.page(kept + more + 1)).length).toBe(kept)
        expect(store.add({ name: 'next', categoryId: 1 }).pet.id).toBe(kept + more + 1)
        expect((parseJson(store.stateJson()) as { pets: unknown[] }).pets).toHaveLength(kept + 1)
        expect(store.bytes).toBe(
          store.stateJson().length - '{"nextId":,"pets":[]}'.length - String(store.nextId).length + 1,
        )
      }),
      { numRuns: 10 },
    )
  })
})

describe('a store with a limit', () => {
  it('counts the bytes of its pets’ JSON, and refuses a create that would take them past the limit, storing nothing', () => {
    const store = new PetStore([pet(1), pet(2)])
    const seeded = store.bytes
    expect(seeded).toBe(petJson(pet(1)).length + petJson(pet(2)).length + 2) // a comma after each
    store.maxBytes = seeded + 150
    const refused = (add: () => unknown, message: RegExp) => {
      const next = store.nextId
      const size = store.size
      expect(add).toThrow(StoreFullError)
      expect(add).toThrow(message)
      expect([store.nextId, store.size]).toEqual([next, size]) // nothing stored, no id taken
    }
    store.add({ name: 'x'.repeat(40), categoryId: 1 }) // 71 bytes and a comma: room for one more of them
    store.add({ name: 'x'.repeat(40), categoryId: 1 })
    const past = /a pet of 7\d bytes would take the pets stored \(\d+ bytes\) past the most this stub keeps \(\d+\)/
    refused(() => store.add({ name: 'x'.repeat(40), categoryId: 1 }), past)
    refused(() => store.addWithId({ name: 'x'.repeat(40), categoryId: 1 }, 99), past)
    // A pet of a megabyte, however far under the limit the store is: never more than the limit in all.
    store.maxBytes = seeded + 1_000_000
    refused(() => store.add({ name: 'x'.repeat(1_000_000), categoryId: 1 }), /a pet of 100003\d bytes would take/)
    refused(() => store.add({ name: 'é'.repeat(500_000), categoryId: 1 }), /a pet of 100003\d bytes would take/) // 2 bytes each
    expect(store.add({ name: 'é'.repeat(100_000), categoryId: 1 }).pet.id).toBe(5) // 200,034 bytes: it fits
    // A body as long as a text can be (at --max-body's most): with its id in front it is longer than a text can be, and
    // is refused as too large, not failed on.
    const longest = `{"name":"${'x'.repeat(constants.MAX_STRING_LENGTH - 28)}","categoryId":1}`
    const tooLong = /a pet of more than 536870888 bytes would take/
    refused(() => store.add({ name: 'x', categoryId: 1 }, longest), tooLong)
    refused(() => store.addWithId({ name: 'x', categoryId: 1 }, 98, longest), tooLong)
    store.maxBytes = store.bytes
    refused(() => store.add({ name: 'y', categoryId: 1 }), /the pets stored take \d+ bytes, the most this stub keeps/)
    expect(store.size).toBe(5)
    // A restore may bring more than the limit; creates wait until it is back under it.
    store.maxBytes = seeded + 100
    store.replace([pet(1), pet(2), pet(3), pet(4), pet(5)])
    expect(() => store.add({ name: 'z', categoryId: 1 })).toThrow(StoreFullError)
    store.replace([pet(1)])
    expect(store.add({ name: 'z', categoryId: 1 }).pet.id).toBe(2)
  })
})
