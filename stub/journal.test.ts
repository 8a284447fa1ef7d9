import { describe, expect, it } from 'vitest'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { AppRequest, AppResponse } from './app.js'
import { BODY_KEPT, Journal, JOURNAL_DEFAULTS, TARGET_KEPT } from './journal.js'

const request = (url: string, headers: AppRequest['headers'] = {}): AppRequest => ({ method: 'POST', url, headers })
const answered = (status: number, code?: string): AppResponse => ({ status, headers: [], body: '', code })

describe('Journal', () => {
  it('keeps the newest entries within its entry bound, counting the dropped ones', () => {
    const journal = new Journal({ entries: 3 })
    for (let i = 1; i <= 5; i++) journal.record(request(`/v1/pets/${i}`), answered(200), 1)
    expect(journal.read().map((entry) => entry.path)).toEqual(['/v1/pets/5', '/v1/pets/4', '/v1/pets/3'])
    expect(journal.stats).toMatchObject({ entries: 3, dropped: 2 })
  })

  it('keeps within its byte bound, however large the requests', () => {
    const journal = new Journal({ entries: 1000, bytes: 10_000 })
    for (let i = 0; i < 100; i++)
      journal.record(request('/v1/pets?x=' + 'y'.repeat(5000)), answered(201), 1, 'z'.repeat(5000))
    expect(journal.stats.bytes).toBeLessThanOrEqual(10_000)
    expect(journal.stats.entries).toBeGreaterThan(1)
    const [entry] = journal.read()
    expect(entry!.query.length + '/v1/pets?'.length).toBe(TARGET_KEPT)
    expect(entry).toMatchObject({ bodyBytes: 5000, bodyTruncated: true })
    expect(entry!.body).toHaveLength(BODY_KEPT)
  })

  it('never keeps credentials: Authorization shows its scheme only', () => {
    const journal = new Journal()
    journal.record(request('/v1/pets', { authorization: 'Bearer secret-key-123' }), answered(200), 1)
    journal.record(request('/v1/pets', { authorization: 'secret-key-123' }), answered(401, 'unsupported_scheme'), 1)
    journal.record(
      request('/v1/pets', { authorization: ['Bearer a-secret', 'Basic b-secret'] }),
      answered(401, 'multiple_credentials'),
      1,
    )
    expect(journal.read().map((entry) => entry.headers.authorization)).toEqual([
      'Bearer [redacted], Basic [redacted]',
      '[redacted]',
      'Bearer [redacted]',
    ])
    expect(JSON.stringify(journal.read())).not.toMatch(/secret/)
  })

  it('never keeps a key sent in the target: each of its secrets is redacted there, wherever it stands', () => {
    const journal = new Journal({ secrets: ['api-key-1', 'admin-key-2'] })
    journal.record(request('/v1/pets?api_key=api-key-1&x=api-key-1'), answered(401, 'missing_credentials'), 1)
    journal.record(request('/__stub/state?key=admin-key-2'), answered(401, 'admin_key_required'), 1)
    journal.record(request('/v1/pets/api-key-1'), answered(404, 'pet_not_found'), 1)
    expect(journal.read().map(({ path, query }) => [path, query])).toEqual([
      ['/v1/pets/[redacted]', ''],
      ['/__stub/state', 'key=[redacted]'],
      ['/v1/pets', 'api_key=[redacted]&x=[redacted]'],
    ])
  })

  // The keys a tester started the stub with: one with characters a URL encodes, one the start of another, the admin key.
  const KEYS = ['k+y/z=', 'dev', 'dev-secret-key-42', 'ADMINsecret9']
  const leaks = (journal: Journal) => JSON.stringify(journal.read()).match(/k%2B|k\+y|-secret-key|ADMINsecret9|sh%6F/gi)

  it('never keeps a key percent-encoded in the target, however its characters are encoded', () => {
    const journal = new Journal({ secrets: [...KEYS, 'short-key'] })
    journal.record(request('/v1/pets?api_key=k%2By%2Fz%3D'), answered(401, 'missing_credentials'), 1)
    journal.record(request('/v1/pets?api_key=%6B%2by/z%3d'), answered(401, 'missing_credentials'), 1)
    journal.record(request('/v1/pets/sh%6Frt-key'), answered(404, 'pet_not_found'), 1)
    expect(journal.read().map(({ path, query }) => [path, query])).toEqual([
      ['/v1/pets/[redacted]', ''],
      ['/v1/pets', 'api_key=[redacted]'],
      ['/v1/pets', 'api_key=[redacted]'],
    ])
    expect(leaks(journal)).toBeNull()
  })

  it('redacts a key that begins another whole, never leaving the rest of the longer one', () => {
    const journal = new Journal({ secrets: KEYS })
    journal.record(request('/v1/pets?api_key=dev-secret-key-42&k=dev'), answered(401, 'missing_credentials'), 1)
    expect(journal.read()[0]!.query).toBe('api_key=[redacted]&k=[redacted]')
  })

  it('shows a scheme only when it is a known one and no key: never a key sent where the scheme goes', () => {
    const journal = new Journal({ secrets: [...KEYS, 'petstore-dev-key'] })
    for (const authorization of ['dev-secret-key-42 Bearer', 'petstore-dev-key Bearer', 'ADMINsecret9', 'Bearer dev'])
      journal.record(request('/v1/pets', { authorization }), answered(401, 'unsupported_scheme'), 1)
    expect(journal.read().map((entry) => entry.headers.authorization)).toEqual([
      'Bearer [redacted]',
      '[redacted]',
      '[redacted]',
      '[redacted]',
    ])
  })

  it('never keeps a key sent in the body, in Prefer or in Content-Type, nor one its cuts run through', () => {
    const journal = new Journal({ secrets: KEYS })
    journal.record(
      request('/v1/pets', {
        'content-type': 'application/json; key=dev-secret-key-42',
        prefer: 'example=k%2By%2Fz%3D',
      }),
      answered(400, 'invalid_preference'),
      1,
      Buffer.from('{"name":"x","apiKey":"dev-secret-key-42"}'),
    )
    // A key that starts just before the body's cut, or the target's, is redacted whole: none of it shows.
    const body = 'x'.repeat(BODY_KEPT - 5) + 'ADMINsecret9'
    journal.record(request(`/v1/pets?q=${'y'.repeat(TARGET_KEPT - 15)}d%65v-secret-key-42`), answered(201), 1, body)
    const [cut, odd] = journal.read()
    expect(odd).toMatchObject({
      headers: { 'content-type': 'application/json; key=[redacted]', prefer: 'example=[redacted]' },
      body: '{"name":"x","apiKey":"[redacted]"}',
    })
    expect(cut!.body).toBe('x'.repeat(BODY_KEPT - 5) + '[redacted]')
    expect(cut!.query).toBe('q=' + 'y'.repeat(TARGET_KEPT - 15) + '[redacted]')
    expect(leaks(journal)).toBeNull()
    expect(JSON.stringify(journal.read())).not.toMatch(/ADMI|d%65v/)
  })

  it('records no status for answers that never came, and the status of a trickled one', () => {
    const journal = new Journal()
    journal.record(request('/v1/pets'), undefined, 1)
    journal.record(request('/v1/pets'), { ...answered(200), socket: 'reset' }, 1)
    journal.record(request('/v1/pets'), { ...answered(200), socket: 'trickle' }, 1)
    expect(journal.read().map((entry) => entry.status)).toEqual([200, null, null])
  })

  it('records nothing when its bound is 0', () => {
    const journal = new Journal({ entries: 0 })
    journal.record(request('/v1/pets'), answered(200), 1)
    expect(journal.read()).toEqual([])
  })

  it(`holds at most about ${JOURNAL_DEFAULTS.bytes / 1024 / 1024} MiB of text plus its entries' overhead, measured on the heap`, () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const heap = () => {
      gc()
      gc()
      return process.memoryUsage().heapUsed
    }
    const before = heap()
    const journal = new Journal()
    // Worst case for the count: every entry at its largest (long target, long body, long Prefer).
    for (let i = 0; i < 20_000; i++) {
      journal.record(
        request(`/v1/pets?q=${i}${'x'.repeat(TARGET_KEPT)}`, { prefer: 'delay=1', authorization: 'Bearer k' }),
        answered(400, 'invalid_json'),
        1,
        Buffer.alloc(BODY_KEPT * 4, 97),
      )
    }
    const held = heap() - before
    expect(journal.stats.bytes).toBeLessThanOrEqual(JOURNAL_DEFAULTS.bytes)
    // Strings of one-byte characters take a byte each; entries' objects add their overhead.
    expect(held).toBeLessThan(JOURNAL_DEFAULTS.bytes * 1.5)
    expect(journal.read()).toHaveLength(journal.stats.entries)
  })

  it('holds a thousand ordinary requests in well under a MiB, measured on the heap', () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const heap = () => {
      gc()
      gc()
      return process.memoryUsage().heapUsed
    }
    // The common case is bound by the entry count.
    const small = heap()
    const ordinary = new Journal()
    for (let i = 0; i < 5000; i++)
      ordinary.record(request(`/v1/pets/${i}`, { authorization: 'Bearer k' }), answered(200), 0.4)
    const heldSmall = heap() - small
    expect(heldSmall).toBeLessThan(1024 * 1024)
    expect(ordinary.read()).toHaveLength(JOURNAL_DEFAULTS.entries)
  })
})
