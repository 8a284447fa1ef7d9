/**
 * The suite against services written on mainstream frameworks with their defaults (test-support/frameworks/),
 * in-process over loopback HTTP: it passes the conformant Express and Fastify services, judging every check that
 * applies, and fails each natural mistake of its framework with the check the mistake names (a run of that check
 * alone, to keep `npm test` fast). Whole runs of every case through the real command, at the default effort, are
 * tests/frameworks.e2e.test.ts (`npm run test:e2e`).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { runConformance } from '../command/library.js'
import type { RunResult } from '../model/index.js'
import { CHECKS } from '../suites/index.js'
import { FRAMEWORKS, holdPets, MISTAKE_CASES, type FrameworkName } from '../test-support/frameworks/index.js'
import { skippedForState } from '../test-support/premises.js'
import { targets, type Target } from '../test-support/targets.js'

const start = targets(afterEach)

const KEY = 'framework-key-5d02'
// The teeth's effort (every mistake below is caught by an example-based check), with a longer timeout: the service
// shares this process's event loop with the suite.
const EFFORT = { seed: 20301205, runs: 10, timeoutMs: 5000 }

const failed = (run: RunResult) =>
  run.checks.filter((c) => c.outcome === 'failed' && c.severity === 'fail').map((c) => c.id)
const broken = (run: RunResult) =>
  run.checks.filter((c) => c.outcome === 'error' || c.outcome === 'unjudged').map((c) => `${c.id}: ${c.reason ?? ''}`)

/** Runs the suite (or only `checks`) against a target holding a few pets already, then stops the target. */
async function judged(target: Target, checks?: string[]): Promise<RunResult> {
  try {
    await holdPets(target, 6)
    return await runConformance({ baseUrl: target.url, apiKey: KEY, ...EFFORT, ...(checks ? { checks } : {}) })
  } finally {
    await target.close()
  }
}

describe('services on mainstream frameworks', () => {
  it('are independent implementations: they import only packages and each other', () => {
    const folder = new URL('../test-support/frameworks/', import.meta.url)
    const files = readdirSync(folder).filter((file) => file.endsWith('.ts'))
    expect(files).toContain('express.ts')
    for (const file of files) {
      const text = readFileSync(new URL(file, folder), 'utf8')
      const relative = [...text.matchAll(/from '(\.[^']*)'/g)].map((match) => match[1]!)
      expect(
        relative.filter((path) => !path.startsWith('./')),
        file,
      ).toEqual([])
      expect(text, file).not.toMatch(/petstore\.yaml/)
    }
  })

  it('name, for every mistake, a check of the table', () => {
    const ids = new Set<string>(CHECKS.map((c) => c.id))
    for (const { framework, mistake, catches } of MISTAKE_CASES)
      expect(ids.has(catches), `${framework} ${mistake}`).toBe(true)
  })

  for (const name of Object.keys(FRAMEWORKS) as FrameworkName[]) {
    it(`passes the conformant ${name} service, judging every check that applies`, async () => {
      const run = await judged(await start({ framework: name, keys: [KEY] }))
      expect(broken(run)).toEqual([])
      expect(failed(run)).toEqual([])
      expect(run.verdict).toBe('conformant')
      // Only advice may find nothing to judge (neither framework answers an undocumented method with 405), and what
      // the pets it holds rule out (no empty list: they hold every status).
      expect(
        run.checks
          .filter((c) => c.outcome === 'skipped' && c.severity !== 'advice' && !skippedForState(c))
          .map((c) => c.id),
      ).toEqual([])
      expect(run.checks.find((c) => c.id === 'getPet.keeps-existing')?.outcome).toBe('passed')
    })
  }

  for (const { framework, mistake, catches } of MISTAKE_CASES) {
    it(`fails ${framework} with the mistake "${mistake}" through ${catches}`, async () => {
      const run = await judged(await start({ framework, keys: [KEY], mistake }), [catches])
      expect(broken(run)).toEqual([])
      expect(failed(run)).toContain(catches)
      expect(run.verdict).toBe('non-conformant')
    })
  }
})
