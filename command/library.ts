/**
 * The kit as a library: `runConformance(options)` runs the whole suite and resolves to the run's result,
 * for use from another project's tests. Without a target it judges the kit's own stub in-process (no port).
 * The same engine, records and verdict as the command; no vitest, no reporter files.
 */
import { randomBytes } from 'node:crypto'
import { buildRunResult, keySecrets, Redactor, type RunResult, type ScenarioRecord } from '../model/index.js'
import { SpecError, specFrom, versionPrefix, type Spec } from '../spec/index.js'
import { createStub } from '../stub/index.js'
import { catalogue, runAll, startRun, type FetchHandler, type RunConfig } from '../suites/index.js'
import { runConfig, runSettings } from './conformance/run-config.js'
import { prefixCatalogue, preflight } from './conformance/preflight.js'
import { NAME, prismInFront, VERSION } from './conformance/tool.js'
import { UsageError } from './usage-error.js'

/** What `runConformance` takes; every field is optional. */
export interface ConformanceOptions {
  /** The target's base address, `/v1` included; without it (and without `fetch`) the kit's own stub. */
  baseUrl?: string
  /** The key the target accepts (required with `baseUrl`). */
  apiKey?: string
  /** A Fetch handler to judge in-process instead of a URL, e.g. `createStub().fetch`. */
  fetch?: FetchHandler
  seed?: number
  runs?: number
  timeoutMs?: number
  concurrency?: number
  /** Check ids to judge; every check by default. */
  checks?: string[]
  operations?: RunConfig['operations']
  strict?: boolean
  /**
   * Send the traffic through Prism's validating proxy (`@stoplight/prism-cli` installed) and report its violations
   * as checks of source `prism`, as `--via-prism` does; needs `baseUrl`.
   */
  viaPrism?: boolean
  /** Called with each scenario's record as it finishes. */
  onRecord?: (record: ScenarioRecord) => void
  /**
   * The interface to judge by: a revision of the bundled spec (a loaded Spec or a file path), which the embedded
   * stub serves too; the bundled spec by default. A spec that is not a revision of this interface rejects with a
   * UsageError.
   */
  spec?: Spec | string
}

/**
 * Runs the suite against a target and resolves to its result (`verdict`, `checks`, ...). A target that answers
 * badly is judged, never thrown at; one that cannot be judged at all (unreachable, wrong key, base URL not
 * serving the interface) rejects with a `UsageError` saying which.
 */
export async function runConformance(options: ConformanceOptions = {}): Promise<RunResult> {
  const started = Date.now()
  const embedded = options.baseUrl === undefined && options.fetch === undefined
  const apiKey = options.apiKey ?? `pcs-${randomBytes(12).toString('hex')}`
  if (options.baseUrl !== undefined && options.apiKey === undefined)
    throw new TypeError('runConformance: apiKey is required with baseUrl')
  if (options.viaPrism && options.baseUrl === undefined)
    throw new TypeError('runConformance: viaPrism needs baseUrl (Prism proxies HTTP)')
  let spec: Spec
  try {
    spec = specFrom(options.spec)
  } catch (error) {
    if (error instanceof SpecError) throw new UsageError(error.message)
    throw error
  }
  const handler = options.fetch ?? (embedded ? createStub({ apiKeys: [apiKey], spec }).fetch : undefined)
  const baseUrl = (options.baseUrl ?? `http://stub.invalid${versionPrefix(spec)?.prefix ?? ''}`).replace(/\/+$/, '')
  const settings = runSettings({
    ...options,
    spec,
    specPath: typeof options.spec === 'string' ? options.spec : undefined,
  })
  const proxy = options.viaPrism ? await prismInFront(baseUrl) : undefined
  try {
    const config = runConfig(settings, { baseUrl, apiKey, sendBaseUrl: proxy?.url })
    // A live target that cannot be judged (unreachable, wrong key, wrong base URL) rejects with a UsageError; one
    // that answers without the documented version prefix fails that one check.
    const { prefixMissing } = handler === undefined ? await preflight(config, spec) : {}
    if (prefixMissing) options.onRecord?.(prefixMissing)
    const run = prefixMissing ? undefined : startRun(config, handler, spec)
    const records = run ? await runAll(run, options.onRecord) : [prefixMissing!]
    return buildRunResult(
      records,
      {
        tool: { name: NAME, version: VERSION },
        target: { baseUrl: config.baseUrl, embedded },
        runId: config.runId,
        seed: config.seed,
        runs: config.runs,
        recordBudget: settings.recordBudget,
        viaPrism: config.viaPrism,
        strict: config.strict,
        specVersion: spec.version,
        operationOrder: Object.keys(spec.operations) as RunConfig['operations'],
        notices: spec.readings.map((reading) => reading.text),
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        catalogue: run ? catalogue(config, spec) : prefixCatalogue(spec),
        runErrors: [],
        ...(run?.stopped ? { stopped: run.stopped } : {}),
      },
      new Redactor(keySecrets(apiKey)),
    )
  } finally {
    await proxy?.close()
  }
}
