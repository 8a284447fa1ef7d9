import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { subjectOf } from './applies.js'
import { allowedMethods, methodsAllow } from './methods-allow.js'
import { errorBody, exchangeOf, judge } from './test-support.js'
import { undocumentedMethod } from './undocumented-method.js'

const other = (
  method: string,
  status: number,
  headers: Record<string, string> = {},
  credential: 'key' | 'none' = 'key',
) => exchangeOf({ operationId: null, method, path: '/pets/1', status, body: errorBody(status), headers, credential })

describe(methodsAllow.id, () => {
  it('passes a 405 that lists the methods the resource supports', () => {
    expect(judge(methodsAllow, other('TRACE', 405, { allow: 'GET' }))).toEqual([])
    expect(judge(methodsAllow, other('PUT', 405, { allow: 'GET, POST, OPTIONS' }))).toEqual([])
    expect(allowedMethods('')).toEqual([])
  })
  it('advises on a 405 without Allow (RFC 9110 §15.5.6), with a malformed one, or one listing the method refused', () => {
    expect(judge(methodsAllow, other('TRACE', 405))).toEqual([
      'TRACE /pets/1 answered 405 without Allow; RFC 9110 §15.5.6: the origin server MUST generate an Allow header field listing the methods the resource supports',
    ])
    expect(judge(methodsAllow, other('PUT', 405, { allow: 'GET; POST' }))).toHaveLength(1)
    expect(judge(methodsAllow, other('PUT', 405, { allow: 'GET, PUT' }))).toHaveLength(1)
    expect(methodsAllow.severity).toBe('advice')
  })
  it('judges only 405 answers, of any request', () => {
    expect(judge(methodsAllow, other('PUT', 404))).toBe('n/a')
    expect(judge(methodsAllow, exchangeOf({ status: 405, body: errorBody(405) }))).toEqual([
      expect.stringContaining('without Allow'),
    ])
  })
})

describe(undocumentedMethod.id, () => {
  it('records what the method got, and the Allow it names, by method, path and key', () => {
    const exchange = other('DELETE', 405, { allow: 'GET' }, 'none')
    const facts = { otherMethod: '/pets/{petId}' }
    expect(judge(undocumentedMethod, exchange, facts)).toEqual(['405 Error (code "some_code") (Allow: GET)'])
    expect(subjectOf(undocumentedMethod, exchange, facts, spec())).toBe('DELETE /pets/{petId} without a key')
    expect(subjectOf(undocumentedMethod, other('HEAD', 405), facts, spec())).toBe('HEAD /pets/{petId}')
  })
  it('judges only requests a scenario says use another method', () => {
    expect(judge(undocumentedMethod, other('DELETE', 405))).toBe('n/a')
  })
})
