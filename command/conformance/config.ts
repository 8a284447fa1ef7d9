/**
 * The conformance command's configuration: flags merged over the environment (flags win) into one frozen
 * `Config` with every default filled in. Code below the command takes it and never reads argv or env.
 */
import { resolve } from 'node:path'
import { bundledSpec, loadSpec, SpecError, type OperationId, type Spec } from '../../spec/index.js'
import { CHECKS } from '../../suites/index.js'
import { integerFlag, parseFlags } from '../flags.js'
import { UsageError } from '../usage-error.js'
import { runSettings, type RunSettings } from './run-config.js'

/** The report formats the command can write. */
export const REPORTERS = ['console', 'junit', 'json', 'html', 'markdown'] as const

/** One report format. */
export type ReporterName = (typeof REPORTERS)[number]

/** Formats always written; `--reporter` adds to them, `--quiet` leaves out the console's. */
export const DEFAULT_REPORTERS: readonly ReporterName[] = ['console', 'junit', 'json', 'html']

export { DEFAULT_CONCURRENCY, DEFAULT_RUNS, DEFAULT_TIMEOUT_MS, newRunId } from './run-config.js'

/** The flags both parsing and `--help` know. */
export const FLAGS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  seed: { type: 'string' },
  runs: { type: 'string' },
  timeout: { type: 'string' },
  concurrency: { type: 'string' },
  'max-time': { type: 'string' },
  check: { type: 'string', multiple: true },
  operation: { type: 'string', multiple: true },
  strict: { type: 'boolean' },
  'via-prism': { type: 'boolean' },
  reporter: { type: 'string', multiple: true },
  'output-dir': { type: 'string' },
  replay: { type: 'string' },
  spec: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

/** The resolved configuration of one run: the run's settings, and what the command does around it. */
export interface Config extends RunSettings {
  /** The target's base address (ends with /v1), or undefined to run against the embedded stub. */
  baseUrl: string | undefined
  apiKey: string | undefined
  reporters: ReporterName[]
  outputDir: string
  /** No progress lines. */
  quiet: boolean
  /** The console report shows bodies whole, rather than cut to a few lines with their size. */
  verbose: boolean
  /** A report.json whose failing requests are to be sent again, with `--replay`. */
  replay: string | undefined
  /** The spec file judged by (`--spec`, a revision of the interface), absolute; undefined for the bundled spec. */
  specPath: string | undefined
  help: boolean
  version: boolean
}

function baseUrlOf(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UsageError(`--base-url must be an absolute http(s) URL, got "${text}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--base-url must use http or https, got "${url.protocol}"`)
  if (url.search || url.hash) throw new UsageError(`--base-url must not carry a query or fragment, got "${text}"`)
  if (url.username || url.password)
    throw new UsageError('--base-url must not carry a user name or password; the key goes in --api-key')
  return text.replace(/\/+$/, '') // paths are appended: `/v1` + `/pets`
}

function oneOf<T extends string>(flag: string, values: readonly string[] | undefined, allowed: readonly T[]): T[] {
  const chosen = (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)
  for (const value of chosen)
    if (!allowed.includes(value as T)) throw new UsageError(`${flag} "${value}" is not one of: ${allowed.join(', ')}`)
  return [...new Set(chosen)] as T[]
}

// `--check listPets.limit` selects every check whose id starts with `listPets.limit.`.
function checkSelection(values: readonly string[] | undefined): string[] {
  const ids: string[] = CHECKS.map((c) => c.id)
  const chosen = (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)
  const matching = chosen.flatMap((value) => {
    const found = ids.filter((id) => id === value || id.startsWith(`${value}.`))
    if (!found.length) throw new UsageError(`--check "${value}" names no check; see --help for the catalogue`)
    return found
  })
  return [...new Set(matching)]
}

/** The `--spec` file, checked to be a revision of the interface (else a one-line UsageError), or the bundled spec. */
function specOf(path: string | undefined): Spec {
  if (path === undefined) return bundledSpec()
  try {
    return loadSpec(path)
  } catch (error) {
    if (error instanceof SpecError) throw new UsageError(`--spec: ${error.message}`)
    throw error
  }
}

/**
 * The formats of a run: the default ones and those `--reporter` adds (each once, in the order of REPORTERS), the
 * console's report left out with `--quiet` (the verdict line is printed all the same).
 */
export function reportersOf(given: readonly string[] | undefined, quiet: boolean): ReporterName[] {
  const added = given?.length ? oneOf('--reporter', [...given], REPORTERS) : []
  const wanted = new Set<ReporterName>([...DEFAULT_REPORTERS, ...added])
  return REPORTERS.filter((name) => wanted.has(name) && !(quiet && name === 'console'))
}

/** Merges the command line over the environment into a frozen `Config`; throws `UsageError` on bad input. */
export function resolveConfig(argv: readonly string[], env: Record<string, string | undefined>): Config {
  const flags = parseFlags(argv, FLAGS)
  const baseUrl = baseUrlOf(flags['base-url'] ?? env.PETSTORE_BASE_URL)
  const apiKey = flags['api-key'] ?? env.PETSTORE_API_KEY
  if (baseUrl && !apiKey && !flags.help && !flags.version)
    throw new UsageError('--api-key (or PETSTORE_API_KEY) is required with --base-url')
  if (apiKey !== undefined && (apiKey === '' || /[\s\u0000-\u001f\u007f]/.test(apiKey))) {
    throw new UsageError('--api-key must be a non-empty token without spaces or control characters')
  }
  const specPath = flags.spec === undefined ? undefined : resolve(flags.spec)
  const spec = specOf(specPath)
  const runs = integerFlag('--runs', flags.runs, 1, 10_000)
  const settings = runSettings({
    spec,
    specPath,
    // fast-check seeds are 32-bit integers.
    seed: integerFlag('--seed', flags.seed, -(2 ** 31), 2 ** 31 - 1),
    runs,
    timeoutMs: integerFlag('--timeout', flags.timeout, 100, 600_000),
    concurrency: integerFlag('--concurrency', flags.concurrency, 1, 256),
    maxTimeS: integerFlag('--max-time', flags['max-time'], 1, 86_400),
    checks: checkSelection(flags.check),
    operations: oneOf('--operation', flags.operation, Object.keys(spec.operations) as OperationId[]),
    strict: flags.strict ?? false,
    viaPrism: flags['via-prism'] ?? false,
  })
  return Object.freeze({
    ...settings,
    baseUrl,
    apiKey,
    reporters: reportersOf(flags.reporter, flags.quiet ?? false),
    outputDir: resolve(flags['output-dir'] ?? 'reports'),
    quiet: flags.quiet ?? false,
    verbose: flags.verbose ?? false,
    replay: flags.replay,
    help: flags.help ?? false,
    version: flags.version ?? false,
  })
}
