import { describe, expect, it } from 'vitest'
import { spec, type JsonValue } from '../../spec/index.js'
import { subjectOf } from './applies.js'
import { extraFields } from './extra-fields.js'
import { idScheme } from './id-scheme.js'
import { limitOutOfRange } from './limit-out-of-range.js'
import { longName } from './long-name.js'
import { ordering } from './ordering.js'
import { statusDefault } from './status-default.js'
import { statusOutOfRange } from './status-out-of-range.js'
import { errorBody, exchangeOf, judge, judgeRun } from './test-support.js'
import { unknownField } from './unknown-field.js'

const s = spec()
const create = (status: number, body: JsonValue, credential: 'key' | 'none' = 'key') =>
  exchangeOf({ operationId: 'createPet', status, body, credential })

describe('observed checks', () => {
  it('are all observed: they record, never fail', () => {
    for (const check of [
      extraFields,
      idScheme,
      limitOutOfRange,
      longName,
      ordering,
      statusDefault,
      statusOutOfRange,
      unknownField,
    ]) {
      expect(check.severity).toBe('observed')
    }
  })
})

describe(statusDefault.id, () => {
  const sent = { name: 'Rex', categoryId: 1 }
  it('records the status given to a pet created without one', () => {
    const created = create(201, { id: 1, ...sent, status: 'available' })
    expect(judge(statusDefault, created, { sent })).toEqual(['status "available"'])
    expect(judge(statusDefault, create(201, { id: 1, ...sent }), { sent })).toEqual(['no status'])
    expect(subjectOf(statusDefault, created, { sent }, s)).toBe('POST /pets without status')
  })
  it('does not judge a pet sent with a status, a refusal, or a body that is no object', () => {
    expect(
      judge(statusDefault, create(201, { id: 1, ...sent, status: 'sold' }), { sent: { ...sent, status: 'sold' } }),
    ).toBe('n/a')
    expect(judge(statusDefault, create(400, errorBody(400)), { sent })).toBe('n/a')
    expect(judge(statusDefault, create(201, [1]), { sent })).toBe('n/a')
    expect(judge(statusDefault, create(201, { id: 1, ...sent }))).toBe('n/a')
  })
})

describe(idScheme.id, () => {
  it('records how ids were assigned, int64-exact', () => {
    expect(judgeRun(idScheme, { idsInOrder: [2n ** 60n, 2n ** 60n + 1n, 2n ** 60n + 2n].map(String) })).toEqual([
      'ascending integers, step 1, beyond 2^53 (e.g. 1152921504606846976, 1152921504606846977, 1152921504606846978)',
    ])
    expect(judgeRun(idScheme, { idsInOrder: ['9', '-3', '5'] })).toEqual([
      'not monotonic integers, some negative (e.g. 9, -3, 5)',
    ])
    expect(idScheme.subject).toBe('ids of the pets this run created, in order')
  })
  it('needs two ids at least', () => {
    expect(judgeRun(idScheme, { idsInOrder: ['1'] })).toBe('n/a')
  })
})

describe(longName.id, () => {
  const sent = { name: 'long name '.repeat(10), categoryId: 7 }
  it('records the answer to a name beyond the size every target must accept', () => {
    const refused = create(400, errorBody(400, 'name_too_long'))
    expect(judge(longName, refused, { sent })).toEqual(['name of 100 code points: 400 Error (code "name_too_long")'])
    expect(subjectOf(longName, refused, { sent }, s)).toBe('POST /pets with a name of 100 UTF-8 bytes')
    expect(judge(longName, create(201, { id: 3, ...sent }), { sent })).toEqual([
      'name of 100 code points: 201 Pet (id 3)',
    ])
  })
  it('does not judge short names or requests without the valid key', () => {
    expect(judge(longName, create(201, { id: 3 }), { sent: { name: 'x'.repeat(64), categoryId: 7 } })).toBe('n/a')
    expect(judge(longName, create(401, errorBody(401), 'none'), { sent })).toBe('n/a')
  })
})

describe(unknownField.id, () => {
  const sent = { name: 'Rex', categoryId: 8, nickname: 'Rexy' }
  it('records whether an undescribed field is accepted and echoed, naming the field', () => {
    const echoed = create(201, { id: 4, ...sent })
    expect(judge(unknownField, echoed, { sent })).toEqual(['201 Pet (id 4) (echoed back)'])
    expect(subjectOf(unknownField, echoed, { sent }, s)).toBe('POST /pets with an undescribed field "nickname"')
    expect(judge(unknownField, create(201, { id: 4, name: 'Rex', categoryId: 8 }), { sent })).toEqual([
      '201 Pet (id 4)',
    ])
    expect(judge(unknownField, create(400, errorBody(400, 'unknown_field')), { sent })).toEqual([
      '400 Error (code "unknown_field")',
    ])
    expect(subjectOf(unknownField, echoed, { sent: { ...sent, id: 1 } }, s)).toBe(
      'POST /pets with undescribed fields "nickname", "id"',
    )
  })
  it('does not judge a NewPet with only described fields, nor a request without the valid key', () => {
    expect(judge(unknownField, create(201, { id: 4 }), { sent: { name: 'Rex', categoryId: 8, status: 'sold' } })).toBe(
      'n/a',
    )
    expect(judge(unknownField, create(401, errorBody(401), 'none'), { sent })).toBe('n/a')
  })
})

describe(extraFields.id, () => {
  it('records fields of a Pet beyond the documented ones, on any operation', () => {
    const pet = { id: 1, name: 'a', categoryId: 1, createdAt: 'now', owner: 'x' }
    expect(judge(extraFields, exchangeOf({ operationId: 'getPet', body: pet }))).toEqual([
      'extra fields: createdAt, owner',
    ])
    expect(
      judge(
        extraFields,
        exchangeOf({
          operationId: 'createPet',
          status: 201,
          body: { id: 1, name: 'a', categoryId: 1, status: 'sold' },
        }),
      ),
    ).toEqual([])
    expect(subjectOf(extraFields, exchangeOf({ operationId: 'getPet', body: pet }), {}, s)).toBe('Pet bodies')
  })
  it('judges Pet bodies only', () => {
    expect(judge(extraFields, exchangeOf({ operationId: 'getPet', status: 404, body: errorBody(404) }))).toBe('n/a')
    expect(judge(extraFields, exchangeOf({ body: [{ id: 1, extra: 1 }] }))).toBe('n/a')
  })
})

describe(ordering.id, () => {
  it('records the order of the largest unfiltered page', () => {
    const full = { limit: 100 }
    const descending = exchangeOf({ path: '/pets?limit=100', body: [{ id: 3 }, { id: 2 }, { id: 1 }] })
    expect(judge(ordering, descending, full)).toEqual(['descending by id'])
    expect(subjectOf(ordering, descending, full, s)).toBe('order of GET /pets?limit=100')
    expect(
      judge(ordering, exchangeOf({ path: '/pets?limit=100', body: [{ id: 1 }, { id: 3 }, { id: 2 }] }), full),
    ).toEqual(['not ordered by id (first ids 1, 3, 2)'])
    expect(judge(ordering, exchangeOf({ path: '/pets?limit=3', body: [{ id: 3 }, { id: 2 }] }), { limit: 3 })).toBe(
      'n/a',
    )
    expect(
      judge(ordering, exchangeOf({ path: '/pets?limit=100&status=sold', body: [{ id: 3 }, { id: 2 }] }), {
        ...full,
        status: 'sold',
      }),
    ).toBe('n/a')
  })
  it('needs two pets at least', () => {
    expect(judge(ordering, exchangeOf({ path: '/pets?limit=100', body: [{ id: 1 }] }), { limit: 100 })).toBe('n/a')
  })
})

describe(limitOutOfRange.id, () => {
  const max = Number(s.parameter('listPets', 'limit').maximum)
  it('describes what the target chose, in a few words', () => {
    const clamped = exchangeOf({
      body: Array.from({ length: max }, (_, i) => ({ id: i, name: 'a', categoryId: 1 })),
      path: `/pets?limit=${max * 10}`,
    })
    expect(judge(limitOutOfRange, clamped, { outOfRange: ['limit'] })).toEqual([
      `200, ${max} pets (clamped to the maximum?)`,
    ])
    const rejected = exchangeOf({ status: 400, body: { code: 'invalid_limit', message: 'm', status: 400 } })
    expect(judge(limitOutOfRange, rejected, { outOfRange: ['limit'] })).toEqual(['400 Error (code "invalid_limit")'])
  })
  it('judges only requests whose limit is outside its range', () => {
    expect(judge(limitOutOfRange, exchangeOf({ body: [] }))).toBe('n/a')
    expect(judge(limitOutOfRange, exchangeOf({ body: [] }), { outOfRange: ['status'] })).toBe('n/a')
  })
})

describe(statusOutOfRange.id, () => {
  it('describes what the target chose, in a few words', () => {
    expect(judge(statusOutOfRange, exchangeOf({ body: [] }), { outOfRange: ['status'] })).toEqual(['200, 0 pets'])
  })
  it('judges only requests whose status is outside the enumeration', () => {
    expect(judge(statusOutOfRange, exchangeOf({ body: [] }), { outOfRange: ['limit'] })).toBe('n/a')
    expect(judge(statusOutOfRange, exchangeOf({ body: [] }), { status: 'sold' })).toBe('n/a')
  })
})
