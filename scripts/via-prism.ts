/**
 * The suite in-process through Prism's validating proxy, as `--via-prism` runs it: Prism in front of the target,
 * the suite's requests through it, Prism's verdicts as checks of source `prism` beside the suite's. It stands in
 * for `runConformance({ baseUrl, apiKey, viaPrism: true })` until the library takes that option.
 */
import { randomBytes } from 'node:crypto'
import { catalogue, NAME, VERSION } from '../command/conformance/cli.js'
import { DEFAULT_CONCURRENCY, DEFAULT_RUNS, DEFAULT_TIMEOUT_MS, newRunId } from '../command/conformance/config.js'
import { preflight } from '../command/conformance/preflight.js'
import { buildRunResult, keySecrets, Redactor, type RunResult } from '../model/index.js'
import { spec } from '../spec/index.js'
import { recordAllowances, recordBudget, runAll, startRun, type RunConfig } from '../suites/index.js'
import { startPrismProxy } from '../suites/prism/index.js'

/** What {@link runViaPrism} takes. */
export interface ViaPrismOptions {
  /** The target's base address, `/v1` included. */
  baseUrl: string
  apiKey: string
  seed?: number
  runs?: number
}

/** Runs the whole suite through Prism against `baseUrl`; rejects (a `UsageError`) when the run cannot be judged. */
export async function runViaPrism(options: ViaPrismOptions): Promise<RunResult> {
  const started = Date.now()
  const proxy = await startPrismProxy({ upstream: options.baseUrl })
  try {
    const runs = options.runs ?? DEFAULT_RUNS
    const config: RunConfig = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      sendBaseUrl: proxy.url,
      apiKey: options.apiKey,
      seed: options.seed ?? randomBytes(4).readInt32BE(0),
      runs,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      concurrency: DEFAULT_CONCURRENCY,
      checks: [],
      operations: [],
      strict: false,
      viaPrism: true,
      runId: newRunId(),
      allowances: recordAllowances(runs),
    }
    await preflight(config)
    const run = startRun(config)
    const records = await runAll(run)
    return buildRunResult(
      records,
      {
        tool: { name: NAME, version: VERSION },
        target: { baseUrl: config.baseUrl, embedded: false },
        runId: config.runId,
        seed: config.seed,
        runs,
        recordBudget: recordBudget(config.allowances),
        viaPrism: true,
        strict: false,
        specVersion: spec().version,
        operationOrder: Object.keys(spec().operations) as RunConfig['operations'],
        notices: [],
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        catalogue: catalogue(config),
        runErrors: [],
        ...(run.stopped ? { stopped: run.stopped } : {}),
      },
      new Redactor(keySecrets(options.apiKey)),
    )
  } finally {
    await proxy.close()
  }
}
