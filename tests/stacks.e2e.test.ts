/**
 * The conformance command (a child process, as a user runs it) against conformant services as other stacks and
 * proxies serve them (test-support/stacks.ts): every one exits 0 at the default effort, every check that applies
 * judged, and each natural mistake of a stack exits 1 and names the check the mistake names. The same for a
 * representative two in-process is tests/stacks.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { brokenChecks, failedChecks } from '../test-support/run-command.js'
import { judge, runsUpFront } from '../test-support/up-front.js'
import { STACK_MISTAKES, STACKS } from '../test-support/stacks.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterAll)

const KEY = 'stack-key-3e91'
// Conformant services get the default effort, as a user runs it; mistakes the teeth's effort.
// A generous per-request timeout: these runs share two cores with other e2e files, and a slow answer here is the
// machine's, not a choice of the service's.
const CONFORMANT_FLAGS = ['--seed', '20240601', '--timeout', '30000', '--reporter', 'json']
const MISTAKE_FLAGS = ['--runs', '10', '--seed', '20301205', '--reporter', 'json']
const PARALLEL = 2

const conformant = Object.keys(STACKS) as (keyof typeof STACKS)[]
const mistakes = Object.keys(STACK_MISTAKES) as (keyof typeof STACK_MISTAKES)[]
const runOf = runsUpFront(
  [...conformant, ...mistakes],
  (name) => name,
  async (name) => {
    const target = await start({ stack: name, keys: [KEY] })
    try {
      return await judge(target.url, KEY, name in STACK_MISTAKES ? MISTAKE_FLAGS : CONFORMANT_FLAGS)
    } finally {
      await target.close()
    }
  },
  PARALLEL,
)

describe('services as other stacks and proxies serve them, through the command', () => {
  for (const name of conformant) {
    it(`passes the conformant service on ${name}: exit 0, every check that applies judged`, () => {
      const run = runOf(name)
      expect(brokenChecks(run.report)).toEqual([])
      expect(failedChecks(run.report)).toEqual([])
      expect(run.code, run.stderr).toBe(0)
      expect(run.report?.verdict).toBe('conformant')
      expect(run.stdout + run.stderr).not.toContain(KEY)
    })
  }

  for (const name of mistakes) {
    it(`fails ${name} through ${STACK_MISTAKES[name].catches}: exit 1`, () => {
      const run = runOf(name)
      expect(brokenChecks(run.report)).toEqual([])
      expect(failedChecks(run.report)).toContain(STACK_MISTAKES[name].catches)
      expect(run.code, run.stderr).toBe(1)
      expect(run.report?.verdict).toBe('non-conformant')
    })
  }
})
