/**
 * The conformance command against an independent implementation of the interface (test-support/targets/):
 * every conformant configuration exits 0, every single fault exits 1 and names a failed fail-severity check.
 * The real command runs in child processes (`npm run test:e2e`), two targets at a time, with a fixed seed so a
 * failure here replays exactly. Arguable choices (JUDGEMENT_CALLS) are not asserted:
 * `npx tsx test-support/targets/measure.ts calls` shows them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pool } from '../scripts/pool.js'
import { brokenChecks, failedChecks, runCommand, type ConformanceRun } from '../test-support/run-command.js'
import { CONFORMANT, CORE_FAULTS, FAULT_CASES as ALL_FAULT_CASES } from '../test-support/targets/catalogue.js'
import type { TargetFault, TargetOptions } from '../test-support/targets/server.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterAll)

// Conformant targets get the default effort, as a user runs it: more runs, more chances to fail a fair target.
// Faults get the teeth's effort (fewer runs, a short timeout), enough for every core fault with this seed.
// Fixed seeds make every run replayable.
const CONFORMANT_FLAGS = ['--seed', '20240601', '--reporter', 'json']
const FAULT_FLAGS = ['--runs', '10', '--seed', '20301205', '--timeout', '1000', '--reporter', 'json']
const PARALLEL = 2

// The core faults by default, to keep the e2e run within minutes; TARGETS=all runs every fault of the catalogue.
const FAULT_CASES =
  process.env.TARGETS === 'all' ? ALL_FAULT_CASES : ALL_FAULT_CASES.filter((c) => CORE_FAULTS.includes(c.fault))

/** The check that catches each fault, where one does so on every run (others are caught by several, varying). */
const EXPECTED_CHECK: Partial<Record<TargetFault, string>> = {
  'limit-plus-one': 'listPets.limit.max',
  'default-limit-10': 'listPets.limit.default',
  'max-limit-99': 'listPets.limit.fills',
  'limit-100-500': 'response.no-server-error',
  'limit-string-compare': 'listPets.valid-query-accepted',
  'limit-over-50-400': 'listPets.valid-query-accepted',
  'list-cache': 'listPets.finds-created',
  'list-duplicates': 'listPets.unique-in-page',
  'bad-limit-500': 'response.no-server-error',
  'skips-newest': 'listPets.finds-created',
  'filter-after-page': 'listPets.finds-created',
  'pending-returns-all': 'listPets.status.filter',
  'sold-filter-ignored': 'listPets.status.filter',
  'status-default-limit-100': 'listPets.limit.default',
  'limit-ignored-with-status': 'listPets.limit.max',
  'statusless-as-available': 'listPets.status.filter',
  'list-drops-status': 'listPets.finds-created',
  'list-hides-statusless': 'listPets.finds-created',
  'list-category-double': 'response.schema',
  'list-trailing-garbage': 'response.schema',
  'chunked-garbage': 'transport.ok',
  'single-unwrapped': 'response.schema',
  'empty-list-null': 'response.schema',
  'list-name-truncated-50': 'listPets.finds-created',
  'adopted-in-list': 'response.schema',
  'legacy-null-category': 'response.schema',
  'get-null-200': 'getPet.unknown-404',
  'get-huge-id-400': 'getPet.unknown-404',
  'evicts-oldest': 'getPet.keeps-existing',
  'not-found-no-status': 'response.schema',
  'get-hides-sold': 'getPet.returns-created',
  'get-wrapped': 'response.schema',
  'get-category-double': 'getPet.returns-created',
  'deprecated-get-410': 'response.status-documented',
  'get-stale-cache': 'getPet.returns-created',
  'slow-get-sold': 'transport.ok',
  'get-id-double': 'getPet.returns-created',
  'category-string-accepted': 'createPet.rejects-invalid',
  'category-missing-accepted': 'createPet.rejects-invalid',
  'name-null-accepted': 'createPet.rejects-invalid',
  'name-number-accepted': 'createPet.rejects-invalid',
  'status-case-folded': 'createPet.rejects-invalid',
  'array-body-first': 'createPet.rejects-invalid',
  'status-null-accepted': 'createPet.rejects-invalid',
  'fraction-truncated': 'createPet.rejects-invalid',
  'invalid-422': 'createPet.rejects-invalid',
  'invalid-json-500': 'response.no-server-error',
  'negative-category-rejected': 'createPet.accepts-valid',
  'empty-name-rejected': 'createPet.accepts-valid',
  'falsy-category-rejected': 'createPet.accepts-valid',
  'big-category-rejected': 'createPet.accepts-valid',
  'unicode-latin1': 'createPet.echo',
  'name-trimmed': 'createPet.echo',
  'name-html-escaped': 'createPet.echo',
  'name-nfc': 'createPet.echo',
  'nul-500': 'response.no-server-error',
  'bom-prefix': 'response.schema',
  'mass-assignment': 'createPet.assigns-id',
  'dedupe-by-name': 'createPet.ids-unique',
  'utf8mb3-astral': 'createPet.echo',
  'category-int32': 'createPet.echo',
  'big-ints-as-strings': 'response.schema',
  'sold-stored-as-available': 'getPet.returns-created',
  'null-status': 'response.schema',
  'id-as-double': 'getPet.returns-created',
  'ids-as-strings': 'response.schema',
  'ids-wrap-64': 'createPet.ids-unique',
  'create-no-content-type': 'response.content-type',
  'create-returns-list': 'response.schema',
  'create-id-only': 'response.schema',
  'echo-spreads-body': 'createPet.assigns-id',
  'drop-on-sold-create': 'transport.ok',
  'compare-min-length': 'listPets.auth.required',
  'any-scheme': 'listPets.auth.required',
  'key-case-insensitive': 'listPets.auth.required',
  'validate-before-auth': 'createPet.auth.required',
  'get-no-auth': 'getPet.auth.required',
  'auth-after-lookup': 'getPet.auth.required',
  'html-401': 'response.content-type',
  'wrong-key-403': 'listPets.auth.required',
  'unauth-body-403': 'error.status-echoed',
  'error-text-plain': 'response.content-type',
}

interface Case {
  name: string
  options: TargetOptions
  flags: string[]
}

const cases: Case[] = [
  ...Object.entries(CONFORMANT).map(([name, options]) => ({
    name: `conformant ${name}`,
    options,
    flags: CONFORMANT_FLAGS,
  })),
  ...FAULT_CASES.map(({ fault, options }) => ({ name: `fault ${fault}`, options, flags: FAULT_FLAGS })),
]

/** What one case's run gave: its exit code, the failed fail-severity checks and the checks that broke. */
interface Verdict {
  code: number | null
  failed: string[]
  errors: string[]
  run: ConformanceRun
}

const verdicts = new Map<string, Verdict>()

// The commands run up front, two at a time, so that no test's timeout includes its wait for a turn.
beforeAll(async () => {
  await pool(cases, PARALLEL, async ({ name, options, flags }) => {
    const target = await start({ independent: options })
    try {
      const run = await runCommand('conformance', ['--base-url', target.url, '--api-key', target.key, ...flags], {
        timeoutMs: 5 * 60_000,
      })
      verdicts.set(name, { code: run.code, failed: failedChecks(run.report), errors: brokenChecks(run.report), run })
    } finally {
      await target.close()
    }
  })
}, 30 * 60_000)

/** The verdict of one case, with what the run printed when it could not run at all. */
function verdictOf(name: string): Verdict {
  const verdict = verdicts.get(name)
  if (!verdict) throw new Error(`no verdict for ${name}`)
  if (verdict.code === 2 || verdict.code === null) {
    throw new Error(
      `${name}: the command could not run (exit ${verdict.code ?? verdict.run.signal}):\n${(verdict.run.stderr + verdict.run.stdout).slice(0, 4000)}`,
    )
  }
  return verdict
}

describe('conformant targets: the command exits 0', () => {
  for (const name of Object.keys(CONFORMANT)) {
    it(name, () => {
      const verdict = verdictOf(`conformant ${name}`)
      expect(verdict.failed, 'failed fail-severity checks').toEqual([])
      expect(verdict.errors, 'checks that broke').toEqual([])
      expect(verdict.code).toBe(0)
    })
  }
})

describe('faulty targets: the command exits 1 and names the failed check', () => {
  for (const { fault } of FAULT_CASES) {
    it(fault, () => {
      const verdict = verdictOf(`fault ${fault}`)
      expect(verdict.code, `failed: ${verdict.failed.join(', ')}`).toBe(1)
      expect(verdict.failed.length).toBeGreaterThan(0)
      const expected = EXPECTED_CHECK[fault]
      if (expected) expect(verdict.failed).toContain(expected)
    })
  }
})
