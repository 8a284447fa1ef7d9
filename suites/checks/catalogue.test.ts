import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { appliesTo, exchangeInput } from './applies.js'
import { exchangeCheck, operationsOn, transportCheck } from './check.js'
import {
  CHECKS,
  EXCHANGE_CHECKS,
  RUN_CHECKS,
  TRANSPORT_CHECKS,
  catalogueFor,
  checkById,
  isCheckId,
  type CheckId,
} from './index.js'
import { errorBody, exchangeOf } from './test-support.js'

const s = spec()

describe('the catalogue', () => {
  it('holds each id once, with a title, a severity and an operation of the spec', () => {
    const ids = CHECKS.map((c) => c.id)
    expect(new Set(ids).size).toBe(ids.length)
    const operations = Object.keys(s.operations)
    for (const check of catalogueFor(s)) {
      expect(check.title.length).toBeGreaterThan(5)
      expect(['fail', 'observed', 'advice']).toContain(check.severity)
      // One operation, a list of them (each once), `all` or `any`.
      const on = operationsOn(check.on.operation)
      if (typeof on === 'string') expect(['all', 'any']).toContain(on)
      else {
        expect(on.length).toBeGreaterThan(0)
        expect(new Set(on).size).toBe(on.length)
        for (const op of on) expect(operations).toContain(op)
      }
      // An id names an operation of the spec, or a property of every exchange.
      const [first] = check.id.split('.')
      expect([
        ...operations,
        'transport',
        'response',
        'error',
        'auth',
        'headers',
        'methods',
        'paths',
        'pet',
        'coverage',
      ]).toContain(first)
    }
  })
  it('splits into exchange, transport and run checks, each once', () => {
    expect([...EXCHANGE_CHECKS, ...TRANSPORT_CHECKS, ...RUN_CHECKS].map((c) => c.id).sort()).toEqual(
      CHECKS.map((c) => c.id).sort(),
    )
    expect(EXCHANGE_CHECKS.every((c) => c.scope === 'exchange')).toBe(true)
    expect(TRANSPORT_CHECKS.map((c) => c.id)).toEqual(['transport.ok'])
    expect(RUN_CHECKS.map((c) => c.id).sort()).toEqual(['coverage.documented-statuses', 'createPet.id-scheme'])
  })
  it('finds a check by its typed id; a mistyped id does not compile', () => {
    const limitMax = checkById('listPets.limit.max')
    expect(limitMax.on.needs).toEqual(['limit'])
    expect(CHECKS.every((c) => checkById(c.id) === c)).toBe(true)
    // @ts-expect-error: no such check
    const mistyped: CheckId = 'listPets.limit.maximum'
    expect(isCheckId(mistyped)).toBe(false)
    expect(isCheckId('listPets.limit.max')).toBe(true)
  })
  it('lists observed checks with a subject where their request line does not say what they observe', () => {
    for (const id of [
      'createPet.name.long',
      'createPet.unknown-field',
      'createPet.status.default',
      'listPets.ordering',
      'pet.extra-fields',
    ] as const) {
      expect(checkById(id).subject).toBeTypeOf('function')
    }
  })
})

describe('appliesTo', () => {
  const probe = (on: Parameters<typeof exchangeCheck>[0]['on']) =>
    exchangeCheck({ id: 'probe', title: 'a probe check', severity: 'observed', on, run: () => [] })
  const list = exchangeOf({ body: [] })
  const undocumented = exchangeOf({ operationId: null, method: 'PATCH', path: '/pets', status: 405 })
  it('matches the operation: one, every documented one (`all`), or every request (`any`)', () => {
    expect(appliesTo(probe({ operation: 'listPets' }), list, {}, s)).toBe(true)
    expect(appliesTo(probe({ operation: 'getPet' }), list, {}, s)).toBe(false)
    expect(appliesTo(probe({ operation: 'all' }), list, {}, s)).toBe(true)
    expect(appliesTo(probe({ operation: 'all' }), undocumented, {}, s)).toBe(false)
    expect(appliesTo(probe({ operation: 'any' }), undocumented, {}, s)).toBe(true)
  })
  it('judges answered exchanges only, except transport checks, which judge every one', () => {
    const unanswered = exchangeOf({ error: 'timeout after 5000 ms' })
    expect(appliesTo(probe({ operation: 'any' }), unanswered, {}, s)).toBe(false)
    expect(
      appliesTo(
        transportCheck({ id: 't', title: 'a transport probe', severity: 'observed', run: () => [] }),
        unanswered,
        {},
        s,
      ),
    ).toBe(true)
  })
  it('matches the statuses, the credential and the needed facts', () => {
    expect(appliesTo(probe({ operation: 'all', statuses: [200] }), list, {}, s)).toBe(true)
    expect(appliesTo(probe({ operation: 'all', statuses: [401] }), list, {}, s)).toBe(false)
    const none = exchangeOf({ status: 401, body: errorBody(401), credential: 'none' })
    const lower = exchangeOf({ body: [], credential: 'lowercase-scheme' })
    expect(appliesTo(probe({ operation: 'all', credential: 'valid' }), list, {}, s)).toBe(true)
    expect(appliesTo(probe({ operation: 'all', credential: 'valid' }), lower, {}, s)).toBe(false)
    expect(appliesTo(probe({ operation: 'all', credential: 'invalid' }), none, {}, s)).toBe(true)
    expect(appliesTo(probe({ operation: 'all', credential: 'invalid' }), lower, {}, s)).toBe(false)
    expect(appliesTo(probe({ operation: 'all', needs: ['limit', 'atLeast'] }), list, { limit: 5 }, s)).toBe(false)
    expect(appliesTo(probe({ operation: 'all', needs: ['limit', 'atLeast'] }), list, { limit: 5, atLeast: 0 }, s)).toBe(
      true,
    )
    expect(appliesTo(probe({ operation: 'all', needs: ['storedAfter'] }), list, { storedAfter: null }, s)).toBe(true)
  })
  it('reads `when` last, with the input the check is run on', () => {
    const seen: unknown[] = []
    const check = probe({ operation: 'getPet', when: (input) => (seen.push(input), true) })
    expect(appliesTo(check, list, {}, s)).toBe(false)
    expect(seen).toEqual([])
    const get = exchangeOf({ operationId: 'getPet', body: {} })
    expect(appliesTo(check, get, { unknown: true }, s)).toBe(true)
    expect(seen).toEqual([{ exchange: get, response: get.response, operationId: 'getPet', facts: { unknown: true } }])
  })
  it('hands checks on `any` no operation, even for a documented one', () => {
    expect(exchangeInput(probe({ operation: 'any' }), list, {}).operationId).toBeUndefined()
    expect(exchangeInput(probe({ operation: 'all' }), list, {}).operationId).toBe('listPets')
  })
})
