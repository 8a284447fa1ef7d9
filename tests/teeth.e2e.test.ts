/**
 * The suite has teeth through the real command (`bin/petstore-conformance.js` in a child process, as a user
 * runs it): it passes the correct stub without writing the key anywhere, and fails every fault of the stub's
 * table with the check the fault names, each finding with a curl line that replays it. The same runs
 * in-process are tests/teeth.test.ts (`npm test`); these are `npm run test:e2e`.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { FAULTS, type FaultName } from '../stub/index.js'
import { brokenChecks, failedChecks } from '../test-support/run-command.js'
import { judge, runsUpFront } from '../test-support/up-front.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterAll)

const KEY = 'teeth-key-8c1f0e'
const SEED = '20301205'
// Fewer runs than a default run: every fault below is caught by an example-based check or an early run.
const EFFORT = ['--runs', '10', '--timeout', '1000', '--seed', SEED, '--max-time', '600']
const ALL_REPORTERS = ['console', 'junit', 'json', 'html', 'markdown'].flatMap((f) => ['--reporter', f])
const CORRECT = 'the correct stub'
const PARALLEL = 2

/** Every stub the command runs against, by name, with the fault it carries (none for the correct one). */
const TARGETS: [string, FaultName | undefined][] = [
  [CORRECT, undefined],
  ...(Object.keys(FAULTS) as FaultName[]).map((f): [string, FaultName] => [f, f]),
]

const runOf = runsUpFront(
  TARGETS,
  ([name]) => name,
  async ([name, fault]) => {
    const stub = await start({
      stub: {
        apiKeys: [KEY],
        fault,
        ...(fault && FAULTS[fault].emptyStore ? { seed: false } : {}),
      },
    })
    try {
      // The key from the environment, as the printed replay lines expect it.
      return await judge(stub.url, KEY, [...EFFORT, ...(name === CORRECT ? ALL_REPORTERS : ['--reporter', 'json'])])
    } finally {
      await stub.close()
    }
  },
  PARALLEL,
)

describe('teeth, through the command', () => {
  it('passes the correct stub, and the key appears in no output and no report file', () => {
    const run = runOf(CORRECT)
    expect(brokenChecks(run.report)).toEqual([])
    expect(failedChecks(run.report)).toEqual([])
    expect(run.code, run.stderr).toBe(0)
    expect(run.report?.verdict).toBe('conformant')
    expect(run.report!.recordsCreated).toBeLessThanOrEqual(run.report!.recordBudget)
    expect(Object.keys(run.files)).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
    expect(run.stdout + run.stderr).not.toContain(KEY)
    for (const [file, text] of Object.entries(run.files)) expect(text, file).not.toContain(KEY)
    expect(run.stdout).toContain(SEED)
  })

  for (const name of Object.keys(FAULTS) as FaultName[]) {
    const catches = FAULTS[name].catches
    it(`fails the fault "${name}" with ${catches}`, () => {
      const run = runOf(name)
      // A fault may leave checks unjudged (a request that hung); none may break.
      expect(run.report!.checks.filter((c) => c.outcome === 'error').map((c) => `${c.id}: ${c.reason ?? ''}`)).toEqual(
        [],
      )
      expect(failedChecks(run.report)).toContain(catches)
      expect(run.code, run.stderr).toBe(1)
      expect(run.report?.verdict).toBe('non-conformant')
      // Each finding shows the request (redacted) and how to replay it.
      const check = run.report!.checks.find((c) => c.id === catches)!
      expect(check.findings.length).toBeGreaterThan(0)
      for (const finding of check.findings) {
        expect(finding.exchange?.request.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/pets/)
        expect(finding.curl).toMatch(/^curl /)
      }
      if (name === 'limit-ignored') expect(check.findings.map((f) => f.counterexample)).toContain('GET /pets?limit=1')
    })
  }
})
