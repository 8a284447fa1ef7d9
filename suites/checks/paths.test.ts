import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { subjectOf } from './applies.js'
import { noDataWithoutKey } from './no-data-without-key.js'
import { pathVariant } from './path-variant.js'
import { errorBody, exchangeOf, judge } from './test-support.js'

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' }
const variant = (
  path: string,
  status: number,
  body: NonNullable<Parameters<typeof exchangeOf>[0]>['body'],
  credential: 'key' | 'none' | 'wrong' = 'none',
) => exchangeOf({ operationId: null, path, status, body, credential })

describe(noDataWithoutKey.id, () => {
  it('fails pet data without a valid key, wherever it sits in the body', () => {
    expect(judge(noDataWithoutKey, variant('/pets/', 200, [PET, PET]))).toEqual([
      'GET /pets/ without a valid key answered 200 with 2 pets; documented: every operation requires the key (401 Error)',
    ])
    expect(judge(noDataWithoutKey, variant('/PETS/1', 200, PET, 'wrong'))).toHaveLength(1)
    expect(judge(noDataWithoutKey, variant('/pets//1', 200, { data: PET }))).toHaveLength(1)
  })
  it('passes a refusal, an empty list, or a body that shows no pet', () => {
    expect(judge(noDataWithoutKey, variant('/pets/', 200, []))).toEqual([])
    expect(judge(noDataWithoutKey, variant('/pets/', 204, undefined))).toEqual([])
    expect(judge(noDataWithoutKey, variant('/pets/', 200, { allow: 'GET, POST' }))).toEqual([])
    expect(judge(noDataWithoutKey, variant('/pets/', 401, errorBody(401)))).toEqual([])
  })
  it('leaves documented operations to their auth checks, and requests with the key alone', () => {
    expect(judge(noDataWithoutKey, exchangeOf({ body: [PET], credential: 'none' }))).toBe('n/a')
    expect(judge(noDataWithoutKey, variant('/pets/', 200, [PET], 'key'))).toBe('n/a')
  })
})

describe(pathVariant.id, () => {
  it('records what each spelling got, with and without a key', () => {
    const facts = { pathVariant: 'GET /pets with a trailing slash' }
    const exchange = variant('/pets/', 404, errorBody(404, 'not_found'))
    expect(judge(pathVariant, exchange, facts)).toEqual(['404 Error (code "not_found")'])
    expect(subjectOf(pathVariant, exchange, facts, spec())).toBe('GET /pets with a trailing slash without a key')
    expect(subjectOf(pathVariant, variant('/pets/', 200, [], 'key'), facts, spec())).toBe(
      'GET /pets with a trailing slash',
    )
    expect(judge(pathVariant, exchange)).toBe('n/a')
  })
})
