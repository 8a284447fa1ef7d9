/**
 * The command's configuration: flags merged over the environment (flags win) into one frozen `Config`
 * with every default filled in. Code below the CLI takes a `Config` and never reads argv or env.
 */
import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { spec, type OperationId } from '../spec/index.js'
import { CHECKS } from './checks/index.js'

/** Bad input to the command: exit code 2 and one line. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** The report formats the command can write. */
export const REPORTERS = ['console', 'junit', 'json', 'html', 'markdown'] as const

/** One report format. */
export type ReporterName = (typeof REPORTERS)[number]

/** Formats written when no `--reporter` is given. */
export const DEFAULT_REPORTERS: readonly ReporterName[] = ['console', 'junit', 'json', 'html']

/** fast-check runs per property when `--runs` is not given: enough to find the usual bugs, quick on a local target. */
export const DEFAULT_RUNS = 30

/** Per-request timeout when `--timeout` is not given. */
export const DEFAULT_TIMEOUT_MS = 5000

/** Seconds after which a run stops sending requests when `--max-time` is not given. */
export const DEFAULT_MAX_TIME_S = 25

/** Flags as parsed from the command line, before defaults. */
export interface Options {
  baseUrl?: string
  apiKey?: string
  seed?: string
  runs?: string
  timeout?: string
  maxTime?: string
  check?: string[]
  operation?: string[]
  strict?: boolean
  viaPrism?: boolean
  reporter?: string[]
  outputDir?: string
}

/** Pets each conformance file may create; their sum is the run's record budget. */
export interface Allowances {
  create: number
  list: number
  get: number
  auth: number
  stateful: number
  coverage: number
}

/** The resolved configuration of one run. */
export interface Config {
  /** The target's base address (ends with /v1), or undefined to run against the embedded stub. */
  baseUrl: string | undefined
  apiKey: string | undefined
  seed: number
  runs: number
  timeoutMs: number
  /** Seconds after the start at which the run stops sending; what is left is reported as skipped. */
  maxTimeS: number
  /** Selected check ids; empty selects every check. */
  checks: string[]
  /** Selected operations; empty selects every operation. */
  operations: OperationId[]
  strict: boolean
  viaPrism: boolean
  reporters: ReporterName[]
  outputDir: string
  /** Names every pet this run creates (`pcs-<runId>-...`), so they can be recognised on a shared target. */
  runId: string
  allowances: Allowances
  recordBudget: number
}

/** Sequences of commands the model-based run tries, for a given `--runs`. */
export function statefulRuns(runs: number): number {
  return Math.max(2, Math.ceil(runs / 3))
}

/** Commands in one model-based sequence, at most. */
export const MAX_COMMANDS = 8

/** How many pets each file may create with `runs` fast-check runs per property. */
export function recordAllowances(runs: number): Allowances {
  return {
    // 11 valid fixtures, 3 probes, 20 concurrent creates, 4 sentinels, one pet per valid-payload run, and
    // a margin of 22 for shrinking a failure and for a target that stores what it should refuse.
    create: 60 + runs,
    // Enough to hold 100 pets (limit's maximum) plus two pets of each status.
    list: 106,
    get: 2,
    // 2 sentinels; nothing else on a conformant target, room for a target that stores unauthenticated creates.
    auth: 10,
    // Creates are about a sixth of the commands; the model stops creating when this runs out.
    stateful: Math.min(60, statefulRuns(runs) * 3),
    coverage: 3,
  }
}

const sum = (a: Allowances) => Object.values(a).reduce((x: number, y: number) => x + y, 0)

function integerFlag(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`${name} must be an integer, got "${text}"`)
  const value = Number(text)
  if (value < min || value > max) throw new UsageError(`${name} must be from ${min} to ${max}, got ${text}`)
  return value
}

function baseUrlOf(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UsageError(`--base-url must be an absolute http(s) URL, got "${text}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--base-url must use http or https, got "${url.protocol}"`)
  }
  if (url.search || url.hash) throw new UsageError(`--base-url must not carry a query or fragment, got "${text}"`)
  return text.replace(/\/+$/, '') // paths are appended: `/v1` + `/pets`
}

function oneOf<T extends string>(flag: string, values: string[] | undefined, allowed: readonly T[]): T[] {
  const chosen = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)
  for (const value of chosen) {
    if (!allowed.includes(value as T)) throw new UsageError(`${flag} "${value}" is not one of: ${allowed.join(', ')}`)
  }
  return [...new Set(chosen)] as T[]
}

// `--check listPets.limit` selects every check whose id starts with `listPets.limit.`.
function checkSelection(values: string[] | undefined): string[] {
  const ids: string[] = CHECKS.map((c) => c.id)
  const chosen = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)
  return [
    ...new Set(
      chosen.flatMap((value) => {
        const matching = ids.filter((id) => id === value || id.startsWith(`${value}.`))
        if (!matching.length) throw new UsageError(`--check "${value}" names no check; see --help for the catalogue`)
        return matching
      }),
    ),
  ]
}

/** A short random id that names this run's pets. */
export function newRunId(): string {
  return randomBytes(5).readUInt32BE(0).toString(36).padStart(7, '0').slice(0, 7)
}

/** Merges flags over the environment into a frozen `Config`; throws `UsageError` on bad input. */
export function resolveConfig(flags: Options, env: Record<string, string | undefined>): Config {
  const baseUrl = baseUrlOf(flags.baseUrl ?? env.PETSTORE_BASE_URL)
  const apiKey = flags.apiKey ?? env.PETSTORE_API_KEY
  if (baseUrl && !apiKey) throw new UsageError('--api-key (or PETSTORE_API_KEY) is required with --base-url')
  if (apiKey !== undefined && (apiKey === '' || /[\s\u0000-\u001f\u007f]/.test(apiKey))) {
    throw new UsageError('--api-key must be a non-empty token without spaces or control characters')
  }
  const runs = integerFlag('--runs', flags.runs, 1, 10_000) ?? DEFAULT_RUNS
  const timeoutMs = integerFlag('--timeout', flags.timeout, 100, 600_000) ?? DEFAULT_TIMEOUT_MS
  const maxTimeS = integerFlag('--max-time', flags.maxTime, 5, 86_400) ?? DEFAULT_MAX_TIME_S
  // fast-check seeds are 32-bit integers.
  const seed = integerFlag('--seed', flags.seed, -(2 ** 31), 2 ** 31 - 1) ?? randomBytes(4).readInt32BE(0)
  const checks = checkSelection(flags.check)
  const operations = oneOf('--operation', flags.operation, Object.keys(spec().operations) as OperationId[])
  const reporters = flags.reporter?.length ? oneOf('--reporter', flags.reporter, REPORTERS) : [...DEFAULT_REPORTERS]
  const allowances = recordAllowances(runs)
  return Object.freeze({
    baseUrl,
    apiKey,
    seed,
    runs,
    timeoutMs,
    maxTimeS,
    checks,
    operations,
    strict: flags.strict ?? false,
    viaPrism: flags.viaPrism ?? false,
    reporters,
    outputDir: resolve(flags.outputDir ?? 'reports'),
    runId: newRunId(),
    allowances: Object.freeze(allowances),
    recordBudget: sum(allowances),
  })
}
