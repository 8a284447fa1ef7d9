/**
 * Runs the conformance tests in vitest, programmatically: no config file, one worker, files in order (they
 * share the run's session), the resolved configuration handed over through `provide`, reporters by path.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BaseSequencer, startVitest, type TestSpecification } from 'vitest/node'
import type { Config } from './config.js'
import type { SuiteConfig } from './harness.js'

/** Where the project lives: the suite's files and the reporter are found from here. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url))

const CONFORMANCE_GLOB = 'suites/conformance/*.test.ts'
const REPORTER_PATH = join(PROJECT_ROOT, 'reporters', 'index.ts')
// Properties stop starting new runs this long before the run stops sending, so the tests after them still run.
const PROPERTY_MARGIN_MS = 6_000
// A property gets at most this share of --max-time (there are five), so on a slow target each gets a turn.
const PROPERTY_SHARE = 7

/** The target the run is pointed at. */
export interface Target {
  /** As reports show it, /v1 included. */
  baseUrl: string
  apiKey: string
  /** True when it is the stub the command started. */
  embedded: boolean
}

/** Everything `runSuite` needs. */
export interface SuiteRun {
  config: Config
  target: Target
  /** Where traffic goes when Prism's proxy sits in between. */
  sendBaseUrl?: string
  notices: string[]
  tool: { name: string; version: string }
  /** When the command started (epoch ms): `--max-time` counts from here. */
  started: number
}

/** Files run in name order (`1-auth` first): later files rely on what earlier ones created. */
class ByName extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0))
  }
}

/** The vitest reporters for the selected formats: ours by path, vitest's junit beside it. */
export function reportersFor(run: SuiteRun): unknown[] {
  const { config, target } = run
  const formats = config.reporters.filter((f) => f !== 'junit')
  const reporters: unknown[] = []
  if (formats.length) {
    if (existsSync(REPORTER_PATH)) {
      const runOptions = {
        tool: run.tool,
        target: { baseUrl: target.baseUrl, embedded: target.embedded },
        runId: config.runId,
        seed: config.seed,
        runs: config.runs,
        recordBudget: config.recordBudget,
        viaPrism: config.viaPrism,
        strict: config.strict,
        notices: run.notices,
      }
      reporters.push([REPORTER_PATH, { formats, outputDir: config.outputDir, run: runOptions }])
    } else {
      reporters.push('default')
    }
  }
  if (config.reporters.includes('junit')) reporters.push(['junit', { outputFile: join(config.outputDir, 'junit.xml'), suiteName: 'petstore-conformance' }])
  return reporters
}

/** Runs the suite and resolves to the exit code: 0 conformant, 1 at least one failing check. */
export async function runSuite(run: SuiteRun): Promise<number> {
  const { config, target } = run
  const provided: SuiteConfig = {
    baseUrl: target.baseUrl,
    ...(run.sendBaseUrl ? { sendBaseUrl: run.sendBaseUrl } : {}),
    apiKey: target.apiKey,
    seed: config.seed,
    runs: config.runs,
    timeoutMs: config.timeoutMs,
    checks: config.checks,
    operations: config.operations,
    strict: config.strict,
    viaPrism: config.viaPrism,
    runId: config.runId,
    allowances: config.allowances,
    stopAt: run.started + config.maxTimeS * 1000,
    propertiesStopAt: run.started + config.maxTimeS * 1000 - PROPERTY_MARGIN_MS,
    propertyBudgetMs: (config.maxTimeS * 1000) / PROPERTY_SHARE,
  }
  if (!config.reporters.includes('console')) {
    process.stdout.write(`${run.tool.name}: run ${config.runId}, seed ${config.seed} (replay with --seed ${config.seed}), against ${target.baseUrl}\n`)
  }
  const vitest = await startVitest(
    'test',
    [],
    {
      config: false,
      root: PROJECT_ROOT,
      include: [CONFORMANCE_GLOB],
      watch: false,
      pool: 'threads',
      isolate: false,
      fileParallelism: false,
      maxWorkers: 1,
      testTimeout: 120_000,
      hookTimeout: 30_000,
      passWithNoTests: true,
      cache: false, // runs may go on side by side; none needs another's timings
      reporters: reportersFor(run) as never,
      provide: { conformance: provided },
      sequence: { sequencer: ByName },
    } as never,
    { logLevel: 'error', cacheDir: join(PROJECT_ROOT, 'node_modules', '.vite-conformance') },
  )
  try {
    const modules = vitest.state.getTestModules()
    const failed = modules.some((m) => m.state() === 'failed' || [...m.children.allTests()].some((t) => t.result().state === 'failed'))
    const errors = vitest.state.getUnhandledErrors().length > 0
    return failed || errors ? 1 : 0
  } finally {
    await vitest.close()
  }
}
