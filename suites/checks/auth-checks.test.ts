import { describe, expect, it } from 'vitest'
import type { Credential } from '../../model/index.js'
import { spec } from '../../spec/index.js'
import { createPetAuthRequired, getPetAuthRequired, listPetsAuthRequired } from './auth-required.js'
import { authSchemeCase } from './auth-scheme-case.js'
import { credentialKind } from './check.js'
import { errorBody, exchangeOf, judge } from './test-support.js'

const INVALID: Credential[] = ['none', 'empty', 'wrong', 'basic', 'extended', 'truncated', 'case-changed']

describe('*.auth.required', () => {
  it('has one check per operation of the spec', () => {
    const checks = [listPetsAuthRequired, createPetAuthRequired, getPetAuthRequired]
    expect(checks.map((c) => c.on.operation).sort()).toEqual(Object.keys(spec().operations).sort())
    for (const check of checks) expect(check.id).toBe(`${check.on.operation}.auth.required`)
  })
  it('wants 401 for every invalid credential', () => {
    for (const credential of INVALID) {
      expect(credentialKind(credential)).toBe('invalid')
      expect(judge(listPetsAuthRequired, exchangeOf({ body: [], credential }))).toHaveLength(1)
      expect(judge(listPetsAuthRequired, exchangeOf({ status: 401, body: errorBody(401), credential }))).toEqual([])
    }
    const created = exchangeOf({ operationId: 'createPet', status: 201, body: {}, credential: 'none' })
    expect(judge(createPetAuthRequired, created)).toEqual([
      'POST /pets with no Authorization header answered 201; documented: 401 Error',
    ])
    expect(
      judge(
        getPetAuthRequired,
        exchangeOf({ operationId: 'getPet', status: 404, body: errorBody(404), credential: 'truncated' }),
      ),
    ).toEqual(['GET /pets/1 with the key without its last character answered 404; documented: 401 Error'])
  })
  it('does not judge the valid key, the scheme in another case, or another operation', () => {
    expect(judge(listPetsAuthRequired, exchangeOf({ body: [] }))).toBe('n/a')
    expect(judge(listPetsAuthRequired, exchangeOf({ body: [], credential: 'lowercase-scheme' }))).toBe('n/a')
    expect(judge(listPetsAuthRequired, exchangeOf({ operationId: 'getPet', body: {}, credential: 'none' }))).toBe('n/a')
  })
})

describe(authSchemeCase.id, () => {
  it('advises against refusing the scheme in another letter case (RFC 9110 §11.1), and passes accepting it', () => {
    const lower = exchangeOf({ path: '/pets?limit=1', body: [], credential: 'lowercase-scheme' })
    expect(judge(authSchemeCase, lower)).toEqual([])
    const upper = exchangeOf({ status: 401, body: errorBody(401), credential: 'uppercase-scheme' })
    expect(judge(authSchemeCase, upper)).toEqual([
      'GET /pets with "Authorization: BEARER <key>" answered 401; RFC 9110 §11.1: the scheme is case-insensitive, so "BEARER" is Bearer',
    ])
    expect(judge(authSchemeCase, exchangeOf({ status: 404, credential: 'lowercase-scheme' }))).toEqual([])
    expect(authSchemeCase.severity).toBe('advice')
  })
  it('does not judge any other credential', () => {
    for (const credential of ['key', ...INVALID] as const)
      expect(judge(authSchemeCase, exchangeOf({ body: [], credential }))).toBe('n/a')
  })
})
