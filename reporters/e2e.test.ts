import { readFile, readdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStub, type Stub } from '../stub/index.js'
import type { RunResult } from '../suites/model.js'
import { launchChromium, type Browser } from './test-support/chromium.js'
import { readJunit, type Junit } from './test-support/junit.js'
import { childEnv, run, type Finished } from './test-support/process.js'

// Two real runs of `petstore-conformance` with every report format: one against the correct stub, one against a
// stub that echoes the wrong status in its Error bodies. Both use a distinctive key that no output may contain.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const COMMAND = join(ROOT, 'bin', 'petstore-conformance.js')
const KEY = 'sk-live-SECRET-4f9a1c'
const FORMATS = 'console,junit,json,html,markdown'

interface Outcome {
  finished: Finished
  dir: string
  files: Record<string, string>
  report: RunResult
  junit: Junit
}

let browser: Browser
let scratch: string
const outcomes: Record<'correct' | 'faulty', Outcome> = {} as never

async function conformanceRun(name: string, stub: Stub): Promise<Outcome> {
  const dir = join(scratch, name)
  const args = [COMMAND, '--base-url', stub.url, '--api-key', KEY, '--seed', '1', '--runs', '10', '--reporter', FORMATS, '--output-dir', dir]
  const finished = await run(process.execPath, args, { cwd: ROOT, env: childEnv({ PETSTORE_API_KEY: undefined, PETSTORE_BASE_URL: undefined }) })
  const files: Record<string, string> = {}
  for (const file of await readdir(dir).catch(() => [])) files[file] = await readFile(join(dir, file), 'utf8')
  const report = JSON.parse(files['report.json'] ?? 'null') as RunResult
  const junit = await readJunit(browser, files['junit.xml'] ?? '')
  return { finished, dir, files, report, junit }
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'petstore-e2e-reports-'))
  browser = await launchChromium()
  const correct = await startStub({ apiKeys: [KEY] })
  const faulty = await startStub({ apiKeys: [KEY], fault: 'error-status-mismatch' })
  try {
    // One after the other: two runs side by side would only share two cores.
    outcomes.correct = await conformanceRun('correct', correct)
    outcomes.faulty = await conformanceRun('faulty', faulty)
  } finally {
    await Promise.all([correct.close(), faulty.close()])
  }
}, 240_000)

afterAll(async () => {
  await browser?.close()
  if (scratch) await rm(scratch, { recursive: true, force: true })
})

async function matrixOutcomes(outcome: Outcome): Promise<Record<string, string>> {
  const page = await browser.context.newPage()
  try {
    await page.goto(pathToFileURL(join(outcome.dir, 'report.html')).href)
    const cells = await page
      .locator('table.matrix [data-outcome][data-status]')
      .evaluateAll((els) => els.map((e) => [`${e.getAttribute('data-op')} ${e.getAttribute('data-status')}`, e.getAttribute('data-outcome') ?? '']))
    return Object.fromEntries(cells)
  } finally {
    await page.close()
  }
}

const schemaValidator = async () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true })
  addFormats(ajv)
  return ajv.compile(JSON.parse(await readFile(new URL('./result.schema.json', import.meta.url), 'utf8')))
}

describe('a run against the correct stub', () => {
  it('exits 0 with a conformant verdict in every format', async () => {
    const { finished, files, report, junit } = outcomes.correct
    expect(finished.stderr).toBe('')
    expect(finished.code).toBe(0)
    expect(Object.keys(files).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
    expect((await schemaValidator())(report)).toBe(true)
    expect([report.verdict, report.totals.failed, report.totals.errors]).toEqual(['conformant', 0, 0])
    expect(report.recordsCreated).toBeLessThanOrEqual(report.recordBudget)
    expect(finished.stdout).toContain('Verdict: conformant')
    expect(junit.parseError).toBeUndefined()
    expect(junit.totals.failures).toBe(0)
    expect(junit.totals.tests).toBeGreaterThan(0)
    expect(files['report.md']).toMatch(/^## ✅ Pet Store conformance: conformant/)
  })

  it('shows no failed cell in the HTML matrix, and the success of each operation as provoked', async () => {
    const cells = await matrixOutcomes(outcomes.correct)
    expect(Object.entries(cells).filter(([, outcome]) => outcome === 'failed')).toEqual([])
    expect([cells['listPets 200'], cells['createPet 201'], cells['getPet 200']]).toEqual(['passed', 'passed', 'passed'])
  })
})

describe('a run against a stub whose Error bodies carry the wrong status', () => {
  it('exits 1 and names the failing check in the JSON report, with the exchange and curl line', async () => {
    const { finished, report } = outcomes.faulty
    expect(finished.code).toBe(1)
    expect((await schemaValidator())(report)).toBe(true)
    expect(report.verdict).toBe('non-conformant')
    const echoed = report.checks.find((c) => c.id === 'error.status-echoed')
    expect(echoed?.outcome).toBe('failed')
    expect(echoed!.findings[0]!.exchange?.response?.status).toBeGreaterThanOrEqual(400)
    expect(echoed!.findings[0]!.curl).toMatch(/^curl /)
  })

  it('shows the failure on the console, in JUnit, in HTML and in Markdown', async () => {
    const { finished, files, report, junit } = outcomes.faulty
    const failing = report.checks.filter((c) => c.outcome === 'failed' && c.severity === 'fail').map((c) => c.id)
    expect(failing).toContain('error.status-echoed')
    for (const id of failing) {
      expect({ id, console: finished.stdout.includes(id), html: files['report.html']!.includes(id), md: files['report.md']!.includes(id) }).toEqual({
        id,
        console: true,
        html: true,
        md: true,
      })
    }
    expect(finished.stdout).toContain('Verdict: NON-CONFORMANT')
    expect(finished.stdout).toContain('reproduce: curl')
    expect(files['report.md']).toMatch(/non-conformant/)
    expect(files['report.md']).toContain('```sh\ncurl ')
    expect(junit.parseError).toBeUndefined()
    expect(junit.totals.failures).toBeGreaterThan(0)
    expect(junit.cases.filter((c) => c.failure).map((c) => `${c.name}\n${c.failure}`).join('\n')).toContain('error.status-echoed')
    const cells = await matrixOutcomes(outcomes.faulty)
    expect(cells['getPet 404']).toBe('failed') // the 404 Error says 400
    expect(cells['listPets 200']).toBe('passed')
  })
})

describe('the API key', () => {
  it('appears in no report file and nowhere on the console, in either run', () => {
    for (const [name, outcome] of Object.entries(outcomes)) {
      const texts = { stdout: outcome.finished.stdout, stderr: outcome.finished.stderr, ...outcome.files }
      expect(Object.keys(outcome.files).length).toBeGreaterThan(3)
      for (const [where, text] of Object.entries(texts)) expect({ name, where, leaked: text.includes(KEY) }).toEqual({ name, where, leaked: false })
    }
  })
})
