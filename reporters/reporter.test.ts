import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SerializedError, TestCase, TestModule } from 'vitest/node'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exitCode, type RunResult, type ScenarioRecord } from '../model/index.js'
import ConformanceReporter, { liveLine, type Format, type Progress } from './index.js'
import { readJunit } from './test-support/junit.js'
import { check, sample, sampleRedactor } from './test-support/results.js'

// The reporter driven through vitest's hooks, with plain stand-ins for its test cases and modules: what a
// scenario leaves in task meta crosses from the worker as plain data, so these are what the reporter sees.

interface FakeCase {
  name: string
  area?: string
  operations?: string[]
  record?: ScenarioRecord
  state?: 'passed' | 'failed' | 'skipped' | 'pending'
  errors?: { name?: string; message: string }[]
}

const MODULE_ID = 'suites/conformance.vitest.ts'

function testCase(fake: FakeCase): TestCase {
  return {
    name: fake.name,
    fullName: `scenarios > ${fake.name}`,
    module: { relativeModuleId: MODULE_ID },
    meta: () => ({
      ...(fake.record ? { conformance: fake.record } : {}),
      ...(fake.area ? { area: fake.area } : {}),
      ...(fake.operations ? { operations: fake.operations } : {}),
    }),
    result: () => ({ state: fake.state ?? 'passed', errors: fake.errors ?? [] }),
  } as unknown as TestCase
}

function testModule(cases: TestCase[], errors: { message: string }[] = []): TestModule {
  return {
    relativeModuleId: MODULE_ID,
    errors: () => errors,
    children: { allTests: () => cases[Symbol.iterator](), allSuites: () => [][Symbol.iterator]() },
  } as unknown as TestModule
}

let dir: string
beforeEach(async () => void (dir = await mkdtemp(join(tmpdir(), 'petstore-reporter-'))))
afterEach(async () => rm(dir, { recursive: true, force: true }))

interface Ran {
  out: string
  run: RunResult
  reporter: ConformanceReporter
}

/** Runs the reporter over `cases` as vitest would, collecting what it printed and the result it handed on. */
async function report(
  cases: FakeCase[],
  options: {
    formats?: Format[]
    progress?: Progress
    unhandled?: SerializedError[]
    moduleErrors?: { message: string }[]
  } = {},
): Promise<Ran> {
  const { facts } = sample()
  let out = ''
  let result: RunResult | undefined
  const reporter = new ConformanceReporter({
    formats: options.formats ?? ['console', 'json', 'html', 'markdown', 'junit'],
    outputDir: join(dir, 'reports'),
    facts: {
      tool: facts.tool,
      target: facts.target,
      runId: facts.runId,
      seed: facts.seed,
      runs: facts.runs,
      recordBudget: facts.recordBudget,
      viaPrism: facts.viaPrism,
      strict: facts.strict,
      specVersion: facts.specVersion,
      operationOrder: facts.operationOrder,
      notices: facts.notices,
      catalogue: facts.catalogue,
    },
    redactor: sampleRedactor(),
    out: { write: (text: string) => (out += text) },
    color: false,
    progress: options.progress ?? 'lines',
    onResult: (run) => void (result = run),
  })
  const cases$ = cases.map(testCase)
  const module = testModule(cases$, options.moduleErrors)
  reporter.onInit()
  reporter.onTestRunStart()
  reporter.onTestModuleCollected(module)
  for (const c of cases$) {
    reporter.onTestCaseReady(c)
    reporter.onTestCaseResult(c)
  }
  await reporter.onTestRunEnd([module], options.unhandled ?? [], 'passed')
  expect(result).toBe(reporter.result)
  return { out, run: result!, reporter }
}

const records = () => sample().records
const scenarios = (): FakeCase[] => records().map((record) => ({ name: record.scenario, record }))

describe('the reporter at the end of a run', () => {
  it('builds one result from every test case’s record and hands it on; the command takes its exit code from it', async () => {
    const { run } = await report(scenarios())
    expect([run.verdict, exitCode(run)]).toEqual(['non-conformant', 1])
    expect(run.requestsSent).toBe(records().reduce((n, r) => n + r.requestsSent, 0))
    expect(Date.parse(run.startedAt)).not.toBeNaN()
    expect(run.coverage).toHaveLength(9)
  })

  it('writes every selected format into the output directory, the JSON being the result itself', async () => {
    const { run, out } = await report(scenarios())
    const files = (await readdir(join(dir, 'reports'))).sort()
    expect(files).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
    expect(JSON.parse(await readFile(join(dir, 'reports', 'report.json'), 'utf8'))).toEqual(run)
    expect(readJunit(await readFile(join(dir, 'reports', 'junit.xml'), 'utf8')).totals.failures).toBe(run.totals.failed)
    expect(out).toContain(`  reports     ${join(dir, 'reports', 'report.json')}\n`)
    expect(out).toContain(`              ${join(dir, 'reports', 'junit.xml')}\n`)
  })

  it('ends the console with the verdict', async () => {
    const { out } = await report(scenarios())
    expect(out.trimEnd().split('\n').at(-1)).toBe('Verdict: NON-CONFORMANT (5 failed)')
  })

  it('prints the verdict even without the console report (--quiet, or only file formats)', async () => {
    const { out } = await report(scenarios(), { formats: ['markdown'], progress: 'none' })
    const lines = out.trimEnd().split('\n')
    expect(lines.at(-1)).toBe('Verdict: NON-CONFORMANT (5 failed)')
    expect(lines.at(-2)).toMatch(/^\d+ checks: \d+ passed, 5 failed, /)
    expect(lines[0]).toBe(`Reports: ${join(dir, 'reports', 'report.md')}`)
    expect(lines).toHaveLength(3) // no check details, no progress
  })

  it('leaves the checks of a test that did not finish unjudged, and says why in the run errors: incomplete, exit 2', async () => {
    const cases: FakeCase[] = [
      {
        name: 'listPets',
        record: {
          scenario: 'listPets',
          checks: [check('listPets.limit.max')],
          observations: [],
          statusesSeen: [],
          requestsSent: 3,
          recordsCreated: 0,
        },
      },
      { name: 'getPet', state: 'failed', errors: [{ name: 'TypeError', message: 'x is undefined' }] },
    ]
    const { run, out } = await report(cases)
    expect(run.checks.find((c) => c.id === 'listPets.limit.max')!.outcome).toBe('passed')
    expect(run.checks.filter((c) => c.outcome === 'unjudged').length).toBe(run.checks.length - 1)
    expect(run.runErrors).toEqual(['scenario "scenarios > getPet" did not finish: TypeError: x is undefined'])
    expect([run.verdict, exitCode(run)]).toEqual(['incomplete', 2])
    expect(out).toContain('✗ getPet  did not finish: TypeError: x is undefined')
    // The verdict, then the line that says what was not judged, wrapped within the console's width.
    const last = out.trimEnd().split('\n')
    const verdict = last.indexOf('Verdict: INCOMPLETE')
    expect(verdict).toBeGreaterThan(-1)
    expect(
      last
        .slice(verdict + 1)
        .join(' ')
        .replace(/ +/g, ' '),
    ).toMatch(/^incomplete: 1 error outside any scenario; 15 checks not judged \(/)
  })

  it('counts files that did not load and unhandled errors as errors outside any scenario', async () => {
    const { run } = await report(scenarios(), {
      moduleErrors: [{ message: 'Cannot find module x' }],
      unhandled: [{ name: 'Error', message: 'boom' } as SerializedError],
    })
    expect(run.runErrors).toEqual([`${MODULE_ID}: Cannot find module x`, 'unhandled: boom'])
  })

  it('takes why the run stopped from the command, when it says', async () => {
    const { facts } = sample()
    const reporter = new ConformanceReporter({
      formats: [],
      outputDir: dir,
      facts: { ...facts },
      redactor: sampleRedactor(),
      out: { write: () => true },
      progress: 'none',
      stopped: () => '--max-time 30 s reached',
    })
    await reporter.onTestRunEnd([], [], 'passed')
    expect(reporter.result).toMatchObject({ verdict: 'incomplete', stopped: '--max-time 30 s reached' })
  })

  it('rejects a format it does not know', () => {
    expect(
      () =>
        new ConformanceReporter({
          formats: ['pdf' as Format],
          outputDir: dir,
          facts: sample().facts,
          redactor: sampleRedactor(),
        }),
    ).toThrow('unknown report format pdf; known: console, json, html, markdown, junit')
  })
})

describe('progress', () => {
  it('prints one line per area in CI, once its scenarios are done: never "failed" for one whose check failed', async () => {
    // The sample's scenarios by operation, as the suite's areas are; the run as a whole has no area of its own.
    const cases = scenarios().map((c) => ({ ...c, ...(c.name.includes(':') ? { area: c.name.split(':')[0] } : {}) }))
    const { out } = await report(cases, { formats: [] })
    const lines = out.split('\n').filter((l) => / checks? judged/.test(l))
    expect(lines.map((l) => l.replace(/ · \d+ s$/, ''))).toEqual([
      '• listPets  2 scenarios · 7 checks judged, 2 failing · 35 requests', // each check once, though two judged one
      '• createPet  2 scenarios · 5 checks judged, 3 failing · 28 requests',
      '• getPet  1 scenario · 4 checks judged, 1 warning · 4 requests',
    ])
    // An area that judged nothing (here the run as a whole; in a narrowed run, the areas of other checks) has no line.
    expect(out).not.toContain('the run as a whole')
    expect(lines.join('\n')).not.toMatch(/\bfailed\b/)
  })

  it('prints a scenario that broke at once, with its error, and counts it in its area', async () => {
    const cases: FakeCase[] = [
      { name: 'listPets: ok', area: 'list', record: records()[0]! },
      { name: 'listPets: broke', area: 'list', state: 'failed', errors: [{ message: 'TypeError: x is undefined' }] },
    ]
    const { out } = await report(cases, { formats: [] })
    const lines = out.split('\n').filter((l) => l.startsWith('✗') || l.includes('scenarios'))
    expect(lines[0]).toBe('✗ listPets: broke  did not finish: TypeError: x is undefined')
    expect(lines[1]).toMatch(/^• list  2 scenarios · 5 checks judged, 1 broke · 32 requests · \d+ s$/)
  })

  it("blames a failing check on its operation's area, not on another area whose scenarios also sent its requests", async () => {
    // Auth's scenario lists pets to find an id; listPets.limit.max fails on that listing and on the list area's own.
    const failing = check('listPets.limit.max', { outcome: 'failed' })
    const record = (scenario: string, requestsSent: number): ScenarioRecord => ({
      scenario,
      checks: [failing, check('listPets.body.schema')],
      observations: [],
      statusesSeen: ['listPets 200'],
      requestsSent,
      recordsCreated: 0,
    })
    const cases: FakeCase[] = [
      { name: 'auth: no key', area: 'auth', operations: ['listPets', 'getPet'], record: record('auth: no key', 3) },
      { name: 'list: limit', area: 'list', operations: ['listPets'], record: record('list: limit', 5) },
      { name: 'list: filter', area: 'list', operations: ['listPets'], record: record('list: filter', 4) },
    ]
    const { out } = await report(cases, { formats: [] })
    const lines = out.split('\n').filter((l) => / checks? judged/.test(l))
    expect(lines.map((l) => l.replace(/ · \d+ s$/, ''))).toEqual([
      '✓ auth  1 scenario · 2 checks judged · 3 requests',
      // Each check once per area, however many of its scenarios found it.
      '• list  2 scenarios · 2 checks judged, 1 failing · 9 requests',
    ])
  })

  it('rewrites one live line on a terminal and clears it before the report', async () => {
    const { out } = await report(scenarios(), { progress: 'live' })
    const total = sample().facts.catalogue.length
    const drawn = out.split('\r\u001b[2K').filter((l) => l.startsWith('›'))
    expect(drawn.at(-1)).toMatch(
      new RegExp(`^› 67 requests · \\d+/${total} checks judged · 5 failing · \\d+ s · the run as a whole$`),
    )
    for (const line of drawn) expect(line.length).toBeLessThanOrEqual(79)
    const cleared = out.lastIndexOf('\r\u001b[2K')
    expect(out.slice(cleared + 5)).not.toContain('scenarios ·')
    expect(out.trimEnd().split('\n').at(-1)).toBe('Verdict: NON-CONFORMANT (5 failed)')
  })

  it('keeps the live line within 80 columns (or a narrower terminal), counters whole and first, the title shortened', () => {
    const live = {
      scenario: 'createPet: every declared property at its bounds is stored and served back as it was sent',
      requests: 1234,
      judged: 48,
      total: 96,
      failing: 3,
      elapsedS: 27,
    }
    const counters = '› 1234 requests · 48/96 checks judged · 3 failing · 27 s'
    const wide = liveLine(live, 79)
    expect(wide).toHaveLength(79)
    expect(wide.startsWith(`${counters} · createPet: every`)).toBe(true)
    expect(wide.endsWith('…')).toBe(true)
    expect(liveLine(live, 59)).toBe(counters) // no room for a title worth reading: the counters alone
    expect(liveLine({ ...live, scenario: 'list' }, 79)).toBe(`${counters} · list`)
    expect(liveLine(live, 30)).toHaveLength(30) // a terminal narrower than the counters: cut, never wrapped
  })

  it('prints nothing while running when quiet, only the verdict at the end', async () => {
    const { out } = await report(scenarios(), { progress: 'none', formats: ['json'] })
    expect(out.split('\n')[0]).toMatch(/^Reports: /)
    expect(out.trimEnd().split('\n')).toHaveLength(3)
  })
})

describe('the key', () => {
  it('appears nowhere the reporter writes: console, progress lines and every file', async () => {
    const secret = sample().secret
    // Scenario names and errors that carry the key too, beyond what the records hold.
    const cases: FakeCase[] = [
      ...scenarios().map((c) => ({ ...c, record: { ...c.record!, scenario: `${c.name} ${secret}` } })),
      { name: `crashed ${secret}`, state: 'failed', errors: [{ message: `bad ${secret.toUpperCase()}` }] },
    ]
    const { out } = await report(cases, { progress: 'live' })
    const texts: Record<string, string> = { console: out }
    for (const file of await readdir(join(dir, 'reports')))
      texts[file] = await readFile(join(dir, 'reports', file), 'utf8')
    expect(Object.keys(texts)).toHaveLength(5)
    for (const [where, text] of Object.entries(texts))
      expect({ where, leaked: text.toLowerCase().includes(secret.toLowerCase().slice(-8)) }).toEqual({
        where,
        leaked: false,
      })
  })
})
