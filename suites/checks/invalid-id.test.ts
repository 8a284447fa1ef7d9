import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { subjectOf } from './applies.js'
import { idMatches } from './id-matches.js'
import { invalidId } from './invalid-id.js'
import { invalidIdRefused } from './invalid-id-refused.js'
import { statusDocumented } from './status-documented.js'
import { errorBody, exchangeOf, judge } from './test-support.js'

const get = (
  path: string,
  status: number,
  body: NonNullable<Parameters<typeof exchangeOf>[0]>['body'],
  credential: 'key' | 'none' = 'key',
) => exchangeOf({ operationId: 'getPet', path, status, body, credential })
const NOT_AN_INTEGER = { petIdForm: { kind: 'a petId that is not an integer' } }
const LEADING_ZEROS = { petIdForm: { kind: 'an integer with leading zeros', spells: '7' } }

describe(invalidIdRefused.id, () => {
  it('accepts 404 and 400 for a petId that is no int64, and 200 with the pet a spelling of an integer names', () => {
    expect(judge(invalidIdRefused, get('/pets/abc', 404, errorBody(404)), NOT_AN_INTEGER)).toEqual([])
    expect(judge(invalidIdRefused, get('/pets/abc', 400, errorBody(400)), NOT_AN_INTEGER)).toEqual([])
    expect(judge(invalidIdRefused, get('/pets/007', 200, { id: 7, name: 'a', categoryId: 1 }), LEADING_ZEROS)).toEqual(
      [],
    )
  })
  it('fails any other answer, a 200 for text that spells no integer, or a 200 with another pet', () => {
    expect(judge(invalidIdRefused, get('/pets/abc', 422, errorBody(422)), NOT_AN_INTEGER)).toEqual([
      'GET /pets/abc (a petId that is not an integer) answered 422; documented: 404 Error, as for any petId that identifies no animal, or 400 Error for input that is no int64',
    ])
    expect(
      judge(invalidIdRefused, get('/pets/abc', 200, { id: 0, name: 'a', categoryId: 1 }), NOT_AN_INTEGER),
    ).toHaveLength(1)
    expect(judge(invalidIdRefused, get('/pets/007', 200, { id: 1, name: 'a', categoryId: 1 }), LEADING_ZEROS)).toEqual([
      'GET /pets/007 (an integer with leading zeros) answered 200; documented: 404 Error, as for any petId that identifies no animal, or 400 Error for input that is no int64, or 200 with the pet whose id it spells (7)',
    ])
    expect(judge(invalidIdRefused, get('/pets/abc', 500, errorBody(500)), NOT_AN_INTEGER)).toHaveLength(1)
  })
  it('judges only petIds a scenario wrote outside their form, with the valid key', () => {
    expect(judge(invalidIdRefused, get('/pets/1', 422, errorBody(422)))).toBe('n/a')
    expect(judge(invalidIdRefused, get('/pets/abc', 401, errorBody(401), 'none'), NOT_AN_INTEGER)).toBe('n/a')
  })
  it('lifts the documented-status rule there: a 400 on getPet is not a status failure for such a petId', () => {
    expect(judge(statusDocumented, get('/pets/abc', 400, errorBody(400)), NOT_AN_INTEGER)).toBe('n/a')
    expect(judge(statusDocumented, get('/pets/1', 400, errorBody(400)))).toHaveLength(1)
  })
})

describe(invalidId.id, () => {
  it('records the answer, by kind of petId', () => {
    const exchange = get('/pets/abc', 404, errorBody(404, 'pet_not_found'))
    expect(judge(invalidId, exchange, NOT_AN_INTEGER)).toEqual(['404 Error (code "pet_not_found")'])
    expect(subjectOf(invalidId, exchange, NOT_AN_INTEGER, spec())).toBe(
      'GET /pets/{petId} with a petId that is not an integer',
    )
    expect(judge(invalidId, exchange)).toBe('n/a')
  })
})

describe(idMatches.id, () => {
  it('passes the pet asked for, int64-exact', () => {
    expect(
      judge(idMatches, get('/pets/9223372036854775807', 200, { id: 9223372036854775807n, name: 'a', categoryId: 1 })),
    ).toEqual([])
    expect(judge(idMatches, get('/pets/-1', 200, { id: -1, name: 'a', categoryId: 1 }))).toEqual([])
  })
  it('fails a neighbour (an id read through a double) or an example pet', () => {
    expect(
      judge(idMatches, get('/pets/9007199254740993', 200, { id: 9007199254740992, name: 'a', categoryId: 1 })),
    ).toEqual([
      'GET /pets/9007199254740993 answered 200 with the pet of id 9007199254740992; documented: the animal with id 9007199254740993',
    ])
    expect(judge(idMatches, get('/pets/5', 200, { id: 1, name: 'Rex', categoryId: 1 }))).toHaveLength(1)
    expect(judge(idMatches, get('/pets/007', 200, { id: 8, name: 'a', categoryId: 1 }), LEADING_ZEROS)).toHaveLength(1)
  })
  it('leaves bodies that are no pet to response.schema, and petIds that spell no integer to the invalid-id checks', () => {
    expect(judge(idMatches, get('/pets/5', 200, { data: { id: 5 } }))).toMatch(/^not judged: /)
    expect(judge(idMatches, get('/pets/abc', 200, { id: 1, name: 'a', categoryId: 1 }), NOT_AN_INTEGER)).toBe('n/a')
    expect(judge(idMatches, get('/pets/5', 404, errorBody(404)))).toBe('n/a')
  })
})
