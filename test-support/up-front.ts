/** For e2e files: every case's command run up front, a few at a time, then read by name by the tests. */
import { beforeAll } from 'vitest'
import { pool } from '../scripts/pool.js'
import { runCommand, type ConformanceRun } from './run-command.js'

/** Runs the conformance command against `url`, the key from the environment as a user's CI passes it. */
export function judge(url: string, key: string, flags: readonly string[]): Promise<ConformanceRun> {
  return runCommand('conformance', ['--base-url', url, ...flags], {
    env: { PETSTORE_API_KEY: key },
    timeoutMs: 5 * 60_000,
  })
}

/**
 * Runs every case in a `beforeAll`, `parallel` at a time (each is a node process with vitest inside, on a 2-core
 * machine), so that no test's timeout includes its wait for a turn. Returns the run of a case by name, throwing
 * with what the command printed when it could not judge the target (exit 2, or no exit).
 */
export function runsUpFront<C>(
  cases: readonly C[],
  nameOf: (c: C) => string,
  runCase: (c: C) => Promise<ConformanceRun>,
  parallel = 2,
): (name: string) => ConformanceRun {
  const runs = new Map<string, ConformanceRun>()
  beforeAll(async () => {
    await pool(cases, parallel, async (c) => {
      runs.set(nameOf(c), await runCase(c))
    })
  }, 30 * 60_000)
  return (name) => {
    const run = runs.get(name)
    if (!run) throw new Error(`no run for ${name}`)
    if (run.code === 2 || run.code === null)
      throw new Error(
        `${name}: the command could not run (exit ${run.code ?? run.signal}):\n${(run.stderr + run.stdout).slice(0, 4000)}`,
      )
    return run
  }
}
