import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { exchangeOf } from '../test-support/exchanges.js'
import { createPetAuthRequired, listPetsAuthRequired } from './auth-required.js'
import { CHECKS, CROSS_CUTTING, checkById } from './index.js'
import { limitOutOfRange, ordering, statusDefault, idScheme } from './observed-checks.js'

describe('the catalogue', () => {
  it('holds each id once, with a title, a severity and an operation of the spec', () => {
    const ids = CHECKS.map((c) => c.id)
    expect(new Set(ids).size).toBe(ids.length)
    const operations = Object.keys(spec().operations)
    for (const check of CHECKS) {
      expect(check.title.length).toBeGreaterThan(5)
      expect(['fail', 'observed', 'advice']).toContain(check.severity)
      expect(check.operationId === 'all' || operations.includes(check.operationId)).toBe(true)
    }
    expect(CROSS_CUTTING.every((c) => checkById(c.id) === c)).toBe(true)
    expect(() => checkById('no.such.check')).toThrow(/no check/)
  })
})

describe('auth.required', () => {
  it('wants 401 for every invalid credential and ignores the valid key', () => {
    for (const credential of ['none', 'empty', 'wrong', 'basic', 'extended', 'truncated'] as const) {
      const accepted = exchangeOf({ body: [], credential })
      expect(listPetsAuthRequired.applies!({ exchange: accepted }, spec())).toBe(true)
      expect(listPetsAuthRequired.run({ exchange: accepted }, spec())).toHaveLength(1)
    }
    expect(listPetsAuthRequired.applies!({ exchange: exchangeOf({ body: [] }) }, spec())).toBe(false)
    const created = exchangeOf({ operationId: 'createPet', status: 201, body: {}, credential: 'none' })
    expect(createPetAuthRequired.run({ exchange: created }, spec())).toEqual(['POST /pets with no Authorization header answered 201; documented: 401 Error'])
  })
})

describe('observed checks', () => {
  it('describe what the target chose in a few words', () => {
    const s = spec()
    const clamped = exchangeOf({ body: Array.from({ length: 100 }, (_, i) => ({ id: i, name: 'a', categoryId: 1 })), path: '/pets?limit=1000' })
    expect(limitOutOfRange.run({ exchange: clamped }, s)).toEqual(['200, 100 pets (clamped to the maximum?)'])
    const rejected = exchangeOf({ status: 400, body: { code: 'invalid_limit', message: 'm', status: 400 } })
    expect(limitOutOfRange.run({ exchange: rejected }, s)).toEqual(['400 Error (code "invalid_limit")'])
    const descending = exchangeOf({ body: [{ id: 3 }, { id: 2 }, { id: 1 }] })
    expect(ordering.run({ exchange: descending }, s)[0]).toMatch(/^descending by id/)
    const created = exchangeOf({ operationId: 'createPet', status: 201, body: { id: 1, name: 'a', categoryId: 1, status: 'available' } })
    expect(statusDefault.run({ exchange: created }, s)).toEqual(['status "available"'])
    expect(idScheme.run({ ids: [2n ** 60n, 2n ** 60n + 1n, 2n ** 60n + 2n] }, s)).toEqual([
      'ascending integers, step 1, beyond 2^53 (e.g. 1152921504606846976, 1152921504606846977, 1152921504606846978)',
    ])
  })
})
