import { describe, expect, it } from 'vitest'
import { responseHeaders } from './response-headers.js'
import { errorBody, exchangeOf, judge } from './test-support.js'

const GOOD = {
  deprecation: '@1764892800',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
}
const getPet = (headers: Record<string, string>, status = 200) =>
  exchangeOf({
    operationId: 'getPet',
    status,
    body: status === 200 ? { id: 1, name: 'a', categoryId: 1 } : errorBody(status),
    headers,
  })

describe(responseHeaders.id, () => {
  it('passes documented headers that match their schemas, and optional ones left out', () => {
    expect(judge(responseHeaders, getPet(GOOD))).toEqual([])
    expect(judge(responseHeaders, getPet(GOOD, 404))).toEqual([])
    expect(judge(responseHeaders, getPet({}))).toMatch(/^not judged: /)
    expect(
      judge(
        responseHeaders,
        exchangeOf({ status: 401, body: errorBody(401), headers: { 'www-authenticate': 'Bearer realm="petstore"' } }),
      ),
    ).toEqual([])
  })
  it("fails a header that breaks the spec's schema: Prism's `Deprecation: true`, a Sunset that is no HTTP-date, a Link that is no link-value", () => {
    expect(judge(responseHeaders, getPet({ ...GOOD, deprecation: 'true' }))).toEqual([
      'GET /pets/1 answered 200 with Deprecation "true", which breaks the spec\'s schema: Deprecation header must match pattern "^@-?[0-9]{1,15}$"',
    ])
    expect(judge(responseHeaders, getPet({ ...GOOD, sunset: 'YQNUJ', link: 'successor' }, 404))).toHaveLength(2)
    expect((judge(responseHeaders, getPet({ ...GOOD, deprecation: '@1, @2' })) as string[])[0]).toContain(
      'Deprecation "@1, @2"',
    )
  })
  it('judges only responses for which the spec describes headers', () => {
    expect(judge(responseHeaders, exchangeOf({ body: [], headers: { deprecation: 'true' } }))).toBe('n/a')
    expect(
      judge(
        responseHeaders,
        exchangeOf({ operationId: 'getPet', status: 400, body: errorBody(400), headers: { deprecation: 'true' } }),
      ),
    ).toBe('n/a')
    expect(
      judge(
        responseHeaders,
        exchangeOf({
          operationId: null,
          method: 'PUT',
          path: '/pets/1',
          status: 405,
          headers: { deprecation: 'true' },
        }),
      ),
    ).toBe('n/a')
  })
})
