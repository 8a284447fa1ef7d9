import { describe, expect, it } from 'vitest'
import { Spec, spec, stringifyJson, type JsonValue } from '../../spec/index.js'
import { judgeExchange } from './applies.js'
import { acceptsValid } from './accepts-valid.js'
import { assignsId } from './assigns-id.js'
import { authStoresNothing } from './auth-stores-nothing.js'
import { echoesNewPet } from './echo.js'
import { idsUnique } from './ids-unique.js'
import { invalidStoresNothing } from './invalid-stores-nothing.js'
import { rejectsInvalid } from './rejects-invalid.js'
import { errorBody, exchangeOf, judge } from './test-support.js'

const create = (status: number, body: JsonValue, parts: Parameters<typeof exchangeOf>[0] = {}) =>
  exchangeOf({ operationId: 'createPet', status, body, ...parts })
const created = (body: JsonValue) => create(201, body)
const refused = (status = 400) => create(status, errorBody(status))

describe(acceptsValid.id, () => {
  const sent = { name: 'Rex', categoryId: 1n }
  it('wants 201 for a valid NewPet', () => {
    expect(judge(acceptsValid, created({ id: 1, ...sent }), { sent })).toEqual([])
    expect(judge(acceptsValid, create(200, {}), { sent })).toEqual([
      'POST /pets with the valid NewPet {"name":"Rex","categoryId":1} answered 200; documented: 201 Pet',
    ])
    expect(judge(acceptsValid, refused(), { sent })).toHaveLength(1)
  })
  it('excuses a 400 as a size limit only for names over the floor, counted in UTF-8 bytes', () => {
    expect(judge(acceptsValid, refused(), { sent: { name: 'x'.repeat(65), categoryId: 1n } })).toMatch(/^not judged: /)
    // 20 code points, 40 UTF-16 units, 80 UTF-8 bytes: a limit counted in bytes is excused.
    expect(judge(acceptsValid, refused(), { sent: { name: '𐀀'.repeat(20), categoryId: 1n } })).toMatch(/^not judged: /)
  })
  it('does not judge without a valid NewPet stated, without the valid key, or with an undescribed field', () => {
    expect(judge(acceptsValid, refused())).toBe('n/a')
    expect(judge(acceptsValid, refused(401), { sent })).toHaveLength(1) // with the valid key: judged
    expect(judge(acceptsValid, create(401, errorBody(401), { credential: 'none' }), { sent })).toBe('n/a')
    expect(judge(acceptsValid, create(401, errorBody(401), { credential: 'lowercase-scheme' }), { sent })).toBe('n/a')
    expect(judge(acceptsValid, refused(), { sent: { ...sent, nickname: 'Rexy' } })).toBe('n/a')
  })
})

describe(echoesNewPet.id, () => {
  const sent = { name: 'Big', categoryId: 9223372036854775807n, status: 'pending' }
  it('passes an exact echo with extra fields', () => {
    expect(judge(echoesNewPet, created({ id: 5, ...sent, createdAt: 'now' }), { sent })).toEqual([])
  })
  it('fails a categoryId that lost its last digits to a double', () => {
    expect(judge(echoesNewPet, created({ id: 5, ...sent, categoryId: 9223372036854775808n }), { sent })).toEqual([
      'POST /pets created a Pet that differs from what was sent: categoryId 9223372036854775808; expected 9223372036854775807',
    ])
  })
  it('fails a dropped status and a truncated name', () => {
    expect(judge(echoesNewPet, created({ id: 5, name: 'Big', categoryId: sent.categoryId }), { sent })).toHaveLength(1)
    expect(judge(echoesNewPet, created({ id: 5, ...sent, name: 'Bi' }), { sent })).toHaveLength(1)
  })
  it('leaves the status of a pet sent without one to the target', () => {
    const bare = { name: 'Rex', categoryId: 1n }
    expect(judge(echoesNewPet, created({ id: 1, ...bare, status: 'available' }), { sent: bare })).toEqual([])
    expect(judge(echoesNewPet, created({ id: 1, ...bare }), { sent: bare })).toEqual([])
  })
  it('leaves out a write-only property, which no answer should show', () => {
    const doc = structuredClone(spec().doc)
    doc.components.schemas.NewPet.properties.secret = { type: 'string', writeOnly: true }
    const revised = new Spec(doc)
    const withSecret = { ...sent, secret: 's3' }
    expect(judgeExchange(echoesNewPet, created({ id: 5, ...sent }), { sent: withSecret }, revised)).toEqual([])
    expect(
      judgeExchange(echoesNewPet, created({ id: 5, ...sent, name: 'B' }), { sent: withSecret }, revised),
    ).toHaveLength(1)
    // Under the bundled spec, where it is no declared property at all, it is as undeclared as before.
    expect(judge(echoesNewPet, created({ id: 5, ...sent }), { sent: withSecret })).toEqual([])
  })
  it('judges 201s with a Pet-like body only', () => {
    expect(judge(echoesNewPet, refused(), { sent })).toBe('n/a')
    expect(judge(echoesNewPet, created([sent]), { sent })).toBe('n/a')
    expect(judge(echoesNewPet, created({ id: 5, ...sent, name: 'Bi' }))).toBe('n/a')
  })
})

describe(rejectsInvalid.id, () => {
  const requestBody = '{"name":"Rex","categoryId":1,"status":"lost"}'
  it('wants 400 for an invalid body', () => {
    expect(
      judge(rejectsInvalid, create(201, { id: 1 }, { requestBody }), { invalid: 'status outside the enumeration' }),
    ).toEqual([
      'POST /pets with the invalid body {"name":"Rex","categoryId":1,"status":"lost"} answered 201; documented: 400 Error (invalid: status outside the enumeration)',
    ])
    expect(judge(rejectsInvalid, create(201, { id: 1 }), { invalid: 'no body' })).toEqual([
      'POST /pets with the invalid no body answered 201; documented: 400 Error (invalid: no body)',
    ])
    expect(judge(rejectsInvalid, refused(), { invalid: 'status outside the enumeration' })).toEqual([])
  })
  it('does not judge a body not stated invalid, nor one sent without the valid key (401 comes first)', () => {
    expect(judge(rejectsInvalid, create(201, { id: 1 }, { requestBody }))).toBe('n/a')
    expect(
      judge(rejectsInvalid, create(401, errorBody(401), { requestBody, credential: 'none' }), { invalid: 'x' }),
    ).toBe('n/a')
  })
})

describe(invalidStoresNothing.id, () => {
  const stored = { id: 9, name: 'pcs-x-bad-1-Rex', categoryId: 1 }
  it('fails only when a stored pet was found', () => {
    const exchange = create(400, errorBody(400), { requestBody: '{}' })
    expect(judge(invalidStoresNothing, exchange, { invalid: 'no name', storedAfter: null })).toEqual([])
    expect(judge(invalidStoresNothing, exchange, { invalid: 'no name', storedAfter: stored })).toEqual([
      'createPet with the invalid body {} answered 400, yet a pet was stored: {"id":9,"name":"pcs-x-bad-1-Rex","categoryId":1}',
    ])
  })
  it('does not judge before anyone looked, a valid body, or a request without the valid key', () => {
    const exchange = create(400, errorBody(400), { requestBody: '{}' })
    expect(judge(invalidStoresNothing, exchange, { invalid: 'no name' })).toBe('n/a')
    expect(judge(invalidStoresNothing, exchange, { storedAfter: stored })).toBe('n/a')
    expect(
      judge(invalidStoresNothing, create(401, errorBody(401), { credential: 'none' }), {
        invalid: 'no name',
        storedAfter: stored,
      }),
    ).toBe('n/a')
  })
})

describe(authStoresNothing.id, () => {
  const stored = { id: 9, name: 'pcs-x-unauth-0-Rex', categoryId: 1 }
  it('fails only when the refused pet was found stored', () => {
    const exchange = create(401, errorBody(401), { credential: 'wrong' })
    expect(judge(authStoresNothing, exchange, { storedAfter: null })).toEqual([])
    expect(judge(authStoresNothing, exchange, { storedAfter: stored })).toEqual([
      'createPet without a valid key answered 401, yet the pet was stored: {"id":9,"name":"pcs-x-unauth-0-Rex","categoryId":1}',
    ])
  })
  it('does not judge requests with the valid key or a scheme in another case, nor before anyone looked', () => {
    expect(judge(authStoresNothing, created(stored), { storedAfter: stored })).toBe('n/a')
    expect(
      judge(authStoresNothing, create(201, stored, { credential: 'uppercase-scheme' }), { storedAfter: stored }),
    ).toBe('n/a')
    expect(judge(authStoresNothing, create(401, errorBody(401), { credential: 'none' }))).toBe('n/a')
  })
})

describe(idsUnique.id, () => {
  const exchange = created({ id: 9007199254740993n, name: 'a', categoryId: 1 })
  it('fails an id already given, compared int64-exact', () => {
    expect(judge(idsUnique, exchange, { takenIds: new Set(['9007199254740993']) })).toEqual([
      'POST /pets answered 201 with id 9007199254740993, already given to another pet of this run',
    ])
    expect(judge(idsUnique, exchange, { takenIds: new Set(['9007199254740992']) })).toEqual([])
  })
  it('does not judge without the ids taken, nor an answer without an id', () => {
    expect(judge(idsUnique, exchange)).toBe('n/a')
    expect(judge(idsUnique, created({ name: 'a', categoryId: 1 }), { takenIds: new Set() })).toBe('n/a')
  })
})

describe(assignsId.id, () => {
  const sent = { name: 'pcs-x-with-id', categoryId: 13n, id: 7777777n }
  const facts = { clientId: '7777777', sent }
  const requestBody = stringifyJson(sent)
  const getPet = (body: JsonValue) => exchangeOf({ operationId: 'getPet', path: '/pets/7777777', body })
  it('fails a 201 that answers the created pet under the id the client sent', () => {
    expect(judge(assignsId, create(201, { ...sent, id: 7777777 }, { requestBody }), facts)).toEqual([
      'POST /pets answered 201 with id 7777777, the id the body carried: the client chose the id; documented: the service assigns it',
    ])
    expect(judge(assignsId, create(201, { ...sent, id: 42 }, { requestBody }), facts)).toEqual([])
  })
  it('fails a later getPet that returns the created pet under the id the client sent', () => {
    expect(judge(assignsId, getPet({ ...sent, id: 7777777 }), facts)).toEqual([
      'GET /pets/7777777 answered 200 with the pet created by a createPet whose body carried that id: the client chose the id; documented: the service assigns it',
    ])
  })
  it('leaves another pet under that id to the getPet checks (a mock that answers every id with an example)', () => {
    expect(judge(assignsId, getPet({ id: 1, name: 'Rex', categoryId: 1 }), facts)).toEqual([])
    expect(judge(assignsId, getPet({ id: 7777777, name: 'Rex', categoryId: 1 }), facts)).toEqual([])
  })
  it('passes a refused create and a 404 for that id: the id was not used', () => {
    expect(judge(assignsId, create(400, errorBody(400), { requestBody }), facts)).toEqual([])
    expect(judge(assignsId, exchangeOf({ operationId: 'getPet', status: 404, body: errorBody(404) }), facts)).toEqual(
      [],
    )
  })
  it('judges only the create and the getPet of an id the client wrote', () => {
    expect(judge(assignsId, getPet({ ...sent, id: 7777777 }))).toBe('n/a')
    expect(judge(assignsId, exchangeOf({ body: [{ ...sent, id: 7777777 }] }), facts)).toBe('n/a')
  })
})
