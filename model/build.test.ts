import { describe, expect, it } from 'vitest'
import { LIMITS } from './bound.js'
import { buildRunResult, compareText, type RunFacts } from './build.js'
import { Redactor } from './redact.js'
import type { CatalogueEntry, CheckResult, Finding, ScenarioRecord } from './result.js'
import { exitCode } from './verdict.js'

const KEY = 'sk-live-SECRET-4f9a1c'
const redactor = new Redactor([KEY])

const entry = (id: string, over: Partial<CatalogueEntry> = {}): CatalogueEntry => ({
  id,
  title: `${id} holds`,
  operationId: 'listPets',
  severity: 'fail',
  source: 'suite',
  ...over,
})

const check = (id: string, over: Partial<CheckResult> = {}): CheckResult => ({
  ...entry(id),
  outcome: 'passed',
  findings: [],
  exchanges: 1,
  ...over,
})

const finding = (checkId: string, message: string, over: Partial<Finding> = {}): Finding => ({
  checkId,
  operationId: 'listPets',
  severity: 'fail',
  source: 'suite',
  message,
  ...over,
})

const record = (scenario: string, checks: CheckResult[], over: Partial<ScenarioRecord> = {}): ScenarioRecord => ({
  scenario,
  checks,
  observations: [],
  statusesSeen: [],
  requestsSent: 2,
  recordsCreated: 1,
  ...over,
})

const facts = (over: Partial<RunFacts> = {}): RunFacts => ({
  tool: { name: 'petstore-conformance', version: '1.0.0' },
  target: { baseUrl: 'http://127.0.0.1:4010/v1', embedded: false },
  runId: 'r1',
  seed: -7,
  runs: 10,
  recordBudget: 20,
  viaPrism: false,
  strict: false,
  specVersion: '1.0.0',
  operationOrder: ['listPets', 'createPet', 'getPet'],
  notices: [],
  startedAt: '2025-11-22T10:00:00.000Z',
  durationMs: 1234.4,
  catalogue: [entry('a'), entry('b')],
  runErrors: [],
  ...over,
})

const build = (records: ScenarioRecord[], over: Partial<RunFacts> = {}) =>
  buildRunResult(records, facts(over), redactor)

describe('merging the records of a run', () => {
  it('keeps each check’s worst outcome, concatenates findings without repeats and sums exchanges', () => {
    const run = build([
      record('one', [
        check('a', { exchanges: 3 }),
        check('b', { outcome: 'failed', findings: [finding('b', 'x'), finding('b', 'y')] }),
      ]),
      record('two', [
        check('a', { outcome: 'failed', findings: [finding('a', 'z')], exchanges: 2 }),
        check('b', { findings: [finding('b', 'x')] }),
      ]),
    ])
    expect(run.checks.map((c) => [c.id, c.outcome, c.exchanges, c.findings.map((f) => f.message)])).toEqual([
      ['a', 'failed', 5, ['z']],
      ['b', 'failed', 2, ['x', 'y']],
    ])
    expect([run.requestsSent, run.recordsCreated]).toEqual([4, 2])
  })

  it('ranks outcomes skipped < passed < unjudged < error < failed', () => {
    const merged = (...outcomes: CheckResult['outcome'][]) =>
      build(outcomes.map((outcome, i) => record(`s${i}`, [check('a', { outcome, reason: 'why' })]))).checks[0]!.outcome
    expect(merged('skipped', 'passed')).toBe('passed')
    expect(merged('passed', 'unjudged')).toBe('unjudged')
    expect(merged('unjudged', 'error')).toBe('error')
    expect(merged('error', 'failed')).toBe('failed')
  })

  it('takes a check’s title, operation and severity from the catalogue, and keeps checks outside it', () => {
    const run = build([
      record('one', [
        check('a', { title: 'other', operationId: 'getPet' }),
        check('prism.body', { source: 'prism', operationId: 'all' }),
      ]),
    ])
    expect(run.checks.map((c) => [c.id, c.title, c.operationId, c.source])).toEqual([
      ['a', 'a holds', 'listPets', 'suite'],
      ['b', 'b holds', 'listPets', 'suite'],
      ['prism.body', 'prism.body holds', 'all', 'prism'],
    ])
  })

  it('sorts checks by the spec’s operation order, cross-cutting ones last, then by id with plain comparison', () => {
    const catalogue = [
      entry('z', { operationId: 'all' }),
      entry('b', { operationId: 'getPet' }),
      entry('B', { operationId: 'getPet' }),
      entry('a', { operationId: 'createPet' }),
    ]
    const run = build(
      [
        record(
          'one',
          catalogue.map((e) => check(e.id, e)),
        ),
      ],
      { catalogue },
    )
    expect(run.checks.map((c) => c.id)).toEqual(['a', 'B', 'b', 'z'])
    expect(compareText('B', 'a')).toBe(-1) // code units: capitals first, the same on every machine
  })

  it('is byte-stable: the same records in any order give the same result', () => {
    const records = [
      record('one', [check('a', { outcome: 'failed', findings: [finding('a', 'one')] })], {
        observations: [{ id: 'o', subject: 'GET /pets?limit=0', behaviour: '400' }],
      }),
      record('two', [check('a', { outcome: 'failed', findings: [finding('a', 'two')] }), check('b')], {
        observations: [{ id: 'o', subject: 'GET /pets?limit=0', behaviour: '400' }],
      }),
    ]
    expect(JSON.stringify(build([...records].reverse()))).toBe(JSON.stringify(build(records)))
  })

  it('takes coverage from the run-level record as it is, and dedupes and sorts observations', () => {
    const coverage = [{ operationId: 'listPets' as const, status: '200', seen: true, provokable: true }]
    const run = build([
      record('b', [], {
        observations: [
          { id: 'o2', operationId: 'getPet', subject: 's', behaviour: 'x' },
          { id: 'o1', operationId: 'listPets', subject: 's', behaviour: 'y' },
        ],
      }),
      record('a', [], { observations: [{ id: 'o1', operationId: 'listPets', subject: 's', behaviour: 'y' }] }),
      record('the run as a whole', [], { coverage }),
    ])
    expect(run.coverage).toEqual(coverage)
    expect(run.observations.map((o) => o.id)).toEqual(['o1', 'o2'])
  })
})

describe('checks no record judged', () => {
  it('are unjudged, with a reason, when no fail-severity check failed: the run is incomplete, exit 2', () => {
    const run = build([record('one', [check('a')])])
    expect(run.checks[1]).toMatchObject({
      id: 'b',
      outcome: 'unjudged',
      reason: 'not judged: no scenario of this run judged it',
    })
    expect([run.verdict, exitCode(run), run.incomplete]).toEqual([
      'incomplete',
      2,
      'incomplete: 1 check not judged (b)',
    ])
    expect(run.totals).toEqual({ checks: 2, passed: 1, failed: 0, warned: 0, skipped: 0, unjudged: 1, errors: 0 })
  })

  it('are not applicable when a fail-severity check failed, since the target’s answers removed their premise', () => {
    const run = build([record('one', [check('a', { outcome: 'failed', findings: [finding('a', 'bad')] })])])
    expect(run.checks[1]).toMatchObject({
      outcome: 'skipped',
      reason: "not applicable: the target's answers removed its premise (failing: a)",
    })
    expect([run.verdict, exitCode(run), run.incomplete]).toEqual(['non-conformant', 1, undefined])
  })

  it('are unjudged when a scenario did not finish, whatever failed: nobody knows what it would have found', () => {
    const run = build([record('one', [check('a', { outcome: 'failed', findings: [finding('a', 'bad')] })])], {
      runErrors: ['scenario "x" did not finish: TypeError'],
    })
    expect(run.checks[1]).toMatchObject({
      outcome: 'unjudged',
      reason: 'not judged: a scenario did not finish (see the errors outside any scenario)',
    })
    expect(run.verdict).toBe('non-conformant')
  })

  it('are unjudged with the stop reason when the run stopped early, whatever failed', () => {
    const run = build([record('one', [check('a', { outcome: 'failed', findings: [finding('a', 'bad')] })])], {
      stopped: '--max-time 30 s reached',
    })
    expect(run.checks[1]).toMatchObject({ outcome: 'unjudged', reason: 'not judged: --max-time 30 s reached' })
    expect([run.verdict, run.stopped]).toEqual(['non-conformant', '--max-time 30 s reached']) // what was found stands
  })

  it('count a record’s `skipped` without a reason as not judged (the scenario only knew the check)', () => {
    const run = build([record('one', [check('a'), check('b', { outcome: 'skipped', exchanges: 0 })])])
    expect(run.checks[1]).toMatchObject({ outcome: 'unjudged' })
  })
})

describe('the verdict', () => {
  it('is conformant only when every selected check was judged and none fails', () => {
    const run = build([
      record('one', [check('a'), check('b', { outcome: 'skipped', reason: 'not applicable: no pets' })]),
    ])
    expect([run.verdict, exitCode(run), run.incomplete]).toEqual(['conformant', 0, undefined])
  })

  it('is incomplete when a scenario stopped, with the stop reason in one line', () => {
    const run = build([record('one', [check('a'), check('b')], { stopped: 'the target stopped answering' })])
    expect([run.verdict, run.incomplete, run.stopped]).toEqual([
      'incomplete',
      'incomplete: the target stopped answering',
      'the target stopped answering',
    ])
  })

  it('is incomplete with errors outside any scenario, and names checks that broke', () => {
    const run = build(
      [record('one', [check('a'), check('b', { outcome: 'error', reason: 'the check itself failed: TypeError' })])],
      {
        runErrors: ['unhandled: boom'],
      },
    )
    expect(run.incomplete).toBe('incomplete: 1 error outside any scenario; 1 check could not run (b)')
    expect(run.runErrors).toEqual(['unhandled: boom'])
  })

  it('lets failed advice only warn unless strict', () => {
    const records = [
      record('one', [
        check('a'),
        check('b', { severity: 'advice', outcome: 'failed', findings: [finding('b', 'no Sunset')] }),
      ]),
    ]
    const catalogue = [entry('a'), entry('b', { severity: 'advice' })]
    expect(build(records, { catalogue }).verdict).toBe('conformant')
    expect(build(records, { catalogue }).totals.warned).toBe(1)
    expect(build(records, { catalogue, strict: true }).verdict).toBe('non-conformant')
  })
})

describe('bounded evidence', () => {
  it('keeps a few findings per check and counts the distinct ones left out', () => {
    const findings = Array.from({ length: 12 }, (_, i) => finding('a', `message ${i % 9}`))
    const run = build([record('one', [check('a', { outcome: 'failed', findings }), check('b')])])
    expect(run.checks[0]!.findings).toHaveLength(LIMITS.findingsPerCheck)
    expect(run.checks[0]!.findingsLeftOut).toBe(9 - LIMITS.findingsPerCheck)
  })

  it("keeps a property's shrunk counterexample over plain findings, also when it repeats one's message", () => {
    const plain = Array.from({ length: 7 }, (_, i) => finding('a', `message ${i}`))
    const late = finding('a', 'GET /pets?limit=1 returned 3 pets', { counterexample: 'GET /pets?limit=1' })
    const again = finding('a', 'message 0', { counterexample: 'GET /pets?limit=0' })
    const run = build([
      record('a-examples', [check('a', { outcome: 'failed', findings: plain })]),
      record('b-property', [check('a', { outcome: 'failed', findings: [late, again] })]),
    ])
    const kept = run.checks[0]!.findings
    expect(kept).toHaveLength(LIMITS.findingsPerCheck)
    expect(
      kept
        .map((f) => f.counterexample)
        .filter(Boolean)
        .sort(),
    ).toEqual(['GET /pets?limit=0', 'GET /pets?limit=1'])
    expect(run.checks[0]!.findingsLeftOut).toBe(8 - LIMITS.findingsPerCheck)
  })

  it('stays small and fast whatever the records hold: 16 MiB bodies, deep nesting, an 8 MB number, 10,000 headers', () => {
    const headers = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x-h${i}`, 'v'.repeat(2000)]))
    const exchange = (rawBody: string) => ({
      request: { method: 'GET', url: `http://127.0.0.1/v1/pets?q=${'q'.repeat(100_000)}`, headers },
      response: { status: 200, headers, rawBody },
      durationMs: 1,
    })
    // Flat strings, as records arrive from a worker (slicing a rope string built here would flatten it first).
    const flat = (start: string, length: number) =>
      Buffer.alloc(length, 'm').fill(start, 0, start.length).toString('latin1')
    const bodies = [flat('[', 16 * 2 ** 20), flat('{"id":9', 8_000_000), flat('{"a":'.repeat(500_000), 3_000_000)]
    const findings = bodies.flatMap((body, i) =>
      Array.from({ length: 300 }, (_, j) =>
        finding('a', j === 0 ? flat(`${i}.${j} `, 8_000_000) : `${i}.${j}`, {
          exchange: exchange(body),
          curl: body,
          counterexample: body,
        }),
      ),
    )
    const started = performance.now()
    const run = build([
      record('one', [check('a', { outcome: 'failed', findings }), check('b')], {
        observations: Array.from({ length: 5000 }, (_, i) => ({
          id: 'o',
          subject: `s${i}`,
          behaviour: 'b'.repeat(10_000),
        })),
      }),
    ])
    const json = JSON.stringify(run)
    expect(performance.now() - started).toBeLessThan(5000)
    // At most: 5 findings, each with two header lists of 40 values of 512 characters, and a few bounded texts.
    const bound =
      LIMITS.findingsPerCheck *
      (2 * LIMITS.headers * (LIMITS.headerValue + 20) +
        3 * LIMITS.body +
        LIMITS.message +
        LIMITS.curl +
        LIMITS.url +
        1000)
    expect(json.length).toBeLessThan(bound + 50 * 1000)
    expect(run.checks[0]!.findingsLeftOut).toBe(findings.length - LIMITS.findingsPerCheck)
    const first = run.checks[0]!.findings[0]!
    expect(first.message).toMatch(/^0\.0 m+… \[truncated: 8000000 bytes in all\]$/)
    expect(Object.keys(first.exchange!.response!.headers)).toHaveLength(LIMITS.headers + 1)
    expect(first.exchange!.response!.rawBody).toMatch(/… \[truncated: 16777216 bytes in all\]$/)
    expect(run.observations.length).toBe(LIMITS.observationsPerCheck + 1)
    expect(run.observations.at(-1)).toMatchObject({ subject: '…', behaviour: '[truncated: 5000 observations in all]' })
  })

  it('drops fields the model does not know, so nothing unbounded rides along', () => {
    const odd = {
      ...finding('a', 'bad'),
      parsed: { deep: 'x'.repeat(100_000) },
      exchange: { request: { method: 'GET', url: 'u', headers: {} }, durationMs: 1, json: 1 },
    }
    const run = build([
      record('one', [
        { ...check('a', { outcome: 'failed', findings: [odd as Finding] }), extra: 'y'.repeat(100_000) } as CheckResult,
        check('b'),
      ]),
    ])
    expect(JSON.stringify(run).length).toBeLessThan(5000)
  })
})

describe('redaction', () => {
  it('redacts every string of the result before bounding it: no form of the key survives', () => {
    const echoes = [
      KEY,
      KEY.toUpperCase(),
      KEY.replace(/-/g, '%2D'),
      [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    ]
    const exchange = {
      request: { method: 'GET', url: `https://ci:${KEY}@staging.example/v1/pets`, headers: { [`x-${KEY}`]: KEY } },
      response: {
        status: 200,
        headers: { 'set-cookie': `t=${KEY}`, [KEY.toUpperCase()]: 'x' },
        rawBody: `${'x'.repeat(4090)}${echoes.join(' ')}`,
      },
      error: `reset after ${KEY}`,
      durationMs: 1,
    }
    const run = build(
      [
        record(
          `scenario ${KEY}`,
          [
            check('a', {
              outcome: 'failed',
              reason: KEY,
              findings: echoes.map((e) =>
                finding('a', `got ${e}`, {
                  exchange,
                  curl: `curl -H 'X: ${e}'`,
                  counterexample: `{"name":"${e}"}`,
                  path: e,
                }),
              ),
            }),
            check('b'),
          ],
          { observations: [{ id: 'o', subject: KEY, behaviour: echoes[3]! }] },
        ),
      ],
      {
        notices: [`notice ${KEY}`],
        runErrors: [`unhandled: ${KEY}`],
        target: { baseUrl: `https://ci:${KEY}@staging.example/v1`, embedded: false },
      },
    )
    const json = JSON.stringify(run)
    expect(json.toLowerCase()).not.toContain('4f9a1c')
    expect(json).not.toContain('\\\\u0034\\\\u0066') // \u-escaped digits of the key
    expect(json).toContain('[REDACTED]')
    expect(run.target.baseUrl).toBe('https://staging.example/v1')
  })
})
