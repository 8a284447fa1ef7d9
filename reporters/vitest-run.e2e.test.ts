import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunResult } from '../model/index.js'
import { readJunit } from './test-support/junit.js'
import { runProcess, type Finished } from '../test-support/run-command.js'

// The reporter inside a real vitest run, handed over as an instance the way the command does it
// (test-support/vitest-run/run.ts), over made-up scenarios that record results as the suite's do. No target.
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const TSX = createRequire(import.meta.url).resolve('tsx')
const SCRIPT = join(ROOT, 'reporters', 'test-support', 'vitest-run', 'run.ts')
const KEY = 'sk-live-SECRET-4f9a1c'

let dir: string
let finished: Finished
let report: RunResult

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-vitest-run-'))
  finished = await runProcess(process.execPath, ['--import', TSX, SCRIPT, dir], { cwd: ROOT, env: { SAMPLE_KEY: KEY } })
  report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'))
}, 60_000)

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('the reporter in a vitest run', () => {
  it('writes every selected file and says where', async () => {
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
    for (const file of ['report.json', 'report.html', 'report.md', 'junit.xml'])
      expect(finished.stdout).toContain(join(dir, file))
  })

  it('builds one result from the records in task meta; the scenario that broke leaves its check unjudged', () => {
    expect(report.checks.map((c) => [c.id, c.outcome])).toEqual([
      ['listPets.filter.status', 'failed'],
      ['listPets.limit.max', 'passed'],
      ['getPet.deprecation.sunset', 'failed'],
      ['getPet.id.int64', 'unjudged'],
    ])
    expect(report.runErrors).toEqual([
      `scenario "getPet: ids" did not finish: TypeError: Cannot read properties of undefined (reading 'id')`,
    ])
    expect(report.totals).toEqual({ checks: 4, passed: 1, failed: 1, warned: 1, skipped: 0, unjudged: 1, errors: 0 })
    expect([report.verdict, report.requestsSent, report.recordsCreated, report.coverage.length]).toEqual([
      'non-conformant',
      6,
      3,
      1,
    ])
  })

  it('prints a line per area (here, per scenario: the sample gives none), the failures with their evidence, and the verdict last, in plain text off a terminal', () => {
    const out = finished.stdout
    expect(out).not.toContain('\u001b[')
    const order = [
      '• listPets: filter  1 scenario · 1 check judged, 1 failing',
      '✗ getPet: ids  did not finish',
      'Failures (1)',
      'Warnings (1)',
      'Not judged (1)',
      'seed        -42',
    ]
    const at = order.map((line) => out.indexOf(line))
    expect(at.every((i) => i >= 0)).toBe(true)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
    expect(out.trimEnd().split('\n').at(-1)).toBe('Verdict: NON-CONFORMANT (1 failed)')
  })

  it('writes one JUnit testcase per check, failing only the failing check', async () => {
    const junit = readJunit(await readFile(join(dir, 'junit.xml'), 'utf8'))
    expect(junit.parseError).toBeUndefined()
    expect(junit.cases.map((c) => c.name)).toEqual(report.checks.map((c) => c.id))
    expect(junit.cases.filter((c) => c.failure).map((c) => c.name)).toEqual(['listPets.filter.status'])
  })

  it('exits with the verdict’s code, and the key a scenario echoed is in no output', async () => {
    expect(finished.code).toBe(1)
    const texts = [
      finished.stdout,
      finished.stderr,
      ...(await Promise.all((await readdir(dir)).map((f) => readFile(join(dir, f), 'utf8')))),
    ]
    for (const text of texts) expect(text.includes(KEY)).toBe(false)
    expect(finished.stdout).toContain('(the target said [REDACTED])')
  })
})
