/**
 * Runs the conformance scenarios in vitest, programmatically: no config file, one worker, the run's
 * configuration handed over with `provide`, the reporter handed over as an instance. Resolves to the run's
 * result as the reporter built it, or undefined when vitest ended without one.
 */
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startVitest, type Vitest } from 'vitest/node'
import type { RunResult } from '../../model/index.js'
import type { RunConfig } from '../../suites/index.js'

/** The vitest file that runs the scenarios, beside the suite's sources (TypeScript here, JavaScript once built). */
const RUNNER = fileURLToPath(
  new URL(`../../suites/conformance.vitest${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
)
/** The folder of the command's modules: the sources, or the build (dist/) that the commands run. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The modules the worker imports itself, untouched by vite: the build's JavaScript, which needs no transform (vite's
 * module runner would send each one from this process to the worker, keeping a transformed copy here). Run from the
 * TypeScript sources, vite transforms them.
 */
const NATIVE = import.meta.url.endsWith('.js')
  ? [
      new RegExp(
        `^${ROOT.split('\\')
          .join('/')
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    ]
  : []

/**
 * Runs the scenarios under vitest with `reporter`; resolves when every report is written. When `stop` aborts, the
 * run is cancelled: the scenarios under way stop sending, and the reporter gets what was judged.
 */
export async function runInVitest(
  config: RunConfig,
  reporter: object,
  result: () => RunResult | undefined,
  stop?: AbortSignal,
): Promise<RunResult | undefined> {
  let running: Vitest | undefined
  const cancel = () => void running?.cancelCurrentRun('keyboard-input')
  stop?.addEventListener('abort', cancel, { once: true })
  // Vitest ends the process on SIGINT and SIGTERM (its terminal clean-up): the command handles them itself (the run
  // cancelled, its reports written, its processes stopped), so the listeners vitest adds are taken off again.
  const SIGNALS = ['SIGINT', 'SIGTERM'] as const
  const ours = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]))
  const takeOffTheirs = () => {
    for (const signal of SIGNALS)
      for (const listener of process.listeners(signal))
        if (!ours.get(signal)!.has(listener)) process.off(signal, listener)
  }
  // Vitest hands its instance to reporters: the way to cancel the run it is running.
  const canceller = {
    onInit: (vitest: Vitest) => {
      running = vitest
      takeOffTheirs()
    },
    onTestRunStart: () => (stop?.aborted ? cancel() : undefined),
  }
  const starting = startVitest(
    'test',
    [],
    {
      config: false,
      root: ROOT,
      dir: dirname(RUNNER), // the runner's folder alone is searched for test files, not the whole checkout
      include: [basename(RUNNER)],
      watch: false,
      // One child process runs the scenarios: the command and it each stay small, where one process with a
      // worker thread holds both heaps at once. Young-generation space kept small (the run makes short-lived garbage),
      // but not so small that scavenges take a tenth of the run: 4 MB costs no more memory than 1 MB, and 0.3 s less CPU.
      pool: 'forks',
      execArgv: ['--max-semi-space-size=4', '--max-old-space-size=320'],
      isolate: false,
      fileParallelism: false,
      maxWorkers: 1,
      maxConcurrency: 64, // the scenarios of a phase side by side; the transport bounds requests in flight
      testTimeout: 0, // a slow target is judged fully; the per-request timeout and --max-time bound the run
      hookTimeout: 60_000,
      passWithNoTests: true,
      cache: false,
      reporters: [reporter as never, canceller],
      provide: { conformance: config },
      server: { deps: { external: NATIVE } },
    } as never,
    { logLevel: 'error', cacheDir: join(ROOT, 'node_modules', '.vite-conformance') },
  )
  // Vitest's logger adds its listeners as vitest is constructed, before startVitest's first await: taken off at once,
  // a signal while vitest starts (its config, its vite server, its worker) cancels the run like any other.
  takeOffTheirs()
  const vitest = await starting
  try {
    return result()
  } finally {
    stop?.removeEventListener('abort', cancel)
    await vitest.close()
  }
}
