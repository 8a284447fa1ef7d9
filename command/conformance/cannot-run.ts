/**
 * A run that cannot be done (exit 2 before any check) still writes its reports: report.json, report.md, JUnit and
 * HTML say why, what the command tried and what the user can do, so a CI job's summary and artifact are never empty.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  buildRunResult,
  keySecrets,
  Redactor,
  type CannotRun,
  type CatalogueEntry,
  type Exchange,
  type RunFacts,
} from '../../model/index.js'
import { FLAGS, REPORTERS, reportersOf, type Config } from './config.js'
import { newRunId } from './run-config.js'

/** What the user can do about a reason the run could not be done, in words for someone who did not write the kit. */
export function adviceFor(reason: string): string {
  if (/refused the API key/.test(reason))
    return 'Check the key given as --api-key or PETSTORE_API_KEY (in a workflow, the secret passed as api-key): it is sent as "Authorization: Bearer KEY", and a key that was rotated, revoked or issued for another environment is refused the same way.'
  if (/cannot reach the target/.test(reason))
    return 'Check --base-url (or PETSTORE_BASE_URL): scheme, host and port; make sure the service is running and reachable from where the command runs (a CI runner cannot reach a service on your own machine, and localhost inside a container is the container).'
  if (/does not serve the interface/.test(reason))
    return "Check --base-url (or PETSTORE_BASE_URL): it is the address the interface's paths hang from, the version prefix included (e.g. https://staging.example/v1, so that GET <base-url>/pets lists pets)."
  if (/proxy or gateway/.test(reason))
    return 'Start the service behind the gateway, or wait until it is up, then run again.'
  if (/rate-limited|asks to wait/.test(reason))
    return 'The target throttles this key: run again later, lower --concurrency, or ask for a higher rate limit for the key the run uses.'
  if (/^cannot write reports/.test(reason)) return 'Give --output-dir a directory the command can write to.'
  if (/^--|--[a-z-]+ /.test(reason) || /^cannot start Prism/.test(reason))
    return 'Correct the command line as the line above says; petstore-conformance --help lists every flag.'
  return 'Fix what the line above says and run the command again; petstore-conformance --help lists every flag.'
}

/** What the preflight sent and what came back, one line each: `GET https://host/v1/pets?limit=1 -> 401 (12 ms)`. */
export function triedLines(exchanges: readonly Exchange[]): string[] {
  return exchanges.map((exchange) => {
    const answer = exchange.response
      ? `${exchange.response.status}${exchange.response.headers['content-type'] ? ` ${exchange.response.headers['content-type']}` : ''}`
      : `no answer: ${exchange.error ?? 'unknown error'}`
    return `${exchange.request.method} ${exchange.request.url} -> ${answer} (${Math.round(exchange.durationMs)} ms)`
  })
}

/** Where a run's reports go and what it is about, read from the command line even when it is not valid. */
export interface ReportPlace {
  outputDir: string
  reporters: readonly string[]
  baseUrl: string | undefined
  apiKey: string | undefined
  /** The target is the embedded stub (no --base-url). */
  embedded: boolean
}

/**
 * Where to write the reports of a command line that did not resolve, or undefined: only when `--output-dir` names
 * the place (as the GitHub Action does), so a mistyped flag in a terminal does not leave files behind.
 */
export function placeOf(argv: readonly string[], env: Record<string, string | undefined>): ReportPlace | undefined {
  try {
    const { values } = parseArgs({ args: [...argv], options: FLAGS, strict: false, allowPositionals: true })
    const outputDir = values['output-dir']
    if (typeof outputDir !== 'string' || values.help || values.version || values.replay !== undefined) return undefined
    const given = (Array.isArray(values.reporter) ? values.reporter : []).filter(
      (r): r is string => typeof r === 'string' && (REPORTERS as readonly string[]).includes(r),
    )
    const baseUrl = typeof values['base-url'] === 'string' ? values['base-url'] : env.PETSTORE_BASE_URL
    const apiKey = typeof values['api-key'] === 'string' ? values['api-key'] : env.PETSTORE_API_KEY
    return {
      outputDir: resolve(outputDir),
      reporters: reportersOf(given, false),
      baseUrl,
      apiKey,
      embedded: baseUrl === undefined,
    }
  } catch {
    return undefined
  }
}

/** The place of a resolved configuration. */
export function placeOfConfig(config: Config, baseUrl?: string, apiKey?: string): ReportPlace {
  return {
    outputDir: config.outputDir,
    reporters: config.reporters,
    baseUrl: baseUrl ?? config.baseUrl,
    apiKey: apiKey ?? config.apiKey,
    embedded: config.baseUrl === undefined,
  }
}

/** What the reports of a run that could not be done are made of, besides its place. */
export interface CannotRunFacts {
  tool: RunFacts['tool']
  catalogue: readonly CatalogueEntry[]
  catalogueSize: number
  operationOrder: readonly string[]
  specVersion: string
  seed: number
  runs: number
  runId?: string
  recordBudget: number
  strict: boolean
  viaPrism: boolean
  started: number
}

/**
 * Writes the file reports of a run that could not be done into `place`; resolves to the paths written. Never throws:
 * the command exits 2 with its one line whatever happens here.
 */
export async function writeCannotRun(
  place: ReportPlace,
  facts: CannotRunFacts,
  reason: string,
  tried: readonly Exchange[],
): Promise<string[]> {
  try {
    const { writeReports } = await import('../../reporters/index.js')
    const redactor = new Redactor(keySecrets(place.apiKey))
    // The line's own hint (`; check --base-url ...`) is what the advice says at more length.
    const said = reason.replace(/; (check|start it|run it again|wait) [^;]*$/, '')
    const cannotRun: CannotRun = { reason: said, tried: triedLines(tried), advice: adviceFor(reason) }
    const result = buildRunResult(
      [],
      {
        tool: facts.tool,
        target: { baseUrl: place.baseUrl ?? 'the embedded stub', embedded: place.embedded },
        runId: facts.runId ?? newRunId(),
        seed: facts.seed,
        runs: facts.runs,
        recordBudget: facts.recordBudget,
        viaPrism: facts.viaPrism,
        strict: facts.strict,
        specVersion: facts.specVersion,
        operationOrder: facts.operationOrder,
        notices: [],
        startedAt: new Date(facts.started).toISOString(),
        durationMs: Date.now() - facts.started,
        catalogue: facts.catalogue,
        catalogueSize: facts.catalogueSize,
        runErrors: [],
        cannotRun,
      },
      redactor,
    )
    const { written } = await writeReports(result, place.reporters, place.outputDir, redactor)
    return Object.values(written)
  } catch {
    return []
  }
}
