/**
 * A run's configuration, built one way for the command (from its flags) and the library (from its options):
 * the choices with every default filled in, then the engine's `RunConfig` once the target is known.
 */
import { randomBytes } from 'node:crypto'
import type { OperationId, Spec } from '../../spec/index.js'
import { recordAllowances, recordBudget, type RunConfig } from '../../suites/index.js'

/** fast-check runs per property when `--runs` is not given: enough to find the usual bugs, quick on a local target. */
export const DEFAULT_RUNS = 30

/** Per-request timeout when `--timeout` is not given. */
export const DEFAULT_TIMEOUT_MS = 10_000

/** Requests in flight at most when `--concurrency` is not given: a few, as suits a shared staging. */
export const DEFAULT_CONCURRENCY = 8

/** What a run is asked to be; what is left out takes its default. */
export interface RunChoices {
  /** The spec judged by (a revision of the interface, already checked). */
  spec: Spec
  /** The file `spec` was read from, when it came from one. */
  specPath?: string
  seed?: number
  runs?: number
  timeoutMs?: number
  concurrency?: number
  /** Seconds after the start at which the run stops sending. */
  maxTimeS?: number
  checks?: string[]
  operations?: OperationId[]
  strict?: boolean
  viaPrism?: boolean
}

/** A run's settings, every default filled in: what the command's `Config` and the library share. */
export type RunSettings = Pick<
  RunConfig,
  | 'seed'
  | 'runs'
  | 'timeoutMs'
  | 'concurrency'
  | 'checks'
  | 'operations'
  | 'strict'
  | 'viaPrism'
  | 'runId'
  | 'allowances'
> & {
  spec: Spec
  specPath: string | undefined
  maxTimeS: number | undefined
  recordBudget: number
}

/** Where the run's requests go, and with which key. */
export interface RunTarget {
  /** The target as reports show it, `/v1` included. */
  baseUrl: string
  apiKey: string
  /** Where requests really go when Prism's proxy sits in between. */
  sendBaseUrl?: string
}

/** A short random id that names this run's pets. */
export function newRunId(): string {
  return randomBytes(5).readUInt32BE(0).toString(36).padStart(7, '0').slice(0, 7)
}

/** The settings of a run: the choices made, the defaults for the rest, and what follows from them. */
export function runSettings(choices: RunChoices): RunSettings {
  const runs = choices.runs ?? DEFAULT_RUNS
  const allowances = Object.freeze(recordAllowances(runs, choices.spec))
  return {
    spec: choices.spec,
    specPath: choices.specPath,
    seed: choices.seed ?? randomBytes(4).readInt32BE(0),
    runs,
    timeoutMs: choices.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    concurrency: choices.concurrency ?? DEFAULT_CONCURRENCY,
    maxTimeS: choices.maxTimeS,
    checks: choices.checks ?? [],
    operations: choices.operations ?? [],
    strict: choices.strict ?? false,
    viaPrism: choices.viaPrism ?? false,
    runId: newRunId(),
    allowances,
    recordBudget: recordBudget(allowances),
  }
}

/** The engine's configuration of a run with these settings against `target`, started at `started` (epoch ms). */
export function runConfig(settings: RunSettings, target: RunTarget, started: number = Date.now()): RunConfig {
  return {
    baseUrl: target.baseUrl,
    ...(target.sendBaseUrl !== undefined ? { sendBaseUrl: target.sendBaseUrl } : {}),
    apiKey: target.apiKey,
    seed: settings.seed,
    runs: settings.runs,
    timeoutMs: settings.timeoutMs,
    concurrency: settings.concurrency,
    checks: settings.checks,
    operations: settings.operations,
    strict: settings.strict,
    viaPrism: settings.viaPrism,
    runId: settings.runId,
    allowances: settings.allowances,
    ...(settings.specPath !== undefined ? { specPath: settings.specPath } : {}),
    ...(settings.maxTimeS !== undefined ? { deadline: started + settings.maxTimeS * 1000 } : {}),
  }
}
