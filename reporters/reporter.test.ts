import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunResult } from '../suites/model.js'
import { launchChromium, type Browser } from './test-support/chromium.js'
import { readJunit, type Junit } from './test-support/junit.js'
import { childEnv, run, type Finished } from './test-support/process.js'

// The reporter inside a real vitest run, next to vitest's JUnit reporter, over made-up tests that record
// results as the suite does (fixtures/reports/vitest-run). No target is needed.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs')
const CONFIG = 'fixtures/reports/vitest-run/vitest.config.ts'

let dir: string
let finished: Finished
let report: RunResult
let junit: Junit
let browser: Browser

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-reporter-'))
  finished = await run(process.execPath, [VITEST, 'run', '--config', CONFIG], { cwd: ROOT, env: childEnv({ REPORT_DIR: dir }) })
  report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'))
  browser = await launchChromium()
  junit = await readJunit(browser, await readFile(join(dir, 'junit.xml'), 'utf8'))
}, 60_000)

afterAll(async () => {
  await browser?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('the reporter in a vitest run', () => {
  it('writes every selected file into the output directory and says where', async () => {
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
    for (const file of ['report.json', 'report.html', 'report.md']) expect(finished.stdout).toContain(join(dir, file))
  })

  it('builds one run result from the recorded test cases, including the test that crashed without recording', () => {
    const { validate } = (() => {
      const ajv = new Ajv2020({ allErrors: true, strict: true })
      addFormats(ajv)
      return { validate: ajv.compile(JSON.parse(readFileSync(new URL('./result.schema.json', import.meta.url), 'utf8'))) }
    })()
    expect(validate(report)).toBe(true)
    expect(report.checks.map((c) => [c.id, c.outcome])).toEqual([
      ['listPets.filter.status', 'failed'],
      ['listPets.limit.max', 'passed'],
      ['getPet.deprecation.sunset', 'failed'],
      ['getPet.id.int64', 'error'],
    ])
    expect(report.checks[3]!.findings[0]!.message).toBe("TypeError: Cannot read properties of undefined (reading 'id')")
    expect(report.totals).toEqual({ checks: 4, passed: 1, failed: 1, warned: 1, skipped: 0, errors: 1 })
    expect([report.verdict, report.requestsSent, report.recordsCreated]).toEqual(['non-conformant', 6, 3])
    expect(Date.parse(report.startedAt)).not.toBeNaN()
  })

  it('prints progress, then the failures with their reproduction, then the verdict, in plain text off a terminal', () => {
    const out = finished.stdout
    expect(out).not.toContain('\u001b[')
    const order = [
      '✓ listPets > listPets.limit.max',
      '✗ listPets > listPets.filter.status',
      '✗ getPet > getPet.id.int64',
      'Failures (2)',
      'reproduce: curl -sS',
      'Warnings (1)',
      'seed        42',
      'Verdict: NON-CONFORMANT',
    ].map((line) => out.indexOf(line))
    expect(order.every((at) => at >= 0)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
  })

  it('leaves a well-formed JUnit file whose counts match the run', () => {
    expect(junit.parseError).toBeUndefined()
    expect(junit.root).toBe('testsuites')
    const failingChecks = report.checks.filter((c) => c.outcome === 'failed' && c.severity === 'fail').length + report.totals.errors
    expect(junit.totals).toEqual({ tests: 5, failures: failingChecks, errors: 0 })
    const failed = junit.cases.filter((c) => c.failure)
    expect(failed.map((c) => c.name)).toEqual(['listPets > listPets.filter.status', 'getPet > getPet.id.int64'])
    expect(failed[0]!.failure).toContain('a pet with status "sold" in a list filtered by status=pending')
  })

  it('exits 1, as vitest does when a test failed', () => {
    expect(finished.code).toBe(1)
  })
})
