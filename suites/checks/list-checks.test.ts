import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { loadSpec, spec, SPEC_PATH, type JsonValue } from '../../spec/index.js'
import { judgeExchange } from './applies.js'
import { bySpec } from './check.js'
import { findsCreated } from './finds-created.js'
import { limitDefault } from './limit-default.js'
import { limitFills } from './limit-fills.js'
import { limitMax } from './limit-max.js'
import { statusFilter } from './status-filter.js'
import { errorBody, exchangeOf, judge } from './test-support.js'
import { unfilteredListsAll } from './unfiltered-lists-all.js'
import { uniqueInPage } from './unique-in-page.js'
import { validQueryAccepted } from './valid-query-accepted.js'

const s = spec()
const LIMIT = s.parameter('listPets', 'limit')
const DEFAULT = Number(LIMIT.default)
const pets = (n: number, status = 'available'): JsonValue[] =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `p${i}`, categoryId: 1, status }))
const page = (body: JsonValue, path = '/pets') => exchangeOf({ body, path })

describe(limitMax.id, () => {
  it('wants at most `limit` pets; a page short of it is not judged (nothing was cut)', () => {
    expect(judge(limitMax, page(pets(5)), { limit: 5 })).toEqual([])
    expect(judge(limitMax, page(pets(4)), { limit: 5 })).toBe(
      'not judged: GET /pets returned 4 pets, fewer than limit: nothing beyond it to cut',
    )
    expect(judge(limitMax, page(pets(6), '/pets?limit=5'), { limit: 5 })).toEqual([
      'GET /pets?limit=5 returned 6 pets; documented: at most 5',
    ])
  })
  it('does not judge without a documented limit, outside the documented input, or a body that is not a list', () => {
    expect(judge(limitMax, page(pets(9)))).toBe('n/a')
    expect(judge(limitMax, page(pets(9)), { limit: 5, outOfRange: ['status'] })).toBe('n/a')
    expect(judge(limitMax, page({ pets: pets(9) }), { limit: 5 })).toBe('n/a')
    expect(judge(limitMax, exchangeOf({ status: 401, body: errorBody(401) }), { limit: 5 })).toBe('n/a')
  })
})

describe(limitFills.id, () => {
  it('wants min(limit, pets held) pets', () => {
    expect(judge(limitFills, page(pets(4)), { limit: 5, atLeast: 100 })).toEqual([
      'GET /pets returned 4 pets while the target holds at least 100; documented: 5 (min of limit and pets held)',
    ])
    expect(judge(limitFills, page(pets(3)), { limit: 5, atLeast: 3 })).toEqual([])
    expect(judge(limitFills, page([]), { limit: 5, atLeast: 0 })).toBe(
      'not judged: GET /pets was sent before the run knew of any pet',
    )
  })
  it('does not judge without both facts', () => {
    expect(judge(limitFills, page(pets(1)), { limit: 5 })).toBe('n/a')
    expect(judge(limitFills, page(pets(1)), { atLeast: 5 })).toBe('n/a')
  })
})

describe(limitDefault.id, () => {
  it('wants at most the default, and the default when more are held', () => {
    expect(judge(limitDefault, page(pets(DEFAULT)), { atLeast: 100 })).toEqual([])
    expect(judge(limitDefault, page(pets(DEFAULT + 30)))).toEqual([
      `GET /pets without limit returned ${DEFAULT + 30} pets; documented default: ${DEFAULT}`,
    ])
    expect(judge(limitDefault, page(pets(DEFAULT - 1)), { atLeast: 100 })).toHaveLength(1)
    expect(judge(limitDefault, page(pets(7)), { atLeast: 7 })).toEqual([])
    expect(judge(limitDefault, page([]), { atLeast: 0 })).toMatch(/^not judged: /)
  })
  it('does not judge a request that sent a limit, documented or not', () => {
    expect(judge(limitDefault, page(pets(DEFAULT + 30)), { limit: 50 })).toBe('n/a')
    expect(judge(limitDefault, page(pets(DEFAULT + 30)), { outOfRange: ['limit'] })).toBe('n/a')
  })
  it("names no number in its title: the default is the judged spec's (a revision may change it), shown by the basis", () => {
    expect(limitDefault.title).toBe("Without limit, listPets returns the default page (limit's documented default)")
  })
})

describe(statusFilter.id, () => {
  it('fails a pet of another status, or without one', () => {
    expect(judge(statusFilter, page(pets(3, 'sold')), { status: 'sold' })).toEqual([])
    expect(
      judge(statusFilter, page([...pets(2, 'sold'), { id: 9, name: 'x', categoryId: 1 }]), { status: 'sold' }),
    ).toEqual([
      'GET /pets returned 1 pets of another status, e.g. {"id":9,"name":"x","categoryId":1}; documented: only status "sold"',
    ])
  })
  it('does not judge without a documented status, nor an empty page (it shows no filtering)', () => {
    expect(judge(statusFilter, page([]), { status: 'sold' })).toBe(
      'not judged: GET /pets listed no pet: nothing shows how it filters',
    )
    expect(judge(statusFilter, page(pets(3, 'sold')))).toBe('n/a')
    expect(judge(statusFilter, page(pets(3, 'sold')), { status: 'pending', outOfRange: ['limit'] })).toBe('n/a')
  })
})

describe(findsCreated.id, () => {
  const mine = [{ id: 1000, name: 'mine', categoryId: 1, status: 'sold' }]
  const max = Number(LIMIT.maximum)
  it('wants created pets in a page with room, and as created', () => {
    expect(judge(findsCreated, page(pets(3, 'sold')), { status: 'sold', limit: max, created: mine })).toEqual([
      'GET /pets returned 3 pets (page not full) without 1 pet(s) this run created, e.g. id 1000; documented: every matching pet fits the page',
    ])
    expect(
      judge(findsCreated, page([...pets(3, 'sold'), ...mine]), { status: 'sold', limit: max, created: mine }),
    ).toEqual([])
    expect(judge(findsCreated, page([{ ...mine[0]!, name: 'other' }]), { limit: max, created: mine })).toEqual([
      'GET /pets lists pet 1000 differently from how it was created: name "other"; expected "mine"',
    ])
  })
  it('does not judge a full page that shows none of them (ordering is not described), nor a query none of them matches', () => {
    expect(judge(findsCreated, page(pets(5, 'sold')), { status: 'sold', limit: 5, created: mine })).toBe(
      'not judged: GET /pets returned a full page: it need not show them',
    )
    expect(judge(findsCreated, page(pets(2, 'pending')), { status: 'pending', limit: max, created: mine })).toBe(
      'not judged: GET /pets was sent before the run created a pet it matches',
    )
    expect(judge(findsCreated, page(pets(2)), { limit: max, created: [] })).toMatch(/^not judged: /)
  })
  it('does not judge without the created pets', () => {
    expect(judge(findsCreated, page(pets(3, 'sold')), { status: 'sold' })).toBe('n/a')
  })
})

describe(validQueryAccepted.id, () => {
  const list = (query: string, status = 200) =>
    exchangeOf({ path: `/pets${query}`, status, body: status === 200 ? [] : errorBody(status) })
  it('wants 200 for every documented query', () => {
    expect(judge(validQueryAccepted, list(`?limit=${LIMIT.maximum}&status=sold`))).toEqual([])
    expect(judge(validQueryAccepted, list(`?limit=${LIMIT.minimum}`, 400))).toEqual([
      `GET /pets?limit=${LIMIT.minimum} (a documented query) answered 400; documented: 200 Pets`,
    ])
    expect(judge(validQueryAccepted, list('', 400))).toHaveLength(1)
  })
  it('does not judge a query outside the documented range, an unknown or repeated parameter, or another credential', () => {
    for (const query of [
      `?limit=${Number(LIMIT.maximum) + 1}`,
      '?limit=0',
      '?limit=05',
      '?limit=1.0',
      '?status=SOLD',
      '?page=2',
      '?limit=1&limit=2',
    ]) {
      expect(judge(validQueryAccepted, list(query, 400))).toBe('n/a')
    }
    expect(judge(validQueryAccepted, exchangeOf({ status: 401, body: errorBody(401), credential: 'none' }))).toBe('n/a')
  })
  it("names the query parameters in its title, not their bounds (the judged spec's, shown by the basis)", () => {
    expect(bySpec(validQueryAccepted.title, spec())).toBe(
      'listPets answers 200 to every limit within its bounds and every status of the enumeration',
    )
  })
})

describe(uniqueInPage.id, () => {
  it('fails a pet listed twice', () => {
    expect(judge(uniqueInPage, page([...pets(2), ...pets(1)]))).toEqual([
      'GET /pets listed 1 pet(s) more than once, e.g. id 1; documented: an array of pets',
    ])
    expect(judge(uniqueInPage, page(pets(3)))).toEqual([])
    expect(judge(uniqueInPage, page(pets(1)))).toBe('not judged: GET /pets listed 1 pet(s): none to repeat')
  })
  it('judges listPets 200 lists only', () => {
    expect(judge(uniqueInPage, page({ pets: pets(2) }))).toBe('n/a')
    expect(judge(uniqueInPage, exchangeOf({ status: 401, body: errorBody(401) }))).toBe('n/a')
  })
})

describe(unfilteredListsAll.id, () => {
  const created = ['available', 'pending', 'sold'].map((status, i) => ({
    id: 900 + i,
    name: `c${i}`,
    categoryId: 1,
    status,
  }))
  it('wants every pet the run created on an unfiltered page with room, one of each status', () => {
    expect(
      judge(unfilteredListsAll, page([...pets(3), ...created], '/pets?limit=100'), { limit: 100, created }),
    ).toEqual([])
    expect(judge(unfilteredListsAll, page(created.slice(0, 1), '/pets?limit=100'), { limit: 100, created })).toEqual([
      'GET /pets?limit=100 returned 1 pets (page not full) without 2 pet(s) this run created, of status pending, sold (e.g. id 901); documented: without status no filter applies',
    ])
  })
  it('does not judge a full page, a page before one of each status was created, or a page size the spec leaves open', () => {
    expect(judge(unfilteredListsAll, page(pets(2), '/pets?limit=2'), { limit: 2, created })).toMatch(
      /^not judged: .*full page/,
    )
    expect(
      judge(unfilteredListsAll, page(pets(1), '/pets?limit=100'), { limit: 100, created: created.slice(0, 2) }),
    ).toMatch(/^not judged: .*before the run created a pet of status sold/)
    // A revision whose limit has no default: a page asked without a limit holds what the service chooses.
    const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'), { intAsBigInt: true })
    doc.deleteIn(['paths', '/pets', 'get', 'parameters', 0, 'schema', 'default'])
    const dir = mkdtempSync(join(tmpdir(), 'petstore-no-default-'))
    try {
      const file = join(dir, 'no-default.yaml')
      writeFileSync(file, doc.toString({ lineWidth: 0 }))
      const judgement = judgeExchange(unfilteredListsAll, page(created.slice(0, 1)), { created }, loadSpec(file))
      expect(judgement).toEqual({
        notJudged: "GET /pets named no limit and the spec documents no default: the page size is the service's choice",
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
