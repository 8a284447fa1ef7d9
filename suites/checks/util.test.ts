import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { exchangeOf } from './test-support.js'
import {
  codePoints,
  deprecatedOperation,
  documentedValue,
  queryOutsideRange,
  requestLine,
  sameJson,
  statusesWithHeader,
  undescribedFields,
} from './util.js'

const s = spec()
const URL = 'http://127.0.0.1:4010/v1/pets'

describe('codePoints', () => {
  it('counts a surrogate pair once and a lone surrogate once, as the string iterator does', () => {
    for (const text of [
      '',
      'abc',
      '🐈‍⬛',
      'a\ud800',
      '\udc00\ud800b',
      '\ud83d\ud83d\udc08',
      'é'.repeat(3) + '😀'.repeat(2),
    ])
      expect([text, codePoints(text)]).toEqual([text, [...text].length])
  })
})

describe('sameJson', () => {
  it('compares integers exactly, as numbers or bigints', () => {
    expect(sameJson(1, 1n)).toBe(true)
    expect(sameJson(9007199254740993n, 9007199254740993n)).toBe(true)
    expect(sameJson(9007199254740993n, 9007199254740992n)).toBe(false)
    expect(sameJson(1, 2)).toBe(false)
    expect(sameJson({ a: [1, 'x'] }, { a: [1, 'x'] })).toBe(true)
    expect(sameJson([1, 2], [2, 1])).toBe(false)
    expect(sameJson([1], [1, 1])).toBe(false)
  })

  it('compares objects member by member, in any order, nested ones too', () => {
    expect(sameJson({ a: 1, b: { c: 'x', d: 2n } }, { b: { d: 2, c: 'x' }, a: 1n })).toBe(true)
    expect(sameJson({ a: 1, b: 2 }, { a: 1 })).toBe(false)
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false)
    expect(sameJson({ a: null }, { a: null })).toBe(true)
    expect(sameJson({ a: [] }, { a: {} })).toBe(false)
  })

  it('takes a double past 2^53 as the value it rounds, its digits never having been exact', () => {
    // 35565369293218130 has no double of its own: sent as one, it reads back as the digits written.
    expect(sameJson(35565369293218130, 35565369293218130n)).toBe(true)
    expect(sameJson(35565369293218130n, 35565369293218130)).toBe(true)
    expect(sameJson(35565369293218130, 35565369293218200n)).toBe(false)
    expect(sameJson(1e21, 1000000000000000000000n)).toBe(true)
    expect(sameJson(1e21, '1e21')).toBe(false)
  })
})

describe('requestLine', () => {
  it('quotes the path relative to the base address, as sent', () => {
    expect(requestLine(exchangeOf({ path: '/pets?limit=5' }))).toBe('GET /pets?limit=5')
    expect(requestLine(exchangeOf({ operationId: 'getPet', path: '/pets/9223372036854775807' }))).toBe(
      'GET /pets/9223372036854775807',
    )
    expect(requestLine(exchangeOf({ operationId: null, method: 'GET', path: '//pets/' }))).toBe('GET //pets/')
    expect(requestLine(exchangeOf({ operationId: null, method: 'GET', path: '/PETS' }))).toBe('GET /PETS')
    expect(requestLine(exchangeOf({ operationId: null, method: 'GET', path: '/petshop' }))).toBe('GET /v1/petshop')
  })
})

describe('queryOutsideRange', () => {
  const { minimum, maximum } = s.parameter('listPets', 'limit')
  it('names parameters outside the documented input: out of range, not canonical, unknown, repeated', () => {
    expect(queryOutsideRange(s, 'listPets', `${URL}?limit=${minimum}&status=sold`)).toEqual([])
    expect(queryOutsideRange(s, 'listPets', `${URL}?limit=${maximum}`)).toEqual([])
    expect(queryOutsideRange(s, 'listPets', URL)).toEqual([])
    for (const limit of [
      Number(minimum) - 1,
      Number(maximum) + 1,
      '05',
      '1e1',
      '+5',
      ' 5',
      '',
      'abc',
      '99999999999999999999',
    ]) {
      expect(queryOutsideRange(s, 'listPets', `${URL}?limit=${encodeURIComponent(limit)}`)).toEqual(['limit'])
    }
    expect(queryOutsideRange(s, 'listPets', `${URL}?status=Sold&limit=2`)).toEqual(['status'])
    expect(queryOutsideRange(s, 'listPets', `${URL}?limit=2&limit=3&page=2`)).toEqual(['limit', 'page'])
  })
  it('reads int64 path parameters by their format', () => {
    const petId = s.parameter('getPet', 'petId')
    expect(documentedValue(petId, '9223372036854775807')).toBe(true)
    expect(documentedValue(petId, '-9223372036854775808')).toBe(true)
    expect(documentedValue(petId, '9223372036854775808')).toBe(false)
    expect(documentedValue(petId, '1.0')).toBe(false)
  })
  it('documents only the multiples of a multipleOf', () => {
    const limit = { ...s.parameter('listPets', 'limit'), minimum: 10, multipleOf: 10 }
    expect(['10', '20', '100'].map((value) => documentedValue(limit, value))).toEqual([true, true, true])
    expect(['15', '1', '101'].map((value) => documentedValue(limit, value))).toEqual([false, false, false])
  })
})

describe('what the spec documents', () => {
  it('names the deprecated operation and where its headers are documented', () => {
    const deprecated = deprecatedOperation(s)
    expect(s.operation(deprecated).deprecated).toBe(true)
    const statuses = statusesWithHeader(s, deprecated, 'deprecation')
    expect(statuses.length).toBeGreaterThan(0)
    expect(statuses).not.toContain(401)
    expect(statusesWithHeader(s, 'listPets', 'Deprecation')).toEqual([])
  })
  it('names the fields of a body that NewPet does not describe', () => {
    expect(undescribedFields(s, { name: 'a', categoryId: 1, status: 'sold' })).toEqual([])
    expect(undescribedFields(s, { name: 'a', categoryId: 1, id: 1, nickname: 'b' })).toEqual(['id', 'nickname'])
  })
})
