import { describe, expect, it } from 'vitest'
import { parseJson } from '../spec/index.js'
import {
  decodeComponent,
  describe as describeValue,
  isBlank,
  isJsonMediaType,
  parsePetId,
  quote,
  readQuery,
  sameText,
  splitTarget,
} from './request.js'

describe('request parsing helpers', () => {
  it('splits targets by hand, absolute form included', () => {
    expect(splitTarget('/v1/pets?limit=5')).toEqual({ path: '/v1/pets', query: 'limit=5' })
    expect(splitTarget('http://127.0.0.1:4010/v1/pets/3?x#frag')).toEqual({ path: '/v1/pets/3', query: 'x' })
    expect(splitTarget('/v1/pets#frag')).toEqual({ path: '/v1/pets', query: '' })
  })

  it('decodes percent-encoding and reports malformed input instead of throwing', () => {
    expect(decodeComponent('a%20b+c', true)).toBe('a b c')
    expect(decodeComponent('a+b', false)).toBe('a+b')
    expect(decodeComponent('%zz', true)).toBeUndefined()
    expect(decodeComponent('%E0%A4%A', true)).toBeUndefined()
  })

  it('reads only the named query parameters, every value kept', () => {
    const query = readQuery('limit=5&x=%zz&status=sold&limit=6&&status', ['limit', 'status'])
    expect(Object.fromEntries(query)).toEqual({ limit: ['5', '6'], status: ['sold', ''] })
    expect(readQuery('lim%69t=3', ['limit']).get('limit')).toEqual(['3'])
  })

  it('reads JSON number literals exactly, in any notation (spec parseJson, which reads createPet bodies)', () => {
    expect(parseJson('42')).toBe(42)
    expect(parseJson('-9223372036854775808')).toBe(-(2n ** 63n))
    expect(parseJson('9007199254740993.00')).toBe(2n ** 53n + 1n)
    expect(parseJson('9.007199254740993E+15')).toBe(2n ** 53n + 1n)
    expect(parseJson('4.2e1')).toBe(42)
    expect(parseJson('0.0e5')).toBe(0)
    expect(parseJson('1.5')).toBe(1.5)
    expect(parseJson('12345678901234567.5')).toBeNaN() // the nearest double is an integer: never read as one
    expect(parseJson('1e-400')).toBeNaN()
    expect(parseJson('1e400')).toBe(Infinity)
    expect(parseJson('1e99999999999')).toBe(Infinity) // no ten-to-the-billion bigint is ever built
    expect(parseJson('12345678901234567890123')).toBe(12345678901234567890123n)
  })

  it('reads petIds as int64 only', () => {
    expect(parsePetId('42')).toBe(42)
    expect(parsePetId('007')).toBe(7)
    expect(parsePetId('9223372036854775807')).toBe(2n ** 63n - 1n)
    expect(parsePetId('-9223372036854775808')).toBe(-(2n ** 63n))
    // However many leading zeros (a 41-character id was 404 while a 40-character one was read).
    expect(parsePetId('0'.repeat(40) + '1')).toBe(1)
    expect(parsePetId('0'.repeat(5000) + '9223372036854775807')).toBe(2n ** 63n - 1n)
    expect(parsePetId('-' + '0'.repeat(50) + '42')).toBe(-42)
    expect(parsePetId('0'.repeat(50))).toBe(0)
    expect(parsePetId('1' + '0'.repeat(40))).toBeUndefined()
    for (const bad of ['9223372036854775808', '-9223372036854775809', '1.5', 'abc', '', '1e3', '+1', ' 1', '0x10'])
      expect(parsePetId(bad)).toBeUndefined()
  })

  it('accepts JSON media types only, with a UTF-8 charset if any', () => {
    for (const ok of [
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json;charset="UTF-8"',
      'application/merge-patch+json',
      'application/vnd.api+json; ext=x',
    ])
      expect(isJsonMediaType(ok), ok).toBe(true)
    for (const bad of [
      undefined,
      '',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'application/jsonx',
      'application/json; charset=latin1',
      'multipart/form-data',
    ])
      expect(isJsonMediaType(bad), String(bad)).toBe(false)
  })

  it('compares tokens without regard to where they differ', () => {
    expect(sameText('secret', 'secret')).toBe(true)
    for (const other of ['secreT', 'secre', 'secrets', '', 'xecret']) expect(sameText(other, 'secret')).toBe(false)
  })
})

describe('message helpers', () => {
  it('quotes received values, cut short', () => {
    expect(quote('abc')).toBe('"abc"')
    expect(quote('x'.repeat(1000))).toHaveLength(60 + 3 + 2)
  })

  it('describes JSON values in words', () => {
    expect([null, [], 'a', 1.5, 2, 2n ** 64n, true, {}].map((v) => describeValue(v))).toEqual([
      'null',
      'an array',
      'a string ("a")',
      'a fraction (1.5)',
      'a number (2)',
      'a number (18446744073709551616)',
      'a boolean (true)',
      'an object',
    ])
  })

  it('sees JSON whitespace only as blank', () => {
    expect([
      isBlank(''),
      isBlank(' \r\n\t'),
      isBlank(Buffer.from(' \n')),
      isBlank(Buffer.from(' x')),
      isBlank('\u00a0'),
    ]).toEqual([true, true, true, false, false])
  })
})
