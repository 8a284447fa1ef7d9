/**
 * `--replay`: every failing finding of a run, sent again and judged again, is STILL FAILING against the same
 * faulty target and FIXED against a correct one holding the same pets, and CANNOT REPLAY (never either) on a target
 * restarted with fresh data, in-process (the stub's Fetch handler). The command's own
 * replay lines run in `npm run test:e2e` (reports.e2e.test.ts prints and runs one).
 */
import { describe, expect, it } from 'vitest'
import { runConformance } from '../command/library.js'
import { breaksConformance, type Finding, type RunResult } from '../model/index.js'
import { spec } from '../spec/index.js'
import { createStub, type FaultName, type InProcessStub } from '../stub/index.js'
import { recordAllowances, replayFinding, transportFor, type RunConfig } from '../suites/index.js'

const KEY = 'replay-key-5d21'
const BASE = 'http://stub.test/v1'
const EFFORT = { seed: 20301205, runs: 5, timeoutMs: 2000 }

const failing = (run: RunResult): Finding[] =>
  run.checks.filter((c) => breaksConformance(c, run.strict)).flatMap((c) => c.findings)

async function replayAll(findings: Finding[], from: string, stub: InProcessStub) {
  const transport = transportFor(
    {
      baseUrl: BASE,
      apiKey: KEY,
      timeoutMs: 2000,
      concurrency: 1,
      seed: 1,
      runs: 1,
      checks: [],
      operations: [],
      strict: false,
      viaPrism: false,
      runId: 'replay',
      allowances: recordAllowances(1),
    } satisfies RunConfig,
    stub.fetch,
  )
  try {
    const outcomes: string[] = []
    for (const finding of findings) {
      const { outcome, messages } = await replayFinding(finding, from, transport, spec())
      outcomes.push(outcome === 'cannot replay' ? `${outcome}: ${messages.join('; ')}` : outcome)
    }
    return outcomes
  } finally {
    await transport.close()
  }
}

describe('replaying the failing findings of a report', () => {
  for (const fault of ['limit-ignored', 'create-200', 'limit-short'] as FaultName[]) {
    it(`of the fault "${fault}": still failing against it, fixed against the correct stub`, async () => {
      // Replayed against the very target the run left behind: a page's size depends on the pets it holds.
      const faulty = createStub({ apiKeys: [KEY], fault })
      const run = await runConformance({ apiKey: KEY, fetch: faulty.fetch, ...EFFORT })
      const findings = failing(run).filter((f) => f.source === 'suite' && f.replay !== undefined)
      expect(findings.length).toBeGreaterThan(0)
      const from = run.target.baseUrl
      expect(await replayAll(findings, from, faulty)).toEqual(findings.map(() => 'still failing'))
      // The fix deployed over the same data: the correct stub, holding every pet the faulty one held.
      const fixed = createStub({ apiKeys: [KEY] })
      fixed.restore(faulty.snapshot())
      // A finding judged on a page with room (the fault's short page) cannot be confirmed where the fixed page is full:
      // the check has nothing to judge there, and replay says so rather than crediting a fix; the counts are fixed.
      const premised = new Set(['listPets.finds-created', 'listPets.unfiltered-lists-all'])
      const replayed = await replayAll(findings, from, fixed)
      expect(replayed).toEqual(
        findings.map((f) =>
          premised.has(f.checkId)
            ? expect.stringMatching(/^fixed$|^cannot replay: .*only a full run of the suite can confirm a fix$/)
            : 'fixed',
        ),
      )
      // limit-short leaves pages with room; a fixed page that is full is such a case (seeded, so it happens here).
      if (fault === 'limit-short')
        expect(replayed.filter((o) => o.startsWith('cannot replay')).length).toBeGreaterThan(0)
      expect(findings.some((f) => !premised.has(f.checkId))).toBe(true)
    })
  }

  // A restart with fresh data: the pets the findings were judged on are gone, the store is smaller than they assumed.
  for (const fault of ['get-wrong-pet'] as FaultName[]) {
    it(`of the fault "${fault}": cannot replay what the target no longer holds, fixed or not`, async () => {
      const faulty = createStub({ apiKeys: [KEY], fault })
      const run = await runConformance({ apiKey: KEY, fetch: faulty.fetch, ...EFFORT })
      const findings = failing(run).filter(
        (f) => f.source === 'suite' && f.replay !== undefined && /^(listPets|getPet)\./.test(f.checkId),
      )
      expect(findings.length).toBeGreaterThan(0)
      for (const restarted of [
        createStub({ apiKeys: [KEY], fault, seed: false }),
        createStub({ apiKeys: [KEY], seed: false }),
      ]) {
        const outcomes = await replayAll(findings, run.target.baseUrl, restarted)
        expect(outcomes.filter((o) => !o.startsWith('cannot replay: '))).toEqual([])
        expect(outcomes.join('\n')).toMatch(/is gone|at least \d+ pets/)
      }
    })
  }

  it('recreates the pets a list finding counted on after a restart: still failing against the fault, fixed without it', async () => {
    const fault: FaultName = 'limit-short'
    const faulty = createStub({ apiKeys: [KEY], fault })
    const run = await runConformance({ apiKey: KEY, fetch: faulty.fetch, ...EFFORT })
    const findings = failing(run).filter(
      (f) => f.source === 'suite' && f.replay !== undefined && /^listPets\.limit\./.test(f.checkId),
    )
    expect(findings.length).toBeGreaterThan(0)
    // Restarted with no pets at all: a page cannot come up short of pets the target does not hold, unless remade.
    const still = await replayAll(findings, run.target.baseUrl, createStub({ apiKeys: [KEY], fault, seed: false }))
    expect(still.filter((o) => o !== 'still failing' && !o.startsWith('cannot replay: '))).toEqual([])
    expect(still).toContain('still failing')
    const fixed = await replayAll(findings, run.target.baseUrl, createStub({ apiKeys: [KEY], seed: false }))
    expect(fixed.filter((o) => o !== 'fixed' && !o.startsWith('cannot replay: '))).toEqual([])
    expect(fixed).toContain('fixed')
    for (const o of [...still, ...fixed].filter((o) => o.startsWith('cannot replay: ')))
      expect(o).toMatch(/only a full run of the suite can confirm a fix$/)
  })

  it('never calls a getPet finding fixed because the restarted target lost its pet (404 where it answered 200)', async () => {
    const faulty = createStub({ apiKeys: [KEY], fault: 'get-wrong-pet' })
    const run = await runConformance({ apiKey: KEY, fetch: faulty.fetch, ...EFFORT })
    const findings = failing(run).filter((f) => f.source === 'suite' && f.exchange?.operationId === 'getPet')
    expect(findings.length).toBeGreaterThan(0)
    const outcomes = await replayAll(findings, run.target.baseUrl, createStub({ apiKeys: [KEY], seed: false }))
    expect(outcomes.filter((o) => o === 'fixed')).toEqual([])
  })

  it('says a finding without a request cannot be replayed, and never sends one', async () => {
    const finding: Finding = {
      checkId: 'listPets.limit.max',
      operationId: 'listPets',
      severity: 'fail',
      source: 'suite',
      message: 'no exchange kept',
    }
    expect(await replayAll([finding], BASE, createStub({ apiKeys: [KEY] }))).toEqual([
      'cannot replay: the finding carries no request to send again',
    ])
  })
})
