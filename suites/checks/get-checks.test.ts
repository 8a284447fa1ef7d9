import { describe, expect, it } from 'vitest'
import { keepsExisting } from './keeps-existing.js'
import { returnsCreated } from './returns-created.js'
import { errorBody, exchangeOf, judge, type ExchangeParts } from './test-support.js'
import { unknown404 } from './unknown-404.js'

const getPet = (status: number, body: ExchangeParts['body'], credential: 'key' | 'none' = 'key') =>
  exchangeOf({ operationId: 'getPet', path: '/pets/7', status, body, credential })

describe(returnsCreated.id, () => {
  const pet = { id: 7, name: 'Rex', categoryId: 1, status: 'sold' }
  it('wants the pet as created', () => {
    expect(judge(returnsCreated, getPet(200, { ...pet, extra: true }), { expected: pet })).toEqual([])
    expect(judge(returnsCreated, getPet(200, { ...pet, id: 8 }), { expected: pet })).toEqual([
      'GET /pets/7 of a pet created by this run returned a different pet: id 8; expected 7',
    ])
    expect(judge(returnsCreated, getPet(404, errorBody(404)), { expected: pet })).toEqual([
      'GET /pets/7 of a pet created by this run answered 404; documented: 200 Pet',
    ])
  })
  it('leaves the status of a pet created without one to the target', () => {
    const { status: _, ...bare } = pet
    expect(judge(returnsCreated, getPet(200, pet), { expected: bare })).toEqual([])
  })
  it('does not judge ids the run did not create, nor requests without the valid key', () => {
    expect(judge(returnsCreated, getPet(404, errorBody(404)))).toBe('n/a')
    expect(judge(returnsCreated, getPet(401, errorBody(401), 'none'), { expected: pet })).toBe('n/a')
  })
})

describe(keepsExisting.id, () => {
  const pet = { id: 7, name: 'Old', categoryId: 3, status: 'available' }
  it('wants the pet still there with its name and category; its status may have moved', () => {
    expect(judge(keepsExisting, getPet(200, { ...pet, status: 'sold' }), { existing: pet })).toEqual([])
    expect(judge(keepsExisting, getPet(200, { ...pet, name: 'New' }), { existing: pet })).toEqual([
      'GET /pets/7 of a pet listed at the start of the run returned a different pet: name "New"; expected "Old"',
    ])
    expect(judge(keepsExisting, getPet(404, errorBody(404)), { existing: pet })).toEqual([
      'GET /pets/7 of a pet listed at the start of the run answered 404; documented: 200 Pet (pets are never removed by the described operations)',
    ])
  })
  it('does not judge pets not held before the run, nor requests without the valid key', () => {
    expect(judge(keepsExisting, getPet(404, errorBody(404)))).toBe('n/a')
    expect(judge(keepsExisting, getPet(401, errorBody(401), 'none'), { existing: pet })).toBe('n/a')
  })
})

describe(unknown404.id, () => {
  it('wants 404 for an unknown id', () => {
    expect(judge(unknown404, getPet(404, errorBody(404)), { unknown: true })).toEqual([])
    expect(judge(unknown404, getPet(200, null), { unknown: true })).toEqual([
      'GET /pets/7 of an id no pet has answered 200; documented: 404 Error',
    ])
  })
  it('does not judge ids not stated unknown, nor requests without the valid key', () => {
    expect(judge(unknown404, getPet(200, null))).toBe('n/a')
    expect(judge(unknown404, getPet(401, errorBody(401), 'none'), { unknown: true })).toBe('n/a')
  })
})
