/**
 * The `petstore-conformance` command: resolves the configuration, picks the target (or starts the embedded
 * stub), makes sure the run can be judged, runs the scenarios in vitest with the reporter, and exits with the
 * code of the run's verdict: 0 conformant, 1 at least one failing check, 2 could not run or could not finish.
 * Everything it prints passes through one redactor that knows the key by value.
 */
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { access, mkdir } from 'node:fs/promises'
import {
  exitCode,
  keySecrets,
  Redactor,
  type CatalogueEntry,
  type RunResult,
  type ScenarioRecord,
  type WaitNotice,
} from '../../model/index.js'
import { waitingText } from '../../reporters/index.js'
import type { ReporterOptions } from '../../reporters/index.js'
import { spec, useSpec } from '../../spec/index.js'
import { catalogue, catalogueSize, type RunConfig } from '../../suites/index.js'
import { UsageError } from '../usage-error.js'
import { resolveConfig, type Config } from './config.js'
import { runConfig } from './run-config.js'
import { CannotRunError, prefixCatalogue, preflight } from './preflight.js'
import { placeOf, placeOfConfig, writeCannotRun, type CannotRunFacts } from './cannot-run.js'
import { NAME, prismInFront, VERSION } from './tool.js'
import { usage } from './usage.js'

/** Things to stop when the command ends, last started first. */
type Stopper = () => Promise<void>

/** The target a run goes to. */
interface Target {
  baseUrl: string
  apiKey: string
  embedded: boolean
}

async function startTarget(config: Config, stoppers: Stopper[]): Promise<Target> {
  if (config.baseUrl) return { baseUrl: config.baseUrl, apiKey: config.apiKey!, embedded: false }
  const { startStub } = await import('../../stub/index.js')
  const apiKey = config.apiKey ?? `pcs-${randomBytes(12).toString('hex')}`
  const stub = await startStub({ port: 0, host: '127.0.0.1', apiKeys: [apiKey], quiet: true, spec: config.spec })
  stoppers.push(() => stub.close())
  return { baseUrl: stub.url, apiKey, embedded: true }
}

async function startPrism(target: Target, stoppers: Stopper[], specPath?: string): Promise<string> {
  const proxy = await prismInFront(target.baseUrl, specPath)
  stoppers.push(() => proxy.close())
  return proxy.url
}

// Reports are written at the very end; an unwritable directory must stop the run before it starts.
async function ensureOutputDir(config: Config): Promise<void> {
  if (!config.reporters.some((r) => r !== 'console')) return
  try {
    await mkdir(config.outputDir, { recursive: true })
    await access(config.outputDir, constants.W_OK)
  } catch (error) {
    throw new UsageError(
      `cannot write reports to ${config.outputDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
}

/** Sends everything written to stdout and stderr through the redactor; returns how to undo it. */
function redactOutput(redactor: Redactor): () => void {
  const streams = [process.stdout, process.stderr]
  const originals = streams.map((stream) => stream.write.bind(stream))
  streams.forEach((stream, i) => {
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      (originals[i] as (...args: unknown[]) => boolean)(
        typeof chunk === 'string'
          ? redactor.text(chunk)
          : Buffer.isBuffer(chunk)
            ? redactor.text(chunk.toString('utf8'))
            : chunk,
        ...rest,
      )) as typeof stream.write
  })
  return () => streams.forEach((stream, i) => (stream.write = originals[i] as typeof stream.write))
}

/** Runs the command with `argv` and `env`; resolves to the exit code. Never throws. */
export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const started = Date.now()
  const stoppers: Stopper[] = []
  const stopAll = async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop().catch(() => undefined)
  }
  // SIGINT or SIGTERM: the run in vitest is cancelled and its reports written with what was judged, then every
  // process the command started is stopped and it exits 2. Before the run (or at a second signal, or when the run
  // does not end soon), everything is stopped at once.
  const stop = new AbortController()
  let judging = false
  const interrupted = (signal: NodeJS.Signals) => {
    const hard = () =>
      void stopAll().finally(() => {
        process.stderr.write(`${NAME}: interrupted by ${signal} before every check was judged\n`)
        process.exit(2)
      })
    if (stop.signal.aborted || !judging) return hard()
    stop.abort(signal)
    setTimeout(hard, INTERRUPT_GRACE_MS).unref()
  }
  process.on('SIGINT', interrupted)
  process.on('SIGTERM', interrupted)
  let restore = () => {}
  let config: Config | undefined
  let target: Target | undefined
  let outputReady = false
  try {
    config = resolveConfig(argv, env)
    useSpec(config.spec) // the preflight, the catalogue and the reports follow the spec of the run
    if (config.help) {
      process.stdout.write(usage())
      return 0
    }
    if (config.version) {
      process.stdout.write(`${VERSION}\n`)
      return 0
    }
    restore = redactOutput(new Redactor(keySecrets(config.apiKey)))
    await ensureOutputDir(config)
    outputReady = true
    if (config.replay !== undefined) {
      const { replay } = await import('./replay.js')
      return await replay(config)
    }
    // The first lines at once (the embedded stub starts in a moment), before vitest loads: CI logs show the run has
    // begun, against what, and the seed that replays it.
    target = await startTarget(config, stoppers)
    if (!config.quiet) process.stdout.write(`${startingLine(config, target)}\n${seedLine(config)}\n\n`)
    restore()
    restore = redactOutput(new Redactor(keySecrets(target.apiKey)))
    const sendBaseUrl = config.viaPrism ? await startPrism(target, stoppers, config.specPath) : undefined
    const run = runConfig(config, { baseUrl: target.baseUrl, apiKey: target.apiKey, sendBaseUrl }, started)
    const { prefixMissing } = await preflight(run, undefined, config.quiet ? undefined : waitLine)
    judging = true
    const { result, writeErrors } = prefixMissing
      ? await reportAlone(config, target, prefixMissing, started, process.stdout.isTTY === true && !env.NO_COLOR)
      : await judge(config, run, target, env, stop.signal)
    if (!result) throw new Error('the run ended without a result')
    if (writeErrors.length) throw new UsageError(`could not write every report: ${writeErrors[0]}`)
    if (stop.signal.aborted) {
      // An interrupted run could not finish, whatever it found before: its reports say what was judged.
      process.stderr.write(`${NAME}: ${interruptedLine(stop.signal)}; the reports hold what was judged\n`)
      return 2
    }
    if (result.verdict === 'incomplete')
      process.stderr.write(`${NAME}: ${result.incomplete ?? 'incomplete: not every check was judged'}\n`)
    return exitCode(result)
  } catch (error) {
    const message =
      error instanceof UsageError ? error.message : `could not run: ${(error as Error)?.message ?? String(error)}`
    const line = message.split('\n')[0] ?? message
    // Before any check was judged: the reports say why all the same (a CI summary and artifact are never empty).
    if (!judging || error instanceof CannotRunError) {
      const place = config
        ? outputReady && config.replay === undefined
          ? placeOfConfig(config, target?.baseUrl, target?.apiKey)
          : undefined
        : placeOf(argv, env)
      if (place) {
        const tried = error instanceof CannotRunError ? error.tried : []
        await writeCannotRun(place, cannotRunFacts(config, started), line, tried)
      }
    }
    process.stderr.write(`${NAME}: ${line}\n`)
    return 2
  } finally {
    await stopAll()
    restore()
    process.off('SIGINT', interrupted)
    process.off('SIGTERM', interrupted)
  }
}

/** `running 61 checks against https://staging.example/v1 …`: what the run is about to do. */
export function startingLine(
  config: Pick<Config, 'checks' | 'operations' | 'viaPrism' | 'baseUrl'>,
  started?: Pick<Target, 'baseUrl' | 'embedded'>,
): string {
  const count = catalogue(config, spec()).length
  const target = started
    ? `${started.baseUrl}${started.embedded ? ' (the embedded stub)' : ''}`
    : (config.baseUrl ?? 'the embedded stub')
  return `running ${count} check${count === 1 ? '' : 's'} against ${target}${config.viaPrism ? ' through Prism' : ''} …`
}

/** `run 1p49afc · seed -530989762 · 30 runs per property`: what replays the run, printed before anything is sent. */
export function seedLine(config: Pick<Config, 'runId' | 'seed' | 'runs'>): string {
  return `run ${config.runId} · seed ${config.seed} · ${config.runs} runs per property`
}

// While the preflight waits for a throttling target: one line per wait, so a slow start is never silent.
const waitLine = (wait: WaitNotice) => process.stdout.write(`${waitingText(wait)}\n`)

/** What a run that could not be done reports besides its place: the catalogue it would have judged. */
function cannotRunFacts(config: Config | undefined, started: number): CannotRunFacts {
  const selected = config ?? { checks: [], operations: [], viaPrism: false }
  return {
    tool: { name: NAME, version: VERSION },
    catalogue: catalogue(selected, spec()),
    catalogueSize: catalogueSize(selected.viaPrism),
    operationOrder: Object.keys(spec().operations),
    specVersion: config?.spec.version ?? spec().version,
    seed: config?.seed ?? 0,
    runs: config?.runs ?? 0,
    ...(config ? { runId: config.runId } : {}),
    recordBudget: config?.recordBudget ?? 0,
    strict: config?.strict ?? false,
    viaPrism: selected.viaPrism,
    started,
  }
}

/** How long an interrupted run may take to write its reports before everything is stopped at once. */
const INTERRUPT_GRACE_MS = 15_000

const interruptedLine = (signal: AbortSignal) =>
  `interrupted by ${String(signal.reason ?? 'a signal')} before every check was judged`

/** What the reporter is told of the run besides its records. */
function reporterFacts(config: Config, target: Target, catalogueOf: CatalogueEntry[]): ReporterOptions['facts'] {
  return {
    tool: { name: NAME, version: VERSION },
    target: { baseUrl: target.baseUrl, embedded: target.embedded },
    runId: config.runId,
    seed: config.seed,
    runs: config.runs,
    recordBudget: config.recordBudget,
    viaPrism: config.viaPrism,
    strict: config.strict,
    specVersion: config.spec.version,
    notices: config.spec.readings.map((reading) => reading.text),
    catalogue: catalogueOf,
    catalogueSize: catalogueSize(config.viaPrism),
    operationOrder: Object.keys(config.spec.operations),
  }
}

/**
 * A run judged by the preflight alone (the service answers without the documented version prefix): its one failing
 * check reported in every selected format, as a run in vitest would be.
 */
async function reportAlone(
  config: Config,
  target: Target,
  record: ScenarioRecord,
  started: number,
  color: boolean,
): Promise<{ result: RunResult; writeErrors: string[] }> {
  const { buildRunResult } = await import('../../model/index.js')
  const { toConsole, verdictOnly, writeReports } = await import('../../reporters/index.js')
  const redactor = new Redactor(keySecrets(target.apiKey))
  // Its one check is what the run could judge, not a selection: no "selected checks" in its verdict.
  const { catalogueSize: _, ...facts } = reporterFacts(config, target, prefixCatalogue(config.spec))
  const result = buildRunResult(
    [record],
    { ...facts, startedAt: new Date(started).toISOString(), durationMs: Date.now() - started, runErrors: [] },
    redactor,
  )
  const { written, errors } = await writeReports(result, config.reporters, config.outputDir, redactor)
  const shown = { color, written: Object.values(written), verbose: config.verbose }
  // The verdict is always printed: in the console's report, or alone when the report is not asked for.
  process.stdout.write(config.reporters.includes('console') ? toConsole(result, shown) : verdictOnly(result, shown))
  return { result, writeErrors: errors.map((e) => `${e.path}: ${e.message}`) }
}

/** Runs the scenarios in vitest with the reporter; resolves to the run's result. */
async function judge(
  config: Config,
  run: RunConfig,
  target: Target,
  env: Record<string, string | undefined>,
  stop: AbortSignal,
): Promise<{ result?: RunResult; writeErrors: string[] }> {
  const [{ runInVitest }, { default: ConformanceReporter }] = await Promise.all([
    import('./vitest.js'),
    import('../../reporters/index.js'),
  ])
  const reporter = new ConformanceReporter({
    formats: config.reporters,
    outputDir: config.outputDir,
    redactor: new Redactor(keySecrets(target.apiKey)),
    color: process.stdout.isTTY === true && !env.NO_COLOR,
    ...(config.quiet ? { progress: 'none' as const } : {}),
    header: false, // the command printed the run's first lines already
    verbose: config.verbose,
    facts: reporterFacts(config, target, catalogue(config, config.spec)),
    stopped: () => (stop.aborted ? interruptedLine(stop) : undefined),
  })
  const result = await runInVitest(run, reporter, () => reporter.result, stop)
  return { ...(result ? { result } : {}), writeErrors: reporter.writeErrors.map((e) => `${e.path}: ${e.message}`) }
}
