import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listLimit } from './arbitraries.js'
import { recordAllowances } from './config.js'
import { NotSent, Recorder, Session, type SuiteConfig } from './harness.js'

const KEY = 'harness-key-1'
let server: Server
let baseUrl: string

// A target whose listPets returns one pet too many from limit 7 on, and 201 for any create.
beforeAll(async () => {
  let id = 0
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x')
    res.setHeader('content-type', 'application/json')
    if (req.method === 'POST') {
      res.statusCode = 201
      return res.end(JSON.stringify({ id: ++id, name: 'x', categoryId: 1 }))
    }
    const limit = Number(url.searchParams.get('limit') ?? 20)
    const count = limit >= 7 ? limit + 1 : limit
    res.end(JSON.stringify(Array.from({ length: count }, (_, i) => ({ id: i + 1, name: 'p', categoryId: 1 }))))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

function session(overrides: Partial<SuiteConfig> = {}): Session {
  const far = Date.now() + 600_000
  return new Session({
    baseUrl,
    apiKey: KEY,
    seed: 42,
    runs: 30,
    timeoutMs: 2000,
    checks: [],
    operations: [],
    strict: false,
    viaPrism: false,
    runId: 'test',
    allowances: recordAllowances(30),
    stopAt: far,
    propertiesStopAt: far,
    propertyBudgetMs: 600_000,
    ...overrides,
  })
}

const plan = { checks: ['listPets.limit.max'], operations: ['listPets' as const] }

describe('Recorder', () => {
  it('shrinks a failing property to its smallest counterexample and keeps how to replay it', async () => {
    const s = session()
    const r = new Recorder(s, plan, 'list')
    await r.property({
      arbitrary: listLimit(s.spec),
      numRuns: 50,
      run: async (limit, child) => {
        const exchange = await child.listPets([['limit', String(limit)]])
        child.check('listPets.limit.max', { exchange, limit })
      },
      show: (limit) => `GET /pets?limit=${limit}`,
    })
    const record = r.toRecord()
    const check = record.checks.find((c) => c.id === 'listPets.limit.max')!
    expect(check.outcome).toBe('failed')
    expect(check.findings).toHaveLength(1)
    expect(check.findings[0]).toMatchObject({ counterexample: 'GET /pets?limit=7', seed: 42, message: 'GET /pets?limit=7 returned 8 pets; documented: at most 7' })
    expect(check.findings[0]!.path).toMatch(/^\d+(:\d+)*$/)
    expect(check.findings[0]!.curl).toContain("'http://127.0.0.1:")
    expect(record.requestsSent).toBeGreaterThan(1)
    expect(record.statusesSeen).toEqual(['listPets 200'])
    expect(r.failures()).toHaveLength(1)
    // The record travels as task meta and JSON: plain data only, and never the key.
    expect(JSON.parse(JSON.stringify(record))).toEqual(record)
    expect(JSON.stringify(record)).not.toContain(KEY)
    s.client.close()
  })

  it('lists planned checks it never judged as skipped, and a failure of its own code as an error', () => {
    const s = session()
    const fresh = () => new Recorder(s, { checks: ['listPets.limit.fills', 'listPets.limit.max'], operations: ['listPets'] }, 'list')
    const outcomes = (r: Recorder) => r.toRecord().checks.map((c) => [c.id, c.outcome])
    expect(outcomes(fresh())).toEqual([
      ['listPets.limit.fills', 'skipped'],
      ['listPets.limit.max', 'skipped'],
    ])
    const broken = fresh()
    broken.kitError(new Error('boom'))
    expect(outcomes(broken)).toEqual([
      ['listPets.limit.fills', 'error'],
      ['listPets.limit.max', 'error'],
    ])
    expect(broken.failures().some((f) => f.includes('boom'))).toBe(true)
    s.client.close()
  })

  it('stops creating once its allowance is spent', async () => {
    const s = session({ allowances: { ...recordAllowances(30), get: 1 } })
    const r = new Recorder(s, { checks: ['getPet.returns-created'], operations: ['getPet'] }, 'get')
    await r.createValid({ name: 'pcs-test-a', categoryId: 1n })
    await expect(r.createValid({ name: 'pcs-test-b', categoryId: 1n })).rejects.toBeInstanceOf(NotSent)
    expect(r.toRecord().recordsCreated).toBe(1)
    s.client.close()
  })

  it('judges only the selected checks', async () => {
    const s = session({ checks: ['response.schema'] })
    const r = new Recorder(s, plan, 'list')
    const exchange = await r.listPets([['limit', '9']])
    r.check('listPets.limit.max', { exchange, limit: 9 })
    expect(r.toRecord().checks.map((c) => [c.id, c.outcome])).toEqual([['response.schema', 'passed']])
    s.client.close()
  })
})
