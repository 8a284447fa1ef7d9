import { describe, expect, it } from 'vitest'
import { CLOSED_WITHOUT_ANSWER } from '../../model/index.js'
import { contentTypeJson } from './content-type.js'
import { documentedStatusesSeen } from './coverage.js'
import { errorStatusEchoed } from './error-status-echoed.js'
import { noServerError } from './no-server-error.js'
import { noStackTrace } from './no-stack-trace.js'
import { responseSchema } from './response-schema.js'
import { statusDocumented } from './status-documented.js'
import { errorBody, exchangeOf, judge, judgeRun } from './test-support.js'
import { transportOk } from './transport-ok.js'

// A request that calls no documented operation: an undocumented method on a documented path.
const trace = (status: number, parts: Parameters<typeof exchangeOf>[0] = {}) =>
  exchangeOf({ operationId: null, method: 'TRACE', path: '/pets/1', status, ...parts })

describe(transportOk.id, () => {
  it('passes a response and names the error of a missing one, on any request', () => {
    expect(judge(transportOk, exchangeOf())).toEqual([])
    expect(judge(transportOk, exchangeOf({ operationId: 'getPet', error: 'timeout after 5000 ms' }))).toEqual([
      'GET /pets/1: no HTTP response: timeout after 5000 ms',
    ])
    expect(judge(transportOk, trace(0, { error: 'socket hang up' }))).toEqual([
      'TRACE /pets/1: no HTTP response: socket hang up',
    ])
  })
  it('observes a connection closed without an answer to a body over 64 KiB; fails one to a smaller body, or a timeout', () => {
    const closed = (bytes: number, error = `${CLOSED_WITHOUT_ANSWER}, to a request with a body of ${bytes} bytes`) =>
      exchangeOf({ operationId: 'createPet', requestBody: 'x'.repeat(bytes), error })
    expect(judge(transportOk, closed(64 * 1024 + 1))).toEqual([])
    expect(transportOk.observedInstead?.(closed(1024 * 1024))).toMatch(
      /^connection closed without an answer while a body of 1048576 bytes was sent \(size limits are not described; .*RFC 9112 §9\.6\)$/,
    )
    expect(judge(transportOk, closed(64 * 1024))).toEqual([
      'POST /pets: no HTTP response: connection closed without any answer (reset), to a request with a body of 65536 bytes',
    ])
    expect(transportOk.observedInstead?.(closed(64 * 1024))).toBeUndefined()
    expect(judge(transportOk, closed(1024 * 1024, 'timeout after 5000 ms'))).toHaveLength(1)
    expect(
      judge(transportOk, closed(1024 * 1024, 'connection closed before a complete response (reset)')),
    ).toHaveLength(1)
  })
  it('does not blame the target for a request the Fetch API cannot build (TRACE to a handler mounted in-process)', () => {
    expect(judge(transportOk, trace(0, { error: "'TRACE' HTTP method is unsupported." }))).toEqual([])
  })
})

describe(noServerError.id, () => {
  it('fails any 5xx, documented or not, outside the documented input and on undocumented requests too', () => {
    expect(judge(noServerError, exchangeOf({ status: 500, body: errorBody(500) }), { outOfRange: ['limit'] })).toEqual([
      'GET /pets answered 500; a 5xx is never documented',
    ])
    expect(judge(noServerError, exchangeOf({ status: 503 }))).toHaveLength(1)
    expect(judge(noServerError, trace(502))).toEqual(['TRACE /pets/1 answered 502; a 5xx is never documented'])
  })
  it('passes every other status, and does not judge an exchange without an answer', () => {
    expect(judge(noServerError, exchangeOf({ status: 400, body: errorBody(400) }))).toEqual([])
    expect(judge(noServerError, trace(405))).toEqual([])
    expect(judge(noServerError, exchangeOf({ error: 'timeout after 5000 ms' }))).toBe('n/a')
  })
  it('passes 501 for a method no operation uses (RFC 9110 §15.6.2), and fails it for one an operation uses', () => {
    const otherMethod = { otherMethod: '/pets/{petId}' }
    expect(judge(noServerError, trace(501), otherMethod)).toEqual([])
    expect(judge(noServerError, trace(501))).toEqual(['TRACE /pets/1 answered 501; a 5xx is never documented'])
    expect(judge(noServerError, trace(502), otherMethod)).toHaveLength(1)
    // POST on /pets/{petId}: a method the spec uses (createPet), so the server implements it somewhere.
    const post = exchangeOf({ operationId: null, method: 'POST', path: '/pets/1', status: 501 })
    expect(judge(noServerError, post, otherMethod)).toEqual(['POST /pets/1 answered 501; a 5xx is never documented'])
    expect(judge(noServerError, exchangeOf({ status: 501 }))).toHaveLength(1)
  })
})

describe(statusDocumented.id, () => {
  it('fails a status the operation does not list and names the documented ones', () => {
    expect(judge(statusDocumented, exchangeOf({ operationId: 'createPet', status: 200, body: {} }))).toEqual([
      'POST /pets answered 200; documented for createPet: 201, 400, 401',
    ])
    expect(judge(statusDocumented, exchangeOf({ operationId: 'getPet', status: 404, body: errorBody(404) }))).toEqual(
      [],
    )
  })
  it('leaves the status open outside the documented input, and on requests that call no operation', () => {
    expect(judge(statusDocumented, exchangeOf({ status: 422 }), { outOfRange: ['limit'] })).toBe('n/a')
    expect(judge(statusDocumented, trace(405))).toBe('n/a')
  })
})

describe(contentTypeJson.id, () => {
  it('accepts application/json with parameters and +json types', () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/problem+json',
    ]) {
      expect(judge(contentTypeJson, exchangeOf({ body: [], headers: { 'content-type': type } }))).toEqual([])
    }
  })
  it('fails text/plain and a missing Content-Type on a documented answer', () => {
    expect(judge(contentTypeJson, exchangeOf({ body: [], headers: { 'content-type': 'text/plain' } }))).toEqual([
      'GET /pets answered 200 with Content-Type "text/plain"; documented: application/json',
    ])
    const missing = exchangeOf({ operationId: 'getPet', status: 404, raw: '' })
    delete missing.response!.headers['content-type']
    expect(judge(contentTypeJson, missing)).toEqual([
      'GET /pets/1 answered 404 with no Content-Type; documented: application/json',
    ])
  })
  it('does not judge a 5xx, an empty undocumented answer, or a request that calls no operation', () => {
    expect(
      judge(contentTypeJson, exchangeOf({ status: 500, raw: 'oops', headers: { 'content-type': 'text/plain' } })),
    ).toBe('n/a')
    expect(
      judge(contentTypeJson, exchangeOf({ status: 204, raw: '', headers: { 'content-type': 'text/plain' } })),
    ).toBe('n/a')
    expect(judge(contentTypeJson, trace(405, { raw: 'no', headers: { 'content-type': 'text/plain' } }))).toBe('n/a')
  })
})

describe(responseSchema.id, () => {
  it('passes documented bodies, extra fields included, and int64 extremes', () => {
    const pet = {
      id: 9223372036854775807n,
      name: '',
      categoryId: -9223372036854775808n,
      status: 'sold',
      createdAt: 'x',
    }
    expect(judge(responseSchema, exchangeOf({ body: [pet] }))).toEqual([])
    expect(judge(responseSchema, exchangeOf({ operationId: 'createPet', status: 201, body: pet }))).toEqual([])
  })
  it('fails a wrapped list, a Pet without id, an empty 404 and a body that is not JSON', () => {
    expect(judge(responseSchema, exchangeOf({ body: { pets: [] } }))).toHaveLength(1)
    const [noId] = judge(
      responseSchema,
      exchangeOf({ operationId: 'createPet', status: 201, body: { name: 'a', categoryId: 1 } }),
    ) as string[]
    expect(noId).toContain("must have required property 'id'")
    expect(judge(responseSchema, exchangeOf({ operationId: 'getPet', status: 404, raw: '' }))).toEqual([
      'GET /pets/1 answered 404 with an empty body; documented: Error',
    ])
    expect((judge(responseSchema, exchangeOf({ raw: '[{"id":1,' })) as string[])[0]).toContain('not JSON')
  })
  it('fails an integer beyond int64, which a double cannot tell from the largest int64', () => {
    const body = { id: 1, name: 'a', categoryId: 9223372036854775808n }
    expect(judge(responseSchema, exchangeOf({ operationId: 'createPet', status: 201, body }))).toHaveLength(1)
  })
  it('does not judge statuses the spec gives no body for, nor requests that call no operation', () => {
    expect(judge(responseSchema, exchangeOf({ status: 418, body: 'teapot' }))).toBe('n/a')
    expect(judge(responseSchema, trace(404, { body: { pets: [] } }))).toBe('n/a')
  })
})

describe(errorStatusEchoed.id, () => {
  it('fails an Error whose status differs from the HTTP status', () => {
    expect(judge(errorStatusEchoed, exchangeOf({ operationId: 'getPet', status: 404, body: errorBody(400) }))).toEqual([
      'GET /pets/1 answered 404 with Error.status 400; documented: the HTTP status',
    ])
    expect(judge(errorStatusEchoed, exchangeOf({ status: 401, body: errorBody(401) }))).toEqual([])
  })
  it('fails an Error the interface requires when it says no status: Error requires it', () => {
    expect(judge(errorStatusEchoed, exchangeOf({ status: 401, body: { code: 'x', message: 'm' } }))).toEqual([
      'GET /pets answered 401 with an Error without status; documented: status is required and repeats the HTTP status',
    ])
    expect(
      judge(errorStatusEchoed, exchangeOf({ status: 401, body: { code: 'x', message: 'm', status: '401' } })),
    ).toEqual(['GET /pets answered 401 with Error.status "401"; documented: the HTTP status'])
  })
  it('does not judge success answers; says why where there is no status to compare, never passes them', () => {
    expect(
      judge(errorStatusEchoed, exchangeOf({ operationId: 'getPet', status: 200, body: { id: 1, status: 404 } })),
    ).toBe('n/a')
    expect(judge(errorStatusEchoed, exchangeOf({ status: 405, body: { code: 'x', message: 'm' } }))).toBe(
      'not judged: GET /pets answered 405 with a body that says no status',
    )
    expect(judge(errorStatusEchoed, exchangeOf({ status: 401, raw: 'Unauthorized' }))).toBe(
      'not judged: GET /pets answered 401 with no JSON object to read a status from (error.body judges it)',
    )
  })
})

describe(noStackTrace.id, () => {
  it('finds Node, Python and Java traces, not ordinary messages', () => {
    const node = { code: 'x', message: 'TypeError: x\n    at handler (/app/server.js:12:5)', status: 500 }
    expect(judge(noStackTrace, exchangeOf({ status: 500, body: node }))).toHaveLength(1)
    expect(
      judge(noStackTrace, exchangeOf({ status: 500, raw: 'Traceback (most recent call last):\n  File "a.py"' })),
    ).toHaveLength(1)
    expect(judge(noStackTrace, trace(500, { raw: 'at com.acme.Pets.get(Pets.java:42)' }))).toEqual([
      'TRACE /pets/1 answered 500 with a stack trace in the body ("at com.acme.Pets.get(Pets.java:42)")',
    ])
    expect(
      judge(noStackTrace, exchangeOf({ status: 400, body: errorBody(400, 'limit must be at most 100 (got 1:2)') })),
    ).toEqual([])
  })
  it('reads error answers only', () => {
    expect(judge(noStackTrace, exchangeOf({ status: 200, raw: 'Traceback (most recent call last):' }))).toBe('n/a')
  })
})

describe(documentedStatusesSeen.id, () => {
  it('fails a provokable documented status never seen, and only that', () => {
    const coverage = [
      { operationId: 'getPet' as const, status: '404', seen: false, provokable: true },
      { operationId: 'listPets' as const, status: '400', seen: false, provokable: false },
      { operationId: 'listPets' as const, status: '200', seen: true, provokable: true },
    ]
    expect(judgeRun(documentedStatusesSeen, { coverage })).toEqual([
      'getPet never answered 404, though the suite sent requests that call for it',
    ])
    expect(judgeRun(documentedStatusesSeen, { coverage: coverage.slice(1) })).toEqual([])
    expect(judgeRun(documentedStatusesSeen, { coverage: [] })).toBe('n/a')
  })
})
