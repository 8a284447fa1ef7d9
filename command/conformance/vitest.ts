/**
 * Runs the conformance scenarios in vitest, programmatically: no config file, one worker, the run's
 * configuration handed over with `provide`, the reporter handed over as an instance. Resolves to the run's
 * result as the reporter built it, or undefined when vitest ended without one.
 */
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startVitest } from 'vitest/node'
import type { RunResult } from '../../model/index.js'
import type { RunConfig } from '../../suites/index.js'

/** The vitest file that runs the scenarios, beside the suite's sources (TypeScript here, JavaScript once built). */
const RUNNER = fileURLToPath(
  new URL(`../../suites/conformance.vitest${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Runs the scenarios under vitest with `reporter`; resolves when every report is written. */
export async function runInVitest(
  config: RunConfig,
  reporter: object,
  result: () => RunResult | undefined,
): Promise<RunResult | undefined> {
  const vitest = await startVitest(
    'test',
    [],
    {
      config: false,
      root: ROOT,
      dir: ROOT,
      include: [relative(ROOT, RUNNER).split('\\').join('/')],
      watch: false,
      // One child process runs the scenarios: the command and it each stay small, where one process with a
      // worker thread holds both heaps at once. Young-generation space kept small: the run makes short-lived garbage.
      pool: 'forks',
      execArgv: ['--max-semi-space-size=1', '--max-old-space-size=320'],
      isolate: false,
      fileParallelism: false,
      maxWorkers: 1,
      maxConcurrency: 64, // the scenarios of a phase side by side; the transport bounds requests in flight
      testTimeout: 0, // a slow target is judged fully; the per-request timeout and --max-time bound the run
      hookTimeout: 60_000,
      passWithNoTests: true,
      cache: false,
      reporters: [reporter as never],
      provide: { conformance: config },
    } as never,
    { logLevel: 'error', cacheDir: join(ROOT, 'node_modules', '.vite-conformance') },
  )
  try {
    return result()
  } finally {
    await vitest.close()
  }
}
