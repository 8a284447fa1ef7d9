/** The stub command's flags and environment, resolved once into a frozen config. */
import { statSync } from 'node:fs'
import {
  absolute,
  exposureOf,
  isHostToAllow,
  isOriginToAllow,
  ADMIN_PREFIX,
  available,
  DEFAULT_API_KEY,
  DEFAULT_MAX_BODY,
  MAX_MAX_BODY,
  DEFAULT_MAX_STORE,
  DEFAULT_SEED_PATH,
  FAULTS,
  isFaultName,
  JOURNAL_DEFAULTS,
  JOURNAL_LIMITS,
  MAX_MAX_STORE,
  specExamples,
  type Chaos,
  dataFileOf,
  type FaultName,
  LikeError,
  lockPathOf,
  logPathOf,
  readLikeness,
  type Likeness,
} from '../../stub/index.js'
import { loadSpec, spec as bundledSpec, SpecError, type Spec } from '../../spec/index.js'
import { integerFlag, parseFlags } from '../flags.js'
import { UsageError } from '../usage-error.js'

/** The port the command listens on by default (the spec's local server). */
export const DEFAULT_PORT = 4010

/** The longest latency `--latency` takes, in ms. */
export const MAX_LATENCY_MS = 60_000

/** The most requests `--journal` may ask the journal to keep (it holds at most its bytes' bound whatever the count). */

/** Everything the command needs, every default filled in. */
export interface StubConfig {
  help: boolean
  port: number
  host: string
  apiKeys: string[]
  /** Where the keys came from, for the startup message. */
  keySource: '--api-key' | 'PETSTORE_API_KEYS' | 'the default'
  /** A seed file, or `false` for none. */
  seed: string | false
  maxBody: number
  /** The most bytes of JSON the pets may take before creates are refused. */
  maxStore: number
  quiet: boolean
  chaos?: Chaos
  adminKey?: string
  /** A data file that keeps the pets across restarts. */
  data?: string
  /** Journal entries kept (0: no journal). */
  journal: number
  fault?: FaultName
  /** The interface served (`--spec`, a revision of it); the bundled spec when absent. */
  spec?: Spec
  /** Host names answered besides loopback and the bound address (`--allow-host`). */
  allowHosts: string[]
  /** Origins whose pages may use the admin API (`--admin-origin`). */
  adminOrigins: string[]
  /** Origins whose pages may call the interface besides this machine's (`--allow-origin`). */
  allowOrigins: string[]
  /** Where to write the client report at shutdown (`--client-report FILE`: Markdown for `.md`, else JSON). */
  clientReport?: string
  /** The service this stub is a twin of (`--like report.json`), read and checked against the spec served. */
  like?: Likeness
}

/** The `--help` text. */
export function usage(): string {
  const examples = specExamples()
  return `Usage: petstore-stub [options]

Serves the Pet Store interface (listPets, createPet, getPet) in memory under /v1, exactly as documented,
with controls for client developers. Flags win over the environment.

Options:
  --port N            TCP port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host ADDRESS      address to bind (default 127.0.0.1; any other needs --admin-key)
  --api-key KEY       an accepted API key; repeat for several. Default: PETSTORE_API_KEYS
                      (comma-separated), else ${DEFAULT_API_KEY}
  --spec FILE         serve this revision of the interface (OpenAPI 3.1, the same three operations) instead of
                      the bundled spec/petstore.yaml: its enums, bounds, dates and pet properties
  --like REPORT       be a twin of the service a conformance run judged: adopt the choices its report.json
                      observed where the interface is silent (default status, order, ids, out-of-range
                      queries, undeclared fields, unknown paths and methods, media types, Error codes);
                      prints what it adopted and what it could not mimic (also at GET ${ADMIN_PREFIX}/like)
  --client-report FILE  at shutdown, write the client report (the traffic received, judged against the
                      interface) to FILE: Markdown when it ends in .md, else JSON; live at GET ${ADMIN_PREFIX}/client-report
  --seed FILE         JSON array of pets to start with (default fixtures/seed-pets.json)
  --no-seed           start with no pets
  --data FILE         keep the pets in FILE across restarts: read at start (it wins over the seed),
                      every change on disk (FILE.log) before its answer; a corrupt or unwritable FILE,
                      or one another stub keeps (FILE.lock), stops the start (exit 2)
  --max-body BYTES    largest request body accepted (default ${DEFAULT_MAX_BODY}, at most ${MAX_MAX_BODY})
  --max-store BYTES   most bytes of JSON the pets may take; past it a create gets 400 store_full until a
                      reset (default ${DEFAULT_MAX_STORE}, at most ${MAX_MAX_STORE})
  --latency MS        every answer waits MS ms, or a random time in MIN-MAX (e.g. 50-300); off by default
  --fail-rate P       answer a share P (0 to 1) of requests with --fail-status instead; off by default
  --fail-status S     429 (with Retry-After) or 503 (default 503)
  --admin-key KEY     the admin API needs Authorization: Bearer KEY (env PETSTORE_ADMIN_KEY); a key of
                      its own, neither an API key nor the default one
  --admin-origin URL  let pages from this origin (http://localhost:5173) use the admin API; repeat for
                      several. Without it no page on another origin can read or change the stub's state
  --allow-host NAME   answer requests for Host NAME too (a dev proxy's or container's name; * for any,
                      which needs --admin-key and an --api-key of your own); repeat for several. By default only loopback names and the
                      bound address (421 else)
  --allow-origin URL  let pages from this origin (https://app.example; null for a file, * for any) call
                      /v1; repeat for several. By default only pages on this machine (localhost, 127.0.0.1)
  --journal N         requests the journal keeps (default ${JOURNAL_DEFAULTS.entries}, at most ${JOURNAL_LIMITS.entries}; 0 for none),
                      in at most ${JOURNAL_DEFAULTS.bytes} bytes whatever N
  --quiet             no request log on stderr
  --fault NAME        inject one deliberate fault, to prove a test suite catches it (listed below)
  -h, --help          show this help

Per request, with Prefer (RFC 7240; several in one header, comma-separated; the answer says
Preference-Applied). code=, example= and fault= answers never touch the pets:
${(['listPets', 'createPet', 'getPet'] as const).map((operationId) => `  ${operationId.padEnd(10)} ${available(operationId, examples)}`).join('\n')}
  delay= waits before the real answer; code=429 and code=503 come with Retry-After; an unknown or
  impossible preference is a 400 Error that lists these.

Admin API (outside /v1; its OpenAPI document is ${ADMIN_PREFIX}/admin.yaml):
  GET ${ADMIN_PREFIX}/health                 status, pet count, journal size
  POST ${ADMIN_PREFIX}/reset                 pets back to the seed
  GET ${ADMIN_PREFIX}/state                  every pet and the next id (int64 exact)
  PUT ${ADMIN_PREFIX}/state                  restore a snapshot (checked whole first)
  GET ${ADMIN_PREFIX}/requests               the journal, newest first (?method= &path= &status= &limit=)
  DELETE ${ADMIN_PREFIX}/requests            empty the journal
  GET ${ADMIN_PREFIX}/petstore.yaml          the interface's OpenAPI document

Faults:
${Object.entries(FAULTS)
  .map(([name, fault]) => `  ${name.padEnd(23)} ${fault.description}`)
  .join('\n')}
`
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  seed: { type: 'string' },
  spec: { type: 'string' },
  'no-seed': { type: 'boolean' },
  data: { type: 'string' },
  'max-body': { type: 'string' },
  'max-store': { type: 'string' },
  latency: { type: 'string' },
  'fail-rate': { type: 'string' },
  'fail-status': { type: 'string' },
  'admin-key': { type: 'string' },
  'admin-origin': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'allow-origin': { type: 'string', multiple: true },
  journal: { type: 'string' },
  quiet: { type: 'boolean' },
  fault: { type: 'string' },
  like: { type: 'string' },
  'client-report': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

function checkKey(key: string, source: string): string {
  // A key travels as a Bearer token, so it must be visible ASCII with no spaces.
  if (!/^[\x21-\x7e]+$/.test(key))
    throw new UsageError(`${source}: an API key must be visible ASCII characters with no spaces`)
  return key
}

/** `--latency 200` or `--latency 50-300`, as [min, max] ms. */
function readLatency(text: string | undefined): [number, number] | undefined {
  if (text === undefined) return undefined
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text.trim())
  const [min, max] = match ? [Number(match[1]), Number(match[2] ?? match[1])] : [NaN, NaN]
  if (!(min <= max && max <= MAX_LATENCY_MS))
    throw new UsageError(`--latency must be MS or MIN-MAX, from 0 to ${MAX_LATENCY_MS} ms, got "${text}"`)
  return [min, max]
}

/** `--fail-rate` and `--fail-status`, as the chaos settings. */
function readFailures(
  rateText: string | undefined,
  statusText: string | undefined,
): Pick<Chaos, 'failRate' | 'failStatus'> {
  if (rateText === undefined) {
    if (statusText !== undefined) throw new UsageError('--fail-status needs --fail-rate')
    return {}
  }
  const failRate = /^(0|1|0?\.\d+|1\.0*)$/.test(rateText.trim()) ? Number(rateText) : NaN
  if (!(failRate >= 0 && failRate <= 1))
    throw new UsageError(`--fail-rate must be a number from 0 to 1, got "${rateText}"`)
  if (statusText !== undefined && statusText !== '429' && statusText !== '503')
    throw new UsageError(`--fail-status must be 429 or 503, got "${statusText}"`)
  return { failRate, failStatus: statusText === '429' ? 429 : 503 }
}

/** Flags over environment (flags win), every default filled in. Throws UsageError on bad input. */
export function resolveConfig(argv: readonly string[], env: Record<string, string | undefined>): Readonly<StubConfig> {
  const flags = parseFlags(argv, OPTIONS)
  const port = integerFlag('--port', flags.port, 0, 65535) ?? DEFAULT_PORT
  // `[::1]`, as an address is written in a URL, is the address `::1` to bind.
  const host = (flags.host ?? '127.0.0.1').replace(/^\[([0-9a-fA-F:.]+)\]$/, '$1')
  if (host === '') throw new UsageError('--host must not be empty')
  const flagKeys = flags['api-key'] ?? []
  const envKeys = (env.PETSTORE_API_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '')
  // Set, but with no key in it (`, ,` or ` `): the public default key would stand in for the private ones meant. Set
  // empty is as unset (how a shell or a CI job's missing secret leaves it).
  if (flagKeys.length === 0 && envKeys.length === 0 && (env.PETSTORE_API_KEYS ?? '') !== '')
    throw new UsageError('PETSTORE_API_KEYS holds no key: give keys separated by commas, or unset it')
  const [apiKeys, keySource] =
    flagKeys.length > 0
      ? [flagKeys.map((key) => checkKey(key, '--api-key')), '--api-key' as const]
      : envKeys.length > 0
        ? [envKeys.map((key) => checkKey(key, 'PETSTORE_API_KEYS')), 'PETSTORE_API_KEYS' as const]
        : [[DEFAULT_API_KEY], 'the default' as const]
  if (flags.seed !== undefined && flags['no-seed']) throw new UsageError('--seed and --no-seed exclude each other')
  if (flags.seed === '') throw new UsageError('--seed needs a file name')
  if (flags.data === '') throw new UsageError('--data needs a file name')
  const maxBody = integerFlag('--max-body', flags['max-body'], 1, MAX_MAX_BODY) ?? DEFAULT_MAX_BODY
  const maxStore = integerFlag('--max-store', flags['max-store'], 1, MAX_MAX_STORE) ?? DEFAULT_MAX_STORE
  const latencyMs = readLatency(flags.latency)
  const failures = readFailures(flags['fail-rate'], flags['fail-status'])
  const chaos = latencyMs || failures.failRate ? { latencyMs, ...failures } : undefined
  const adminKey = flags['admin-key'] ?? (env.PETSTORE_ADMIN_KEY || undefined)
  if (adminKey !== undefined)
    checkKey(adminKey, flags['admin-key'] === undefined ? 'PETSTORE_ADMIN_KEY' : '--admin-key')
  // Anyone who reaches a non-loopback address could reset or read the stub: the admin API must be locked.
  const allowHosts = flags['allow-host'] ?? []
  for (const name of allowHosts)
    if (!isHostToAllow(name))
      throw new UsageError(
        `--allow-host must be a host name or address with no port, or * alone, got ${JSON.stringify(name)}`,
      )
  // Anyone who reaches a non-loopback address could reset or read the stub: the admin API must be locked.
  const exposure = exposureOf(host, allowHosts, adminKey, apiKeys)
  if (exposure === 'shared-admin-key')
    throw new UsageError(
      `--admin-key must differ from every API key and from the default key ${DEFAULT_API_KEY}, which every page knows`,
    )
  if (exposure === 'reachable')
    throw new UsageError(`--host ${host} is reachable from other machines: give --admin-key too`)
  const adminOrigins = flags['admin-origin'] ?? []
  for (const origin of adminOrigins)
    if (!isOriginToAllow(origin, false))
      throw new UsageError(
        `--admin-origin must be an origin such as http://localhost:5173, got ${JSON.stringify(origin)}`,
      )
  const allowOrigins = flags['allow-origin'] ?? []
  for (const origin of allowOrigins)
    if (!isOriginToAllow(origin, true))
      throw new UsageError(
        `--allow-origin must be an origin such as https://app.example (or null, or *), got ${JSON.stringify(origin)}`,
      )
  if (exposure === 'any-host')
    throw new UsageError(`--allow-host '*' answers any host name, a DNS-rebinding page's too: give --admin-key too`)
  if (exposure === 'public-key')
    throw new UsageError(
      `--allow-host '*' answers a DNS-rebinding page too, and every page knows the default API key: give --api-key KEY (or PETSTORE_API_KEYS)`,
    )
  const journal = integerFlag('--journal', flags.journal, 0, JOURNAL_LIMITS.entries) ?? JOURNAL_DEFAULTS.entries
  const fault = flags.fault
  if (fault !== undefined && !isFaultName(fault))
    throw new UsageError(`--fault must name one of the faults listed by --help, got ${JSON.stringify(fault)}`)
  let spec: Spec | undefined
  try {
    spec = flags.spec === undefined ? undefined : loadSpec(flags.spec)
  } catch (error) {
    if (error instanceof SpecError) throw new UsageError(`--spec: ${error.message}`)
    throw error
  }
  if (flags['client-report'] === '') throw new UsageError('--client-report needs a file name')
  if (flags.like === '') throw new UsageError('--like needs a report.json')
  let like: Likeness | undefined
  try {
    like = flags.like === undefined ? undefined : readLikeness(flags.like, spec ?? bundledSpec())
  } catch (error) {
    if (error instanceof LikeError) throw new UsageError(`--like: ${error.message}`)
    throw error
  }
  const seed = flags['no-seed'] ? false : (flags.seed ?? DEFAULT_SEED_PATH)
  checkOwnFiles({ clientReport: flags['client-report'], data: flags.data, seed, spec: flags.spec, like: flags.like })
  return Object.freeze({
    ...(spec ? { spec } : {}),
    ...(like ? { like } : {}),
    ...(flags['client-report'] ? { clientReport: flags['client-report'] } : {}),
    help: flags.help === true,
    port,
    host,
    apiKeys,
    keySource,
    seed,
    // A twin of a service that took larger bodies takes them too, unless --max-body says otherwise.
    maxBody: flags['max-body'] === undefined && like?.traits.maxBody ? like.traits.maxBody : maxBody,
    maxStore,
    quiet: flags.quiet === true,
    chaos,
    adminKey,
    data: flags.data,
    journal,
    fault,
    allowHosts,
    adminOrigins,
    allowOrigins,
  })
}

/**
 * Refuses two roles for one file: the client report, written at shutdown, would replace the data file (every pet it
 * keeps), its log or lock, the seed, the spec or the `--like` report; a data file, rewritten after every start, would
 * replace the spec or the report. One file under two names (a link, a relative and an absolute path) is one file.
 */
function checkOwnFiles(paths: {
  clientReport?: string
  data?: string
  seed: string | false
  spec?: string
  like?: string
}): void {
  const { clientReport, data, seed, spec, like } = paths
  const read: [string, string | false | undefined][] = [
    ['the seed', seed],
    ['the --spec file', spec],
    ['the --like report', like],
  ]
  const kept: [string, string | undefined][] = data
    ? [
        ['the data file', data],
        ["the data file's log", logPathOf(followed(data))],
        ["the data file's lock", lockPathOf(followed(data))],
      ]
    : []
  const same = (role: [string, string | false | undefined], path: string) =>
    typeof role[1] === 'string' && fileKey(role[1]) === fileKey(path)
  if (clientReport) {
    const role = [...kept, ...read].find((role) => same(role, clientReport))
    if (role)
      throw new UsageError(
        `--client-report ${clientReport} is ${role[0]}: the report written at shutdown would replace it; give another file`,
      )
  }
  if (data) {
    const role = read.slice(1).find((role) => same(role, data))
    if (role)
      throw new UsageError(`--data ${data} is ${role[0]}: the stub would write its pets over it; give another file`)
  }
}

/** A path with its symbolic links followed, as the stub and a write follow them (to a file not made yet, too). */
function followed(path: string): string {
  try {
    return dataFileOf(path)
  } catch {
    return path // a link the stub refuses to follow: its start says so
  }
}

/** What one file is known by: its device and inode when it exists, else its absolute path, its folder's links resolved. */
function fileKey(path: string): string {
  const file = followed(path)
  try {
    const stats = statSync(file)
    return `${stats.dev}:${stats.ino}`
  } catch {
    return absolute(file)
  }
}
