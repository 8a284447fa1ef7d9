/**
 * The suite has teeth, proven in-process (the stub mounted as a Fetch handler, no port, no child): it passes
 * the correct stub, fails every fault of the stub's table with the check the fault names, and passes
 * conformant targets that choose differently where the interface is silent. The same runs through the real
 * command, in child processes, are in `npm run test:e2e`.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { runConformance } from '../command/library.js'
import type { RunResult } from '../model/index.js'
import { createStub, FAULTS, type FaultName } from '../stub/index.js'
import { CHECKS, type CheckId } from '../suites/index.js'
import { VARIANTS } from '../test-support/targets/catalogue.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterEach)

const KEY = 'teeth-key-8c1f0e'
const SEED = 20301205
// Fewer runs than a default run: every fault below is caught by an example-based check or an early run.
const EFFORT = { seed: SEED, runs: 10, timeoutMs: 1000 }

const failed = (run: RunResult) =>
  run.checks.filter((c) => c.outcome === 'failed' && c.severity === 'fail').map((c) => c.id)
const broken = (run: RunResult) =>
  run.checks.filter((c) => c.outcome === 'error' || c.outcome === 'unjudged').map((c) => `${c.id}: ${c.reason ?? ''}`)

describe('teeth, in-process', () => {
  it('passes the correct stub, judging every check', async () => {
    const run = await runConformance({ apiKey: KEY, fetch: createStub({ apiKeys: [KEY] }).fetch, ...EFFORT })
    expect(broken(run)).toEqual([])
    expect(failed(run)).toEqual([])
    expect(run.verdict).toBe('conformant')
    // Its fixture pets hold every status: no listing can be empty, and the report says so rather than passing it.
    expect(run.checks.filter((c) => c.outcome === 'skipped').map((c) => [c.id, c.reason])).toEqual([
      [
        'listPets.empty-is-array',
        'every status held pets before the run created one (a shared or seeded target): no empty result to judge',
      ],
    ])
    expect(run.recordsCreated).toBeLessThanOrEqual(run.recordBudget)
    expect(JSON.stringify(run)).not.toContain(KEY)
  })

  it('passes an empty stub, judging the empty result too', async () => {
    const run = await runConformance({
      apiKey: KEY,
      fetch: createStub({ apiKeys: [KEY], seed: false }).fetch,
      ...EFFORT,
    })
    expect(run.verdict).toBe('conformant')
    const outcome = (id: string) => run.checks.find((c) => c.id === id)?.outcome
    expect(outcome('listPets.empty-is-array')).toBe('passed')
    expect(outcome('listPets.unfiltered-lists-all')).toBe('passed')
  })

  it('passes a busy staging (more pets than a page, every status held), saying which premises its state rules out', async () => {
    const statuses = ['available', 'pending', 'sold']
    const seed = Array.from({ length: 150 }, (_, i) => ({
      id: i + 1,
      name: `held ${i}`,
      categoryId: 1,
      status: statuses[i % 3]!,
    }))
    const run = await runConformance({ apiKey: KEY, fetch: createStub({ apiKeys: [KEY], seed }).fetch, ...EFFORT })
    expect(run.verdict).toBe('conformant')
    expect(run.checks.filter((c) => c.outcome === 'skipped').map((c) => [c.id, c.reason])).toEqual([
      [
        'listPets.empty-is-array',
        'every status held pets before the run created one (a shared or seeded target): no empty result to judge',
      ],
      [
        'listPets.unfiltered-lists-all',
        'the target holds at least 100 pets, a full page: an unfiltered page has no room to show every pet',
      ],
    ])
  })

  it('names, for every fault, a check of the table', () => {
    const ids = new Set<string>(CHECKS.map((c) => c.id))
    for (const [name, fault] of Object.entries(FAULTS)) expect(ids.has(fault.catches), name).toBe(true)
  })

  // Each fault judged by the check it names alone (a subset run: that check and the scenarios it needs), which is
  // what proves the check's teeth; the whole suite against every fault, through the real command, is in
  // tests/teeth.e2e.test.ts.
  for (const name of Object.keys(FAULTS) as FaultName[]) {
    const catches = FAULTS[name].catches as CheckId
    it(`fails the fault "${name}" with ${catches}`, async () => {
      const run = await runConformance({
        apiKey: KEY,
        fetch: createStub({ apiKeys: [KEY], fault: name, ...(FAULTS[name].emptyStore ? { seed: false } : {}) }).fetch,
        ...EFFORT,
        checks: [catches],
      })
      expect(failed(run)).toEqual([catches])
      expect(run.verdict).toBe('non-conformant')
      // Each finding shows the request (redacted) and how to replay it.
      const check = run.checks.find((c) => c.id === catches)!
      for (const finding of check.findings) {
        expect(finding.exchange?.request.url).toMatch(/\/v1\/pets/)
        expect(finding.curl).toMatch(/^curl /)
      }
      if (name === 'limit-ignored') expect(check.findings.map((f) => f.counterexample)).toContain('GET /pets?limit=1')
    })
  }
})

describe('teeth, conformant variants over loopback HTTP', () => {
  for (const [name, options] of Object.entries(VARIANTS)) {
    it(`passes: ${name}`, async () => {
      const target = await start({ independent: { ...options, keys: [KEY] } })
      try {
        const run = await runConformance({ baseUrl: target.url, apiKey: KEY, ...EFFORT })
        expect(broken(run)).toEqual([])
        expect(failed(run)).toEqual([])
        expect(run.verdict).toBe('conformant')
      } finally {
        await target.close()
      }
    })
  }
})

describe('nothing stored, judged whatever the ids', () => {
  const STORES_NOTHING = ['createPet.auth.stores-nothing', 'createPet.invalid-stores-nothing']
  const outcomes = (run: RunResult) =>
    Object.fromEntries(run.checks.filter((c) => STORES_NOTHING.includes(c.id)).map((c) => [c.id, c.outcome]))

  for (const [name, fault, expected] of [
    ['passes a target with snowflake ids, judging both', undefined, ['passed', 'passed']],
    [
      'fails a target with snowflake ids that stores a pet while answering 401',
      'unauth-create-stored',
      ['failed', 'passed'],
    ],
  ] as const) {
    it(name, async () => {
      const target = await start({ independent: { ids: 'snowflake', ...(fault ? { fault } : {}), keys: [KEY] } })
      try {
        const run = await runConformance({ baseUrl: target.url, apiKey: KEY, ...EFFORT })
        expect(outcomes(run)).toEqual(Object.fromEntries(STORES_NOTHING.map((id, i) => [id, expected[i]])))
        expect(run.verdict).toBe(fault ? 'non-conformant' : 'conformant')
      } finally {
        await target.close()
      }
    })
  }
})
