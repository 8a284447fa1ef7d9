import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { errorBody, exchangeOf } from '../test-support/exchanges.js'
import { acceptsValid } from './accepts-valid.js'
import type { Check, CheckInput } from './check.js'
import { echoesNewPet } from './echo.js'
import { idsUnique } from './ids-unique.js'
import { invalidStoresNothing } from './invalid-stores-nothing.js'
import { rejectsInvalid } from './rejects-invalid.js'
import { returnsCreated } from './returns-created.js'
import { unknown404 } from './unknown-404.js'

const s = spec()
const judge = (check: Check, input: CheckInput) => (check.applies && !check.applies(input, s) ? 'n/a' : check.run(input, s))
const created = (body: object) => exchangeOf({ operationId: 'createPet', status: 201, body: body as never })

describe('createPet.accepts-valid', () => {
  it('wants 201; a 400 counts as a size limit only for long names', () => {
    const sent = { name: 'Rex', categoryId: 1n }
    expect(judge(acceptsValid, { exchange: created({ id: 1, ...sent }), sent })).toEqual([])
    expect(judge(acceptsValid, { exchange: exchangeOf({ operationId: 'createPet', status: 200, body: {} }), sent })).toHaveLength(1)
    expect(judge(acceptsValid, { exchange: exchangeOf({ operationId: 'createPet', status: 400, body: errorBody(400) }), sent })).toHaveLength(1)
    const long = { name: 'x'.repeat(65), categoryId: 1n }
    expect(judge(acceptsValid, { exchange: exchangeOf({ operationId: 'createPet', status: 400, body: errorBody(400) }), sent: long })).toEqual([])
    // 20 code points, 40 UTF-16 units, 80 UTF-8 bytes: a limit counted in bytes is excused.
    const astral = { name: '𐀀'.repeat(20), categoryId: 1n }
    expect(judge(acceptsValid, { exchange: exchangeOf({ operationId: 'createPet', status: 400, body: errorBody(400) }), sent: astral })).toEqual([])
  })
})

describe('createPet.echo', () => {
  const sent = { name: 'Big', categoryId: 9223372036854775807n, status: 'pending' }
  it('passes an exact echo with extra fields', () => {
    expect(judge(echoesNewPet, { exchange: created({ id: 5, ...sent, createdAt: 'now' }), sent })).toEqual([])
  })
  it('fails a categoryId that lost its last digits to a double', () => {
    const [message] = judge(echoesNewPet, { exchange: created({ id: 5, ...sent, categoryId: 9223372036854775808n }), sent }) as string[]
    expect(message).toBe('POST /pets created a Pet that differs from what was sent: categoryId 9223372036854775808; expected 9223372036854775807')
  })
  it('fails a dropped status and a truncated name', () => {
    expect(judge(echoesNewPet, { exchange: created({ id: 5, name: 'Big', categoryId: sent.categoryId }), sent })).toHaveLength(1)
    expect(judge(echoesNewPet, { exchange: created({ id: 5, ...sent, name: 'Bi' }), sent })).toHaveLength(1)
  })
  it('leaves the status of a pet sent without one to the target', () => {
    const bare = { name: 'Rex', categoryId: 1n }
    expect(judge(echoesNewPet, { exchange: created({ id: 1, ...bare, status: 'available' }), sent: bare })).toEqual([])
    expect(judge(echoesNewPet, { exchange: created({ id: 1, ...bare }), sent: bare })).toEqual([])
  })
})

describe('createPet.rejects-invalid and invalid-stores-nothing', () => {
  it('wants 400 for an invalid body', () => {
    const exchange = exchangeOf({ operationId: 'createPet', status: 201, body: { id: 1 }, requestBody: '{"name":"Rex","categoryId":1,"status":"lost"}' })
    expect(judge(rejectsInvalid, { exchange })).toEqual([
      'POST /pets with the invalid body {"name":"Rex","categoryId":1,"status":"lost"} answered 201; documented: 400 Error',
    ])
    expect(judge(rejectsInvalid, { exchange: exchangeOf({ operationId: 'createPet', status: 400, body: errorBody(400) }) })).toEqual([])
  })
  it('fails only when a stored pet was found', () => {
    const exchange = exchangeOf({ operationId: 'createPet', status: 400, body: errorBody(400), requestBody: '{}' })
    expect(judge(invalidStoresNothing, { exchange })).toEqual([])
    expect(judge(invalidStoresNothing, { exchange, found: { id: 9, name: 'pcs-x-bad-1-Rex', categoryId: 1 } })).toHaveLength(1)
  })
})

describe('createPet.ids-unique', () => {
  it('fails an id already given, compared int64-exact', () => {
    const exchange = created({ id: 9007199254740993n, name: 'a', categoryId: 1 })
    expect(judge(idsUnique, { exchange, takenIds: new Set(['9007199254740993']) })).toHaveLength(1)
    expect(judge(idsUnique, { exchange, takenIds: new Set(['9007199254740992']) })).toEqual([])
  })
})

describe('getPet.returns-created and getPet.unknown-404', () => {
  const pet = { id: 7, name: 'Rex', categoryId: 1, status: 'sold' }
  it('wants the pet as created', () => {
    expect(judge(returnsCreated, { exchange: exchangeOf({ operationId: 'getPet', body: { ...pet, extra: true } }), expected: pet })).toEqual([])
    expect(judge(returnsCreated, { exchange: exchangeOf({ operationId: 'getPet', body: { ...pet, id: 8 } }), expected: pet })).toHaveLength(1)
    expect(judge(returnsCreated, { exchange: exchangeOf({ operationId: 'getPet', status: 404, body: errorBody(404) }), expected: pet })).toHaveLength(1)
  })
  it('wants 404 for an unknown id', () => {
    expect(judge(unknown404, { exchange: exchangeOf({ operationId: 'getPet', status: 404, body: errorBody(404) }) })).toEqual([])
    expect(judge(unknown404, { exchange: exchangeOf({ operationId: 'getPet', status: 200, body: null }) })).toHaveLength(1)
  })
})
