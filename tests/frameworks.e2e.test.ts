/**
 * The conformance command (a child process, as a user runs it) against services written on mainstream frameworks
 * with their defaults (test-support/frameworks/): the conformant Express and Fastify services exit 0 at the default
 * effort, every check that applies judged; each natural mistake of its framework exits 1 and names the check the
 * mistake names. Fixed seeds make every run replayable. The same in-process is tests/frameworks.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { brokenChecks, failedChecks } from '../test-support/run-command.js'
import { judge, runsUpFront } from '../test-support/up-front.js'
import { FRAMEWORKS, holdPets, MISTAKE_CASES, type FrameworkName } from '../test-support/frameworks/index.js'
import { skippedForState } from '../test-support/premises.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterAll)

const KEY = 'framework-key-5d02'
// Conformant services get the default effort, as a user runs it; mistakes the teeth's effort.
// A generous per-request timeout: these runs share two cores with other e2e files, and a slow answer here is the
// machine's, not a choice of the service's.
const CONFORMANT_FLAGS = ['--seed', '20240601', '--timeout', '30000', '--reporter', 'json']
const MISTAKE_FLAGS = ['--runs', '10', '--seed', '20301205', '--timeout', '1000', '--reporter', 'json']
const PARALLEL = 2

interface Case {
  name: string
  framework: FrameworkName
  mistake?: string
}

const cases: Case[] = [
  ...(Object.keys(FRAMEWORKS) as FrameworkName[]).map((framework) => ({ name: `${framework} conformant`, framework })),
  ...MISTAKE_CASES.map(({ framework, mistake }) => ({ name: `${framework} ${mistake}`, framework, mistake })),
]

const runOf = runsUpFront(
  cases,
  (c) => c.name,
  async ({ framework, mistake }) => {
    const target = await start({ framework, keys: [KEY], ...(mistake ? { mistake } : {}) })
    try {
      if (!mistake) await holdPets(target, 6)
      return await judge(target.url, KEY, mistake ? MISTAKE_FLAGS : CONFORMANT_FLAGS)
    } finally {
      await target.close()
    }
  },
  PARALLEL,
)

describe('services on mainstream frameworks, through the command', () => {
  for (const framework of Object.keys(FRAMEWORKS)) {
    it(`passes the conformant ${framework} service: exit 0, every check that applies judged`, () => {
      const run = runOf(`${framework} conformant`)
      expect(brokenChecks(run.report)).toEqual([])
      expect(failedChecks(run.report)).toEqual([])
      expect(run.code, run.stderr).toBe(0)
      expect(run.report?.verdict).toBe('conformant')
      const skipped = run.report!.checks.filter(
        (c) => c.outcome === 'skipped' && c.severity !== 'advice' && !skippedForState(c),
      )
      expect(skipped.map((c) => c.id)).toEqual([])
      expect(run.stdout + run.stderr).not.toContain(KEY)
    })
  }

  for (const { framework, mistake, catches } of MISTAKE_CASES) {
    it(`fails ${framework} with the mistake "${mistake}" through ${catches}: exit 1`, () => {
      const run = runOf(`${framework} ${mistake}`)
      expect(brokenChecks(run.report)).toEqual([])
      expect(failedChecks(run.report)).toContain(catches)
      expect(run.code, run.stderr).toBe(1)
      expect(run.report?.verdict).toBe('non-conformant')
      const check = run.report!.checks.find((c) => c.id === catches)!
      for (const finding of check.findings) expect(finding.curl).toMatch(/^curl /)
    })
  }
})
