import { describe, expect, it } from 'vitest'
import { spec, type JsonValue } from '../../spec/index.js'
import { exchangeOf } from '../test-support/exchanges.js'
import type { Check, CheckInput } from './check.js'
import { findsCreated } from './finds-created.js'
import { limitDefault } from './limit-default.js'
import { limitFills } from './limit-fills.js'
import { limitMax } from './limit-max.js'
import { statusFilter } from './status-filter.js'

const s = spec()
const judge = (check: Check, input: CheckInput) => (check.applies && !check.applies(input, s) ? 'n/a' : check.run(input, s))
const pets = (n: number, status = 'available'): JsonValue[] => Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `p${i}`, categoryId: 1, status }))
const page = (body: JsonValue[], path = '/pets') => exchangeOf({ body, path })

describe('listPets.limit.max and limit.fills', () => {
  it('wants exactly min(limit, pets held)', () => {
    expect(judge(limitMax, { exchange: page(pets(5)), limit: 5 })).toEqual([])
    expect(judge(limitMax, { exchange: page(pets(6), '/pets?limit=5'), limit: 5 })).toEqual(['GET /pets?limit=5 returned 6 pets; documented: at most 5'])
    expect(judge(limitFills, { exchange: page(pets(4)), limit: 5, atLeast: 100 })).toHaveLength(1)
    expect(judge(limitFills, { exchange: page(pets(3)), limit: 5, atLeast: 3 })).toEqual([])
  })
  it('does not judge a body that is not a list (the schema check does)', () => {
    expect(judge(limitMax, { exchange: exchangeOf({ body: { pets: pets(9) } }), limit: 5 })).toBe('n/a')
  })
})

describe('listPets.limit.default', () => {
  it('wants at most 20, and 20 when more are held', () => {
    expect(judge(limitDefault, { exchange: page(pets(20)), atLeast: 100 })).toEqual([])
    expect(judge(limitDefault, { exchange: page(pets(50)) })).toHaveLength(1)
    expect(judge(limitDefault, { exchange: page(pets(19)), atLeast: 100 })).toHaveLength(1)
    expect(judge(limitDefault, { exchange: page(pets(7)), atLeast: 7 })).toEqual([])
  })
})

describe('listPets.status.filter', () => {
  it('fails a pet of another status, or without one', () => {
    expect(judge(statusFilter, { exchange: page(pets(3, 'sold')), status: 'sold' })).toEqual([])
    expect(judge(statusFilter, { exchange: page([...pets(2, 'sold'), { id: 9, name: 'x', categoryId: 1 }]), status: 'sold' })).toHaveLength(1)
  })
})

describe('listPets.finds-created', () => {
  const mine = [{ id: 1000, name: 'mine', categoryId: 1, status: 'sold' }]
  it('wants created pets in a page with room, and as created', () => {
    expect(judge(findsCreated, { exchange: page(pets(3, 'sold')), status: 'sold', limit: 100, created: mine })).toHaveLength(1)
    expect(judge(findsCreated, { exchange: page([...pets(3, 'sold'), ...mine]), status: 'sold', limit: 100, created: mine })).toEqual([])
    const changed = [{ ...mine[0]!, name: 'other' }]
    expect(judge(findsCreated, { exchange: page(changed), limit: 100, created: mine })).toHaveLength(1)
  })
  it('asks nothing of a full page (ordering is not described) or of pets of another status', () => {
    expect(judge(findsCreated, { exchange: page(pets(5, 'sold')), status: 'sold', limit: 5, created: mine })).toEqual([])
    expect(judge(findsCreated, { exchange: page(pets(2, 'pending')), status: 'pending', limit: 100, created: mine })).toEqual([])
  })
})
