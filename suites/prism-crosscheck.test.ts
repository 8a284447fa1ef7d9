// The second opinion: the whole conformance suite runs through Prism's validating proxy. Prism must find
// nothing wrong with the correct stub, and must report the fault of a stub that wraps the list (the
// control that shows Prism really sat in the path and judged the answers).
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPORT_FILES } from '../reporters/index.js'
import { startStub, type FaultName, type Stub } from '../stub/index.js'
import type { Finding, RunResult } from './model.js'

const COMMAND = fileURLToPath(new URL('../bin/petstore-conformance.js', import.meta.url))
const KEY = 'crosscheck-key'

interface Outcome {
  code: number | null
  stderr: string
  report: RunResult
}

async function runViaPrism(stub: Stub, outputDir: string): Promise<Outcome> {
  const args = [COMMAND, '--base-url', stub.url, '--api-key', KEY, '--via-prism', '--reporter', 'json', '--output-dir', outputDir]
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stderr }))
  })
  const report = JSON.parse(await readFile(join(outputDir, REPORT_FILES.json), 'utf8')) as RunResult
  return { code, stderr, report }
}

const prismFindings = (report: RunResult): Finding[] => report.checks.filter((c) => c.source === 'prism').flatMap((c) => c.findings)

describe('the conformance suite through Prism', { timeout: 180_000 }, () => {
  const stubs: Stub[] = []
  const dirs: string[] = []
  let correct: Outcome
  let wrapped: Outcome

  async function runAgainst(fault: FaultName | undefined): Promise<Outcome> {
    const stub = await startStub({ apiKeys: [KEY], fault })
    stubs.push(stub)
    const dir = await mkdtemp(join(tmpdir(), 'prism-crosscheck-'))
    dirs.push(dir)
    return runViaPrism(stub, dir)
  }

  beforeAll(async () => {
    // One after the other: each run is a vitest process plus Prism, and npm test runs other files meanwhile.
    correct = await runAgainst(undefined)
    wrapped = await runAgainst('list-wrapped')
  }, 180_000)
  afterAll(async () => {
    await Promise.all(stubs.map((s) => s.close()))
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
  })

  it('finds no Prism violation on any exchange with the correct stub, and the suite agrees', () => {
    expect(correct.report.viaPrism).toBe(true)
    expect(prismFindings(correct.report).map((f) => `${f.checkId}: ${f.message}`)).toEqual([])
    expect(correct.report.checks.filter((c) => c.source === 'prism' && c.outcome !== 'passed')).toEqual([])
    expect({ code: correct.code, verdict: correct.report.verdict, stderr: correct.code === 0 ? '' : correct.stderr }).toEqual({ code: 0, verdict: 'conformant', stderr: '' })
  })

  it('reports, through Prism too, the list that is not an array', () => {
    expect(wrapped.code).toBe(1)
    const findings = prismFindings(wrapped.report)
    expect(findings.length).toBeGreaterThan(0)
    expect(findings.every((f) => f.source === 'prism' && f.severity === 'fail' && f.exchange !== undefined)).toBe(true)
    expect(findings.map((f) => `${f.operationId} ${f.checkId}: ${f.message}`)).toContain(
      'listPets prism.response-body: Response body must be array [Prism Error type at response.body]',
    )
  })
})
