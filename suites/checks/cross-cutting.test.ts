import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { errorBody, exchangeOf } from '../test-support/exchanges.js'
import type { Check, CheckInput } from './check.js'
import { contentTypeJson } from './content-type.js'
import { errorStatusEchoed } from './error-status-echoed.js'
import { noServerError } from './no-server-error.js'
import { noStackTrace } from './no-stack-trace.js'
import { responseSchema } from './response-schema.js'
import { statusDocumented } from './status-documented.js'
import { transportOk } from './transport-ok.js'

const s = spec()
/** What the harness does: [] when the check does not apply, else its messages. */
const judge = (check: Check, input: CheckInput) => (check.applies && !check.applies(input, s) ? 'n/a' : check.run(input, s))

describe('transport.ok', () => {
  it('passes a response and names the error of a missing one', () => {
    expect(judge(transportOk, { exchange: exchangeOf() })).toEqual([])
    const [message] = judge(transportOk, { exchange: exchangeOf({ operationId: 'getPet', error: 'timeout after 5000 ms' }) }) as string[]
    expect(message).toBe('GET /pets/1: no HTTP response: timeout after 5000 ms')
  })
})

describe('response.no-server-error', () => {
  it('fails any 5xx, documented or not, also outside the documented input', () => {
    expect(judge(noServerError, { exchange: exchangeOf({ status: 500, body: errorBody(500) }), undocumentedInput: true })).toHaveLength(1)
    expect(judge(noServerError, { exchange: exchangeOf({ status: 503 }) })).toHaveLength(1)
    expect(judge(noServerError, { exchange: exchangeOf({ status: 400, body: errorBody(400) }) })).toEqual([])
  })
})

describe('response.status-documented', () => {
  it('fails a status the operation does not list and names the documented ones', () => {
    const [message] = judge(statusDocumented, { exchange: exchangeOf({ operationId: 'createPet', status: 200, body: {} }) }) as string[]
    expect(message).toBe('POST /pets answered 200; documented for createPet: 201, 400, 401')
    expect(judge(statusDocumented, { exchange: exchangeOf({ operationId: 'getPet', status: 404, body: errorBody(404) }) })).toEqual([])
  })
  it('leaves the status open outside the documented input', () => {
    expect(judge(statusDocumented, { exchange: exchangeOf({ status: 422 }), undocumentedInput: true })).toBe('n/a')
  })
})

describe('response.content-type', () => {
  it('accepts application/json with parameters and +json types', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/problem+json']) {
      expect(judge(contentTypeJson, { exchange: exchangeOf({ body: [], headers: { 'content-type': type } }) })).toEqual([])
    }
  })
  it('fails text/plain and a missing Content-Type on a documented answer', () => {
    expect(judge(contentTypeJson, { exchange: exchangeOf({ body: [], headers: { 'content-type': 'text/plain' } }) })).toHaveLength(1)
    const missing = exchangeOf({ operationId: 'getPet', status: 404, raw: '' })
    delete missing.response!.headers['content-type']
    expect(judge(contentTypeJson, { exchange: missing })).toEqual(['GET /pets/1 answered 404 with no Content-Type; documented: application/json'])
  })
})

describe('response.schema', () => {
  it('passes documented bodies, extra fields included, and int64 extremes', () => {
    const pet = { id: 9223372036854775807n, name: '', categoryId: -9223372036854775808n, status: 'sold', createdAt: 'x' }
    expect(judge(responseSchema, { exchange: exchangeOf({ body: [pet] }) })).toEqual([])
    expect(judge(responseSchema, { exchange: exchangeOf({ operationId: 'createPet', status: 201, body: pet }) })).toEqual([])
  })
  it('fails a wrapped list, a Pet without id, an empty 404 and a body that is not JSON', () => {
    expect(judge(responseSchema, { exchange: exchangeOf({ body: { pets: [] } }) })).toHaveLength(1)
    const [noId] = judge(responseSchema, { exchange: exchangeOf({ operationId: 'createPet', status: 201, body: { name: 'a', categoryId: 1 } }) }) as string[]
    expect(noId).toContain("must have required property 'id'")
    expect(judge(responseSchema, { exchange: exchangeOf({ operationId: 'getPet', status: 404, raw: '' }) })).toEqual([
      'GET /pets/1 answered 404 with an empty body; documented: Error',
    ])
    expect(judge(responseSchema, { exchange: exchangeOf({ raw: '[{"id":1,' }) })[0]).toContain('not JSON')
  })
  it('fails an integer beyond int64, which a double cannot tell from the largest int64', () => {
    const body = { id: 1, name: 'a', categoryId: 9223372036854775808n }
    expect(judge(responseSchema, { exchange: exchangeOf({ operationId: 'createPet', status: 201, body }) })).toHaveLength(1)
  })
  it('does not judge statuses the spec gives no body for', () => {
    expect(judge(responseSchema, { exchange: exchangeOf({ status: 418, body: 'teapot' }) })).toBe('n/a')
  })
})

describe('error.status-echoed', () => {
  it('fails an Error whose status differs from the HTTP status', () => {
    expect(judge(errorStatusEchoed, { exchange: exchangeOf({ operationId: 'getPet', status: 404, body: errorBody(400) }) })).toEqual([
      'GET /pets/1 answered 404 with Error.status 400; documented: the HTTP status',
    ])
    expect(judge(errorStatusEchoed, { exchange: exchangeOf({ status: 401, body: errorBody(401) }) })).toEqual([])
  })
})

describe('error.no-stack-trace', () => {
  it('finds Node, Python and Java traces, not ordinary messages', () => {
    const node = { code: 'x', message: 'TypeError: x\n    at handler (/app/server.js:12:5)', status: 500 }
    expect(judge(noStackTrace, { exchange: exchangeOf({ status: 500, body: node }) })).toHaveLength(1)
    expect(judge(noStackTrace, { exchange: exchangeOf({ status: 500, raw: 'Traceback (most recent call last):\n  File "a.py"' }) })).toHaveLength(1)
    expect(judge(noStackTrace, { exchange: exchangeOf({ status: 500, raw: 'at com.acme.Pets.get(Pets.java:42)' }) })).toHaveLength(1)
    expect(judge(noStackTrace, { exchange: exchangeOf({ status: 400, body: errorBody(400, 'limit must be at most 100 (got 1:2)') }) })).toEqual([])
  })
})
