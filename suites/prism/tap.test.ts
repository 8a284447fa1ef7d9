// The tap's pure parts: the path Prism routes on, and the verdict header the suite gets for each answer.
import type http from 'node:http'
import { describe, expect, it } from 'vitest'
import { prismPath, verdictHeader, type PrismAnswer } from './tap.js'
import { parseViolations, VIOLATIONS_HEADER } from './violations.js'

// As Prism 5.14.2 sent it for a list holding a pet of an unknown status.
const BAD_ENUM = JSON.stringify([
  {
    location: ['response', 'body', '0', 'status'],
    severity: 'Error',
    code: 'enum',
    message: 'Response body property 0.status must be equal to one of the allowed values: available, pending, sold',
  },
])

const answer = (status: number, headers: http.IncomingHttpHeaders, problem?: PrismAnswer['problem']): PrismAnswer => ({
  status,
  headers,
  ...(problem ? { problem } : {}),
})

describe('verdictHeader', () => {
  it("passes Prism's header on, and says [] when Prism judged the answer and found nothing", () => {
    expect(verdictHeader(answer(200, { [VIOLATIONS_HEADER]: BAD_ENUM }), { method: 'GET', status: 200 })).toEqual([
      VIOLATIONS_HEADER,
      BAD_ENUM,
    ])
    expect(verdictHeader(answer(200, {}), { method: 'GET', status: 200 })).toEqual([VIOLATIONS_HEADER, '[]'])
  })

  it('gives no verdict when Prism did not judge the target: no answer, or a 501 that Prism replaced with a mock', () => {
    expect(verdictHeader(undefined, { method: 'GET', status: 200 })).toEqual([])
    expect(verdictHeader(answer(200, { [VIOLATIONS_HEADER]: '[]' }), { method: 'GET', status: 501 })).toEqual([])
  })

  it('gives no verdict on a HEAD: Prism reads the bodiless answer as JSON and fails on it', () => {
    const failed = answer(500, { 'content-type': 'application/problem+json' }, {})
    expect(verdictHeader(failed, { method: 'HEAD', status: 405 })).toEqual([])
    expect(verdictHeader(failed, { method: 'GET', status: 405 })[0]).toBe(VIOLATIONS_HEADER)
  })

  it("states Prism's own error when it could not read the target's answer, without the tap's address", () => {
    const title = `invalid json response body at http://127.0.0.1:40000/v1/pets reason: Unexpected end of JSON input`
    const [name, value] = verdictHeader(
      answer(500, { 'content-type': 'application/problem+json' }, { type: 'FetchError', title }),
      { method: 'GET', status: 200 },
    )
    expect(name).toBe(VIOLATIONS_HEADER)
    const exchange = {
      operationId: 'listPets' as const,
      request: { method: 'GET', url: 'http://127.0.0.1:1/v1/pets', headers: {} },
      response: { status: 200, headers: {}, rawBody: '' },
      durationMs: 1,
    }
    const findings = parseViolations(value, exchange)
    expect(findings.map((f) => f.checkId)).toEqual(['prism.response-body'])
    expect(findings[0]!.message).toBe(
      'invalid json response body reason: Unexpected end of JSON input [Prism Error FetchError at response.body]',
    )
  })
})

describe('prismPath', () => {
  it('strips the base path Prism does not route on, and only a whole segment of it', () => {
    expect(prismPath('/v1/pets?limit=1', '/v1')).toBe('/pets?limit=1')
    expect(prismPath('/v1/pets/7', '/v1')).toBe('/pets/7')
    expect(prismPath('/v1', '/v1')).toBe('/')
    expect(prismPath('/v1?x=1', '/v1')).toBe('/?x=1')
    expect(prismPath('/v10/pets', '/v1')).toBe('/v10/pets')
    expect(prismPath('/pets', '')).toBe('/pets')
  })
})
