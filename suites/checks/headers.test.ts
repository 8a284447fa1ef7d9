import { describe, expect, it } from 'vitest'
import { Spec, spec } from '../../spec/index.js'
import { judgeExchange } from './applies.js'
import { bySpec } from './check.js'
import { deprecationHeader } from './deprecation-header.js'
import { deprecationScoped } from './deprecation-scoped.js'
import { parseChallenges, parseImfFixdate, parseSfDate } from './http-grammar.js'
import { successorLink } from './successor-link.js'
import { sunsetHeader } from './sunset-header.js'
import { errorBody, exchangeOf, judge } from './test-support.js'
import { deprecatedOperation } from './util.js'
import { wwwAuthenticate } from './www-authenticate.js'

const DEPRECATED = deprecatedOperation(spec())
const deprecated = (headers: Record<string, string>, status = 200) =>
  exchangeOf({
    operationId: DEPRECATED,
    status,
    body: status === 200 ? { id: 1, name: 'a', categoryId: 1 } : errorBody(status),
    headers,
  })
const GOOD = {
  deprecation: '@1764892800',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
}

describe('header grammars', () => {
  it('parses challenges with params, token68 and several schemes', () => {
    expect(parseChallenges('Bearer realm="petstore", error="invalid_token"')).toEqual([
      { scheme: 'Bearer', params: { realm: 'petstore', error: 'invalid_token' } },
    ])
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
    for (const bad of [
      'Fri, 05 Dec 2030 00:00:00 GMT',
      'Thu, 5 Dec 2030 00:00:00 GMT',
      'Thu, 05 Dec 2030 00:00:00 UTC',
      '2030-12-05',
      'Sat, 31 Feb 2030 00:00:00 GMT',
    ]) {
      expect(parseImfFixdate(bad)).toBeUndefined()
    }
  })
})

describe('the deprecated operation', () => {
  it('is the one the spec marks, and the ids of its checks name it', () => {
    expect(spec().operation(DEPRECATED).deprecated).toBe(true)
    for (const check of [deprecationHeader, sunsetHeader, successorLink]) {
      expect(check.id.startsWith(`${DEPRECATED}.`)).toBe(true)
      expect(check.on.operation).toBe(DEPRECATED)
      expect(bySpec(check.title, spec()).startsWith(DEPRECATED)).toBe(true)
    }
  })
  it('passes the documented headers, on a found and on an unknown pet', () => {
    for (const check of [deprecationHeader, sunsetHeader, successorLink]) {
      expect(judge(check, deprecated(GOOD))).toEqual([])
      expect(judge(check, deprecated(GOOD, 404))).toEqual([])
    }
  })
  it("wants the successor link under the judged spec's server path: /v1.1/pets once a revision moves there", () => {
    const doc = structuredClone(spec().doc)
    doc.servers = [{ url: 'http://127.0.0.1:4010/v1.1' }]
    const revised = new Spec(doc)
    const at = (link: string) => judgeExchange(successorLink, deprecated({ ...GOOD, link }), {}, revised)
    expect(at('</v1.1/pets>; rel="successor-version"')).toEqual([])
    expect(at('<http://127.0.0.1:4010/v1.1/pets?status=available>; rel="successor-version"')).toEqual([])
    expect(at('</v1/pets>; rel="successor-version"')).toEqual([
      'GET /pets/1 answered 200 with Link "</v1/pets>; rel="successor-version"", whose successor-version target /v1/pets is not /v1.1/pets; documented: GET /pets under the server path /v1.1',
    ])
    expect(judge(successorLink, deprecated({ ...GOOD, link: '</v2/pets>; rel="successor-version"' }))).toHaveLength(1)
  })

  it('does not judge a 401 (no header is documented there) nor another operation', () => {
    for (const check of [deprecationHeader, sunsetHeader, successorLink]) {
      expect(judge(check, deprecated({}, 401))).toBe('n/a')
      expect(
        judge(check, exchangeOf({ operationId: 'createPet', status: 201, body: { id: 1, name: 'a', categoryId: 1 } })),
      ).toBe('n/a')
    }
  })
})

describe(deprecationHeader.id, () => {
  it('flags a boolean Deprecation, two field lines, and a missing one', () => {
    expect(judge(deprecationHeader, deprecated({ ...GOOD, deprecation: 'true' }))).toEqual([
      'GET /pets/1 answered 200 with Deprecation "true", not a structured-field date such as @1764892800 (RFC 9745 §2)',
    ])
    expect((judge(deprecationHeader, deprecated({ ...GOOD, deprecation: '@1, @2' })) as string[])[0]).toContain(
      'more than one',
    )
    expect(judge(deprecationHeader, deprecated({}))).toEqual([
      'GET /pets/1 answered 200 without a Deprecation header; the operation is deprecated (RFC 9745: Deprecation: @<unix-seconds>)',
    ])
  })

  it("leaves the date's form to a revision that documents another (an earlier draft's HTTP-date or true)", () => {
    for (const [schema, value] of [
      [{ type: 'string', pattern: ' GMT$' }, 'Fri, 05 Dec 2025 00:00:00 GMT'],
      [{ type: 'string', enum: ['true'] }, 'true'],
    ] as const) {
      const doc = structuredClone(spec().doc)
      doc.components.headers.Deprecation = { schema, example: value }
      const revised = new Spec(doc)
      expect(judgeExchange(deprecationHeader, deprecated({ ...GOOD, deprecation: value }), {}, revised)).toHaveProperty(
        'notJudged',
      )
      // Still there: what it holds is judged against the revision's schema by response.headers.
      expect(judgeExchange(deprecationHeader, deprecated({}), {}, revised)).toHaveLength(1)
      expect(judgeExchange(deprecationHeader, deprecated({ ...GOOD, deprecation: 'true' }), {}, spec())).toHaveLength(1)
    }
  })
})

describe(sunsetHeader.id, () => {
  it("flags a Sunset that is missing, not an IMF-fixdate, not the spec's date, or before the deprecation", () => {
    expect(judge(sunsetHeader, deprecated({}))).toEqual([
      'GET /pets/1 answered 200 without a Sunset header; the operation is removed on Thu, 05 Dec 2030 00:00:00 GMT (RFC 8594)',
    ])
    expect(judge(sunsetHeader, deprecated({ ...GOOD, sunset: '2030-12-05' }))).toHaveLength(1)
    expect(judge(sunsetHeader, deprecated({ ...GOOD, sunset: 'Wed, 04 Dec 2030 00:00:00 GMT' }))).toHaveLength(1)
    const early = judge(sunsetHeader, deprecated({ deprecation: '@1924992001', sunset: GOOD.sunset })) as string[]
    expect(early.some((m) => m.includes('before its Deprecation date'))).toBe(true)
  })
})

describe(successorLink.id, () => {
  it('wants a successor-version link, naming the replacement the spec gives', () => {
    expect(judge(successorLink, deprecated({ ...GOOD, link: '</v1/pets>; rel="next"' }))).toEqual([
      'GET /pets/1 answered 200 with Link "</v1/pets>; rel="next""; documented: a link with rel="successor-version" to GET /pets',
    ])
    expect(judge(successorLink, deprecated({}, 404))).toHaveLength(1)
  })
})

describe(deprecationScoped.id, () => {
  it('flags Deprecation or Sunset on operations that are not deprecated', () => {
    expect(judge(deprecationScoped, exchangeOf({ body: [], headers: { deprecation: '@1' } }))).toEqual([
      'GET /pets (listPets, not deprecated) answered with deprecation "@1"',
    ])
    expect(judge(deprecationScoped, exchangeOf({ body: [] }))).toEqual([])
  })
  it('does not judge the deprecated operation', () => {
    expect(judge(deprecationScoped, deprecated(GOOD))).toBe('n/a')
    expect(bySpec(deprecationScoped.title, spec())).toBe(
      `Deprecation and Sunset appear only on the deprecated ${DEPRECATED}`,
    )
  })
})

describe(wwwAuthenticate.id, () => {
  const unauthorized = (headers: Record<string, string>) => exchangeOf({ status: 401, body: errorBody(401), headers })
  it('wants a Bearer challenge with an auth-param on every 401', () => {
    expect(judge(wwwAuthenticate, unauthorized({ 'www-authenticate': 'Bearer realm="petstore"' }))).toEqual([])
    expect(
      judge(wwwAuthenticate, unauthorized({ 'www-authenticate': 'Basic realm="x", Bearer scope="pets"' })),
    ).toEqual([])
    expect(judge(wwwAuthenticate, unauthorized({}))).toEqual([
      'GET /pets answered 401 without WWW-Authenticate; RFC 6750 §3 asks for a Bearer challenge, e.g. Bearer realm="petstore"',
    ])
    expect((judge(wwwAuthenticate, unauthorized({ 'www-authenticate': 'Bearer' })) as string[])[0]).toContain(
      'no auth-param',
    )
    expect((judge(wwwAuthenticate, unauthorized({ 'www-authenticate': 'Basic realm="x"' })) as string[])[0]).toContain(
      'no Bearer challenge',
    )
  })
  it('judges 401s of requests that call no documented operation too, and nothing but 401s', () => {
    expect(
      judge(wwwAuthenticate, exchangeOf({ operationId: null, method: 'PUT', path: '/pets', status: 401 })),
    ).toHaveLength(1)
    expect(judge(wwwAuthenticate, exchangeOf({ status: 403, body: errorBody(403) }))).toBe('n/a')
  })
})
