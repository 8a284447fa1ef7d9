import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { errorBody, exchangeOf } from '../test-support/exchanges.js'
import type { Check, CheckInput } from './check.js'
import { deprecationHeader } from './deprecation-header.js'
import { deprecationScoped } from './deprecation-scoped.js'
import { parseChallenges, parseImfFixdate, parseSfDate } from './http-grammar.js'
import { successorLink } from './successor-link.js'
import { sunsetHeader } from './sunset-header.js'
import { wwwAuthenticate } from './www-authenticate.js'

const s = spec()
const judge = (check: Check, input: CheckInput) => (check.applies && !check.applies(input, s) ? 'n/a' : check.run(input, s))
const getPet = (headers: Record<string, string>) => exchangeOf({ operationId: 'getPet', body: { id: 1, name: 'a', categoryId: 1 }, headers })
const GOOD = { deprecation: '@1764892800', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT', link: '</v1/pets>; rel="successor-version"' }

describe('header grammars', () => {
  it('parses challenges with params, token68 and several schemes', () => {
    expect(parseChallenges('Bearer realm="petstore", error="invalid_token"')).toEqual([{ scheme: 'Bearer', params: { realm: 'petstore', error: 'invalid_token' } }])
    expect(parseChallenges('Basic realm="a", Bearer realm=b')).toEqual([
      { scheme: 'Basic', params: { realm: 'a' } },
      { scheme: 'Bearer', params: { realm: 'b' } },
    ])
    expect(parseChallenges('Negotiate abc==')).toEqual([{ scheme: 'Negotiate', token68: 'abc==', params: {} }])
    expect(parseChallenges('Bearer')).toEqual([{ scheme: 'Bearer', params: {} }])
    expect(parseChallenges('Bearer realm="unterminated')).toBeUndefined()
    expect(parseChallenges('')).toBeUndefined()
  })
  it('parses structured-field dates and IMF-fixdates by their grammars', () => {
    expect(parseSfDate('@1764892800')).toBe(1764892800)
    expect(parseSfDate('@-5')).toBe(-5)
    for (const bad of ['true', '1764892800', '@1.5', '@', '@1234567890123456']) expect(parseSfDate(bad)).toBeUndefined()
    expect(parseImfFixdate('Thu, 05 Dec 2030 00:00:00 GMT')?.toISOString()).toBe('2030-12-05T00:00:00.000Z')
    for (const bad of ['Fri, 05 Dec 2030 00:00:00 GMT', 'Thu, 5 Dec 2030 00:00:00 GMT', 'Thu, 05 Dec 2030 00:00:00 UTC', '2030-12-05', 'Sat, 31 Feb 2030 00:00:00 GMT']) {
      expect(parseImfFixdate(bad)).toBeUndefined()
    }
  })
})

describe('getPet deprecation advice', () => {
  it('passes the documented headers', () => {
    for (const check of [deprecationHeader, sunsetHeader, successorLink]) expect(judge(check, { exchange: getPet(GOOD) })).toEqual([])
  })
  it('flags a boolean Deprecation, two field lines, and a missing one', () => {
    expect(judge(deprecationHeader, { exchange: getPet({ ...GOOD, deprecation: 'true' }) })).toHaveLength(1)
    expect(judge(deprecationHeader, { exchange: getPet({ ...GOOD, deprecation: '@1, @2' }) })[0]).toContain('more than one')
    expect(judge(deprecationHeader, { exchange: getPet({}) })).toHaveLength(1)
  })
  it("flags a Sunset that is not an IMF-fixdate, not the spec's date, or before the deprecation", () => {
    expect(judge(sunsetHeader, { exchange: getPet({ ...GOOD, sunset: '2030-12-05' }) })).toHaveLength(1)
    expect(judge(sunsetHeader, { exchange: getPet({ ...GOOD, sunset: 'Wed, 04 Dec 2030 00:00:00 GMT' }) })).toHaveLength(1)
    const early = judge(sunsetHeader, { exchange: getPet({ deprecation: '@1924992001', sunset: GOOD.sunset }) }) as string[]
    expect(early.some((m) => m.includes('before its Deprecation date'))).toBe(true)
  })
  it('does not judge a 401, and flags Deprecation on operations that are not deprecated', () => {
    expect(judge(deprecationHeader, { exchange: exchangeOf({ operationId: 'getPet', status: 401, body: errorBody(401) }) })).toBe('n/a')
    expect(judge(deprecationScoped, { exchange: exchangeOf({ body: [], headers: { deprecation: '@1' } }) })).toHaveLength(1)
    expect(judge(deprecationScoped, { exchange: exchangeOf({ body: [] }) })).toEqual([])
  })
})

describe('auth.www-authenticate', () => {
  const unauthorized = (headers: Record<string, string>) => exchangeOf({ status: 401, body: errorBody(401), headers })
  it('wants a Bearer challenge with an auth-param on every 401', () => {
    expect(judge(wwwAuthenticate, { exchange: unauthorized({ 'www-authenticate': 'Bearer realm="petstore"' }) })).toEqual([])
    expect(judge(wwwAuthenticate, { exchange: unauthorized({ 'www-authenticate': 'Basic realm="x", Bearer scope="pets"' }) })).toEqual([])
    expect(judge(wwwAuthenticate, { exchange: unauthorized({}) })).toHaveLength(1)
    expect(judge(wwwAuthenticate, { exchange: unauthorized({ 'www-authenticate': 'Bearer' }) })[0]).toContain('no auth-param')
    expect(judge(wwwAuthenticate, { exchange: unauthorized({ 'www-authenticate': 'Basic realm="x"' }) })[0]).toContain('no Bearer challenge')
  })
})
