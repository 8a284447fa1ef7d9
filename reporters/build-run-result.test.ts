import { describe, expect, it } from 'vitest'
import { spec } from '../spec/index.js'
import type { CheckResult, Finding, TestRecord } from '../suites/model.js'
import { RUN_ERROR_ID, buildRunResult, mergeChecks, standing, type CaseResult, type RunFacts } from './build-run-result.js'
import { check } from './test-support/results.js'

const facts = (over: Partial<RunFacts['options']> = {}, rest: Partial<RunFacts> = {}): RunFacts => ({
  options: {
    tool: { name: 'petstore-conformance', version: '1.0.0' },
    target: { baseUrl: 'http://127.0.0.1:4010/v1', embedded: false },
    runId: 'r1',
    seed: 7,
    runs: 10,
    recordBudget: 5,
    viaPrism: false,
    strict: false,
    ...over,
  },
  startedAt: '2025-01-01T00:00:00.000Z',
  durationMs: 1234.4,
  runErrors: [],
  interrupted: false,
  ...rest,
})

const finding = (checkId: string, message: string, status?: number): Finding => ({
  checkId,
  severity: 'fail',
  source: 'suite',
  message,
  ...(status === undefined
    ? {}
    : { exchange: { request: { method: 'GET', url: 'http://x/v1/pets', headers: {} }, response: { status, headers: {}, rawBody: '' }, durationMs: 1 } }),
})

const record = (checks: CheckResult[], over: Partial<TestRecord> = {}): TestRecord => ({
  checks,
  observations: [],
  statusesSeen: [],
  requestsSent: 1,
  recordsCreated: 0,
  ...over,
})

const testCase = (name: string, rec: TestRecord | undefined, over: Partial<CaseResult> = {}): CaseResult => ({
  module: 'suites/conformance/a.test.ts',
  name,
  fullName: `listPets > ${name}`,
  state: 'passed',
  errors: [],
  ...(rec ? { record: rec } : {}),
  ...over,
})

describe('mergeChecks', () => {
  it('keeps the worst outcome, concatenates findings and sums exchanges of one check across test cases', () => {
    const [merged, ...rest] = mergeChecks([
      check('a', { outcome: 'skipped', exchanges: 0 }),
      check('a', { outcome: 'failed', findings: [finding('a', 'first')], exchanges: 3, durationMs: 5 }),
      check('a', { outcome: 'passed', exchanges: 2 }),
      check('a', { outcome: 'failed', findings: [finding('a', 'second')], exchanges: 4 }),
    ])
    expect(rest).toEqual([])
    expect(merged).toMatchObject({ id: 'a', outcome: 'failed', exchanges: 9, durationMs: 8 })
    expect(merged!.findings.map((f) => f.message)).toEqual(['first', 'second'])
  })

  it('ranks error above failed, failed above passed, passed above skipped', () => {
    const worst = (...outcomes: CheckResult['outcome'][]) => mergeChecks(outcomes.map((outcome) => check('a', { outcome })))[0]!.outcome
    expect(worst('passed', 'skipped')).toBe('passed')
    expect(worst('skipped', 'passed')).toBe('passed')
    expect(worst('failed', 'passed')).toBe('failed')
    expect(worst('failed', 'error', 'passed')).toBe('error')
  })

  it('says a check judged on several operations covers all of them', () => {
    const [merged] = mergeChecks([check('auth', { operationId: 'listPets' }), check('auth', { operationId: 'createPet' })])
    expect(merged!.operationId).toBe('all')
  })
})

describe('standing and verdict', () => {
  it('counts failed advice as a warning, or as a failure under --strict', () => {
    const advice = check('adv', { severity: 'advice', outcome: 'failed', findings: [finding('adv', 'no Sunset')] })
    expect(standing(advice, false)).toBe('warned')
    expect(standing(advice, true)).toBe('failed')
    const lax = buildRunResult(spec(), [testCase('adv', record([advice]))], facts())
    const strict = buildRunResult(spec(), [testCase('adv', record([advice]))], facts({ strict: true }))
    expect([lax.verdict, lax.totals.warned, lax.totals.failed]).toEqual(['conformant', 1, 0])
    expect([strict.verdict, strict.totals.warned, strict.totals.failed]).toEqual(['non-conformant', 0, 1])
  })

  it('never fails a target for an observed remark', () => {
    const observed = check('obs', { severity: 'observed', outcome: 'failed', findings: [finding('obs', 'limit=0 -> 400')] })
    const run = buildRunResult(spec(), [testCase('obs', record([observed]))], facts({ strict: true }))
    expect(run.verdict).toBe('conformant')
    expect(run.totals).toMatchObject({ warned: 1, failed: 0 })
  })

  it('is non-conformant when a fail check failed or errored, and conformant when everything passed or was skipped', () => {
    const ok = buildRunResult(spec(), [testCase('a', record([check('a'), check('b', { outcome: 'skipped' })]))], facts())
    expect(ok.verdict).toBe('conformant')
    expect(ok.totals).toEqual({ checks: 2, passed: 1, failed: 0, warned: 0, skipped: 1, errors: 0 })
    const failed = buildRunResult(spec(), [testCase('a', record([check('a', { outcome: 'failed' })]), { state: 'failed' })], facts())
    expect(failed.verdict).toBe('non-conformant')
    const errored = buildRunResult(spec(), [testCase('a', record([check('a', { outcome: 'error' })]), { state: 'failed' })], facts())
    expect([errored.verdict, errored.totals.errors]).toEqual(['non-conformant', 1])
  })
})

describe('test cases that failed outside their checks', () => {
  it('turns a test that threw before recording anything into an error result carrying its message', () => {
    const crashed = testCase('getPet.id.int64', undefined, {
      fullName: 'getPet > getPet.id.int64',
      state: 'failed',
      errors: ["TypeError: Cannot read properties of undefined (reading 'id')"],
    })
    const run = buildRunResult(spec(), [crashed], facts())
    expect(run.checks).toHaveLength(1)
    expect(run.checks[0]).toMatchObject({ id: 'getPet.id.int64', operationId: 'getPet', severity: 'fail', outcome: 'error' })
    expect(run.checks[0]!.findings[0]!.message).toContain('Cannot read properties of undefined')
    expect(run.verdict).toBe('non-conformant')
  })

  it('adds an error when a test failed although every check it recorded passed', () => {
    const run = buildRunResult(spec(), [testCase('t', record([check('a')]), { state: 'failed', errors: ['Test timed out in 30000ms.'] })], facts())
    expect(run.checks.map((c) => [c.id, c.outcome])).toEqual([
      ['a', 'passed'],
      ['t', 'error'],
    ])
  })

  it('adds nothing when the test failed because one of its checks failed', () => {
    const run = buildRunResult(spec(), [testCase('a', record([check('a', { outcome: 'failed' })]), { state: 'failed', errors: ['a: x'] })], facts())
    expect(run.checks.map((c) => c.id)).toEqual(['a'])
  })

  it('gives a broken check that recorded no finding the message of the error its test threw', () => {
    const broken = check('listPets.limit.max', { outcome: 'error', exchanges: 0 })
    const errors = ['listPets.limit.max: the check itself failed: RangeError: x', 'other.check: y']
    const run = buildRunResult(spec(), [testCase('t', record([broken]), { state: 'failed', errors })], facts())
    expect(run.checks.map((c) => [c.id, c.outcome, c.findings.map((f) => f.message)])).toEqual([
      ['listPets.limit.max', 'error', ['listPets.limit.max: the check itself failed: RangeError: x']],
    ])
  })

  it('reports errors outside any test (a file that did not load) and an interrupted run', () => {
    const run = buildRunResult(spec(), [], facts({}, { runErrors: ['suites/conformance/b.test.ts: SyntaxError: x'], interrupted: true }))
    expect(run.checks).toMatchObject([{ id: RUN_ERROR_ID, outcome: 'error', findings: [{ message: 'suites/conformance/b.test.ts: SyntaxError: x' }] }])
    expect(run.verdict).toBe('non-conformant')
    expect(run.notices.join('\n')).toContain('interrupted')
  })
})

describe('coverage, observations and run facts', () => {
  it('lists every documented status of every operation, in spec order, marking what was seen', () => {
    const seen = ['listPets 200', 'createPet 201', 'createPet 500', 'getPet 404']
    const run = buildRunResult(spec(), [testCase('a', record([check('a')], { statusesSeen: seen }))], facts())
    const documented = Object.values(spec().operations).flatMap((op) => op.statuses.map((s) => `${op.operationId} ${s}`))
    expect(run.coverage.map((c) => `${c.operationId} ${c.status}`)).toEqual(documented)
    expect(run.coverage.filter((c) => c.seen).map((c) => `${c.operationId} ${c.status}`)).toEqual(['listPets 200', 'createPet 201', 'getPet 404'])
    expect(run.coverage.filter((c) => !c.provokable).map((c) => `${c.operationId} ${c.status}`)).toEqual(['listPets 400'])
  })

  it('reads the one unprovokable response from the spec: listPets 400 is the OutOfRange case the interface does not describe', () => {
    expect(Object.values(spec().operations).flatMap((op) => op.silentStatuses.map((s) => `${op.operationId} ${s}`))).toEqual(['listPets 400'])
    const response = spec().doc.paths['/pets'].get.responses['400']
    expect(response.$ref).toBe('#/components/responses/OutOfRange')
    expect(spec().resolve<{ description: string }>(response).description).toMatch(/does not describe this case/)
  })

  it('de-duplicates observations and orders them by operation, then id', () => {
    const o1 = { id: 'listPets.limit.below-minimum', operationId: 'listPets' as const, subject: 'GET /pets?limit=0', behaviour: '400 Error' }
    const o2 = { id: 'createPet.status.default', operationId: 'createPet' as const, subject: 'POST /pets', behaviour: '"available"' }
    const run = buildRunResult(
      spec(),
      [testCase('a', record([check('a')], { observations: [o2, o1] })), testCase('b', record([check('b')], { observations: [o1, o2, o1] }))],
      facts(),
    )
    expect(run.observations).toEqual([o1, o2])
  })

  it('sums requests and records, keeps the target URL without credentials and rounds the duration', () => {
    const run = buildRunResult(
      spec(),
      [testCase('a', record([check('a')], { requestsSent: 3, recordsCreated: 4 })), testCase('b', record([check('b')], { requestsSent: 5, recordsCreated: 2 }))],
      facts({ target: { baseUrl: 'https://ci:sk-live-SECRET-4f9a1c@staging.example/v1', embedded: false } }),
    )
    expect([run.requestsSent, run.recordsCreated, run.durationMs]).toEqual([8, 6, 1234])
    expect(run.target.baseUrl).toBe('https://staging.example/v1')
    expect(run.notices).toContain('The run created 6 records, more than its budget of 5.')
  })

  it('says up front when every response was 401', () => {
    const rec = record([check('a', { outcome: 'failed' })], { statusesSeen: ['listPets 401', 'createPet 401'] })
    const run = buildRunResult(spec(), [testCase('a', rec, { state: 'failed' })], facts())
    expect(run.notices.join('\n')).toMatch(/Every response was 401/)
  })

  it('gives the same result whatever order vitest finished the files in', () => {
    const a = testCase('a', record([check('x', { outcome: 'failed', findings: [finding('x', 'from a')] })]), { module: 'a.test.ts' })
    const b = testCase('b', record([check('x', { outcome: 'failed', findings: [finding('x', 'from b')] })]), { module: 'b.test.ts' })
    expect(buildRunResult(spec(), [b, a], facts())).toEqual(buildRunResult(spec(), [a, b], facts()))
  })

  it('scrubs credentials that reached a finding unredacted', () => {
    const leaky = finding('a', 'got Bearer sk-live-SECRET-4f9a1c back', 200)
    leaky.exchange!.request.headers = { Authorization: 'Bearer sk-live-SECRET-4f9a1c' }
    leaky.curl = "curl -H 'Authorization: Bearer sk-live-SECRET-4f9a1c' http://x/v1/pets"
    const run = buildRunResult(spec(), [testCase('a', record([check('a', { outcome: 'failed', findings: [leaky] })]))], facts())
    expect(JSON.stringify(run)).not.toContain('sk-live-SECRET-4f9a1c')
    expect(run.checks[0]!.findings[0]!.exchange!.request.headers.Authorization).toBe('Bearer [REDACTED]')
  })
})
