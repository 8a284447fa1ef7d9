import { describe, expect, it } from 'vitest'
import { errorBody as errorBodyCheck } from './error-body.js'
import { errorBody, exchangeOf, judge } from './test-support.js'

describe(errorBodyCheck.id, () => {
  it('wants an Error body for a documented error status the spec does not give the operation', () => {
    expect(
      judge(errorBodyCheck, exchangeOf({ status: 400, body: errorBody(400, 'invalid_limit') }), {
        outOfRange: ['limit'],
      }),
    ).toEqual([])
    expect(
      judge(
        errorBodyCheck,
        exchangeOf({ operationId: 'getPet', path: '/pets/abc', status: 400, body: errorBody(400) }),
      ),
    ).toEqual([])
    expect(
      judge(errorBodyCheck, exchangeOf({ status: 400, body: { error: 'bad limit' } }), { outOfRange: ['limit'] }),
    ).toEqual([
      "GET /pets answered 400; the body is not an Error: Error must have required property 'code'; Error must have required property 'message'; Error must have required property 'status'",
    ])
    expect(
      judge(errorBodyCheck, exchangeOf({ operationId: 'getPet', path: '/pets/abc', status: 400, raw: 'Bad Request' })),
    ).toEqual([expect.stringMatching(/^GET \/pets\/abc answered 400 with a body that is not JSON/)])
    expect(judge(errorBodyCheck, exchangeOf({ operationId: 'getPet', path: '/pets/abc', status: 400 }))).toEqual([
      'GET /pets/abc answered 400 with an empty body; documented: every error response carries an Error body',
    ])
  })
  it('judges the Error of a status the operation documents too: a 401 without status fails', () => {
    expect(
      judge(errorBodyCheck, exchangeOf({ status: 401, body: { code: 'unauthorized', message: 'no key' } })),
    ).toEqual(["GET /pets answered 401; the body is not an Error: Error must have required property 'status'"])
    expect(judge(errorBodyCheck, exchangeOf({ operationId: 'getPet', status: 404, body: { nope: 1 } }))).toHaveLength(1)
    expect(judge(errorBodyCheck, exchangeOf({ status: 401, raw: 'Unauthorized' }))).toEqual([
      expect.stringMatching(/^GET \/pets answered 401 with a body that is not JSON/),
    ])
    expect(judge(errorBodyCheck, exchangeOf({ status: 401, body: errorBody(401) }))).toEqual([])
  })
  it('does not judge statuses the interface does not document as errors, nor requests that call no operation', () => {
    expect(judge(errorBodyCheck, exchangeOf({ status: 422, raw: 'x' }))).toBe('n/a')
    expect(judge(errorBodyCheck, exchangeOf({ status: 200, body: [] }))).toBe('n/a')
    expect(judge(errorBodyCheck, exchangeOf({ operationId: null, method: 'PUT', status: 404, raw: '<html>' }))).toBe(
      'n/a',
    )
  })
})
