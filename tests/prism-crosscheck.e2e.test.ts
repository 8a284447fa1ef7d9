// The second opinion: the whole conformance suite through Prism's validating proxy. Run as a user runs it (the
// command, `--via-prism`, in a child), Prism finds nothing wrong with the correct stub; run in-process through the
// proxy in front of a stub that wraps the list, Prism reports that fault too (the control that shows Prism
// really sat in the path and judged the answers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Finding, RunResult } from '../model/index.js'
import { runConformance } from '../command/library.js'
import { PRISM_CHECKS } from '../suites/prism/index.js'
import { runCommand, type ConformanceRun } from '../test-support/run-command.js'
import { targets, type StubTarget } from '../test-support/targets.js'

const start = targets(afterAll)

const KEY = 'crosscheck-key'
const PRISM_IDS = PRISM_CHECKS.map((c) => c.id).sort()

const prismChecks = (report: RunResult) => report.checks.filter((c) => c.source === 'prism')
const prismFindings = (report: RunResult): Finding[] => prismChecks(report).flatMap((c) => c.findings)

describe('the command with --via-prism, against its embedded stub', { timeout: 120_000 }, () => {
  let run: ConformanceRun
  let report: RunResult

  beforeAll(async () => {
    run = await runCommand('conformance', ['--via-prism', '--reporter', 'json', '--quiet'], { timeoutMs: 110_000 })
    report = run.report!
  }, 120_000)

  it('is conformant: Prism judged every check of its own on the exchanges and found no violation', () => {
    expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' })
    expect([report.viaPrism, report.verdict]).toEqual([true, 'conformant'])
    expect(prismFindings(report).map((f) => `${f.checkId}: ${f.message}`)).toEqual([])
    expect(prismChecks(report).map((c) => [c.id, c.outcome, c.severity, c.operationId])).toEqual(
      PRISM_IDS.map((id) => [id, 'passed', 'fail', 'all']),
    )
    expect(prismChecks(report).every((c) => c.exchanges > 0)).toBe(true)
  })
})

describe('the suite in-process through Prism, against a stub that wraps the list', { timeout: 120_000 }, () => {
  let stub: StubTarget
  let report: RunResult

  beforeAll(async () => {
    stub = await start({ stub: { apiKeys: [KEY], fault: 'list-wrapped' } })
    report = await runConformance({ baseUrl: stub.url, apiKey: KEY, viaPrism: true, runs: 5, seed: 1 })
  }, 120_000)
  afterAll(() => stub?.close())

  it('fails, and Prism reports the list that is not an array as a finding of source prism, with its exchange', () => {
    expect(report.verdict).toBe('non-conformant')
    const findings = prismFindings(report)
    expect(findings.length).toBeGreaterThan(0)
    expect(findings.every((f) => f.source === 'prism' && f.severity === 'fail' && f.exchange !== undefined)).toBe(true)
    expect(findings.map((f) => `${f.operationId} ${f.checkId}: ${f.message}`)).toContain(
      'listPets prism.response-body: Response body must be array [Prism Error type at response.body]',
    )
    expect(report.checks.find((c) => c.id === 'prism.response-body')?.outcome).toBe('failed')
  })

  it("agrees with the suite's own check meant to catch it", () => {
    const failing = report.checks.filter((c) => c.source === 'suite' && c.outcome === 'failed').map((c) => c.id)
    expect(failing).toContain('response.schema')
  })
})
