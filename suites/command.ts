/**
 * The `petstore-conformance` command: resolves the configuration, picks the target (or starts the embedded stub),
 * checks that it answers, and runs the conformance tests in vitest with the configured reporters.
 * Exit codes: 0 conformant, 1 at least one failing check, 2 could not run.
 */
import { randomBytes } from 'node:crypto'
import { constants, readFileSync } from 'node:fs'
import { access, mkdir } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { CHECKS } from './checks/index.js'
import { DEFAULT_MAX_TIME_S, DEFAULT_REPORTERS, DEFAULT_RUNS, DEFAULT_TIMEOUT_MS, recordAllowances, REPORTERS, resolveConfig, UsageError, type Config, type Options } from './config.js'
import { preflight } from './preflight.js'
import type { Target } from './run.js'

const NAME = 'petstore-conformance'

/** The command's version, from package.json. */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

/** The `--help` text. */
export function usage(): string {
  const budget = (runs: number) => Object.values(recordAllowances(runs)).reduce((a, b) => a + b, 0)
  const fixed = budget(1) - 1 - recordAllowances(1).stateful // what does not grow with --runs
  const catalogue = CHECKS.map((c) => `  ${c.id.padEnd(34)} ${c.severity.padEnd(8)} ${c.title}`).join('\n')
  return `Usage: ${NAME} [--base-url URL] [--api-key KEY] [options]

Checks that a Pet Store service conforms to its interface (spec/petstore.yaml). Without --base-url it
starts the in-repo stub on a free loopback port and runs against it.

Target:
  --base-url URL       base address, /v1 included (env PETSTORE_BASE_URL)
  --api-key KEY        API key, sent as "Authorization: Bearer KEY" (env PETSTORE_API_KEY); never printed
  --via-prism          send the traffic through Prism's validating proxy and report its violations too

Effort and replay:
  --seed N             fast-check seed (printed at the start of every run), to replay a run
  --runs N             fast-check runs per property (default ${DEFAULT_RUNS})
  --timeout MS         per-request timeout in ms (default ${DEFAULT_TIMEOUT_MS})
  --max-time S         stop sending after S seconds from the start (default ${DEFAULT_MAX_TIME_S}); a slow target's
                       unfinished checks are reported as skipped

Selection and verdict:
  --check ID           run only this check (repeatable; a prefix such as listPets.limit selects a group)
  --operation OP       run only the checks of this operation: listPets, createPet, getPet (repeatable)
  --strict             advice (e.g. missing Deprecation/Sunset headers) fails the run too

Reports:
  --reporter NAME      ${REPORTERS.join(', ')} (repeatable; default ${DEFAULT_REPORTERS.join(', ')})
  --output-dir DIR     where report.json, report.html, report.md and junit.xml go (default ./reports)
  --help, --version

Shared environments: every pet the run creates is named "pcs-<run id>-..." (one test sends an empty
name). A run creates at most ${budget(DEFAULT_RUNS)} pets with the default --runs ${DEFAULT_RUNS}
(with --runs N: at most ${fixed} + N + min(60, max(6, 3 * ceil(N / 3)))), and none to fill the list
when the target already holds 100 pets. There is no delete operation, so these records stay.
Rate limiting (429 with Retry-After) is waited out, up to 20 s per request.

Exit codes: 0 conformant, 1 at least one failing check, 2 could not run (bad usage, target unreachable).

Checks (id, severity, what must hold):
${catalogue}
`
}

function parseFlags(argv: string[]): Options & { help?: boolean; version?: boolean } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        seed: { type: 'string' },
        runs: { type: 'string' },
        timeout: { type: 'string' },
        'max-time': { type: 'string' },
        check: { type: 'string', multiple: true },
        operation: { type: 'string', multiple: true },
        strict: { type: 'boolean' },
        'via-prism': { type: 'boolean' },
        reporter: { type: 'string', multiple: true },
        'output-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    })
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`)
    return {
      baseUrl: values['base-url'],
      apiKey: values['api-key'],
      seed: values.seed,
      runs: values.runs,
      timeout: values.timeout,
      maxTime: values['max-time'],
      check: values.check,
      operation: values.operation,
      strict: values.strict,
      viaPrism: values['via-prism'],
      reporter: values.reporter,
      outputDir: values['output-dir'],
      help: values.help,
      version: values.version,
    }
  } catch (error) {
    if (error instanceof UsageError) throw error
    // parseArgs' own messages are already one clear sentence ("Unknown option '--x'").
    throw new UsageError((error as Error).message.split('\n')[0]!)
  }
}

/** Things to stop when the command ends, last started first. */
type Stopper = () => Promise<void>

async function startTarget(config: Config, stoppers: Stopper[]): Promise<Target> {
  if (config.baseUrl) return { baseUrl: config.baseUrl, apiKey: config.apiKey!, embedded: false }
  const { startStub } = await import('../stub/index.js')
  const apiKey = config.apiKey ?? `pcs-${randomBytes(12).toString('hex')}`
  const stub = await startStub({ port: 0, host: '127.0.0.1', apiKeys: [apiKey], quiet: true })
  stoppers.push(() => stub.close())
  return { baseUrl: stub.url, apiKey, embedded: true }
}

async function startPrism(target: Target, stoppers: Stopper[]): Promise<string> {
  const { startPrismProxy } = await import('./prism.js')
  const { SPEC_PATH } = await import('../spec/index.js')
  let proxy
  try {
    proxy = await startPrismProxy({ upstream: target.baseUrl, specPath: SPEC_PATH })
  } catch (error) {
    throw new UsageError(`cannot start Prism's proxy: ${String((error as Error).message).split('\n')[0]}`)
  }
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
    throw new UsageError(`cannot write reports to ${config.outputDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}

/** Runs the command with `argv` and `env`; resolves to the exit code. Never throws. */
export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const started = Date.now()
  const stoppers: Stopper[] = []
  const stopAll = async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop().catch(() => undefined)
  }
  const interrupted = () => {
    void stopAll().finally(() => process.exit(130))
  }
  process.once('SIGINT', interrupted)
  process.once('SIGTERM', interrupted)
  try {
    const flags = parseFlags(argv)
    if (flags.help) {
      process.stdout.write(usage())
      return 0
    }
    if (flags.version) {
      process.stdout.write(`${VERSION}\n`)
      return 0
    }
    const config = resolveConfig(flags, env)
    await ensureOutputDir(config)
    const target = await startTarget(config, stoppers)
    const sendBaseUrl = config.viaPrism ? await startPrism(target, stoppers) : undefined
    const { notices } = await preflight(target.baseUrl, sendBaseUrl, target.apiKey, config.timeoutMs)
    for (const notice of notices) process.stderr.write(`${NAME}: ${notice}\n`)
    const { runSuite } = await import('./run.js') // vitest loads only once the target answers
    return await runSuite({ config, target, sendBaseUrl, notices, tool: { name: NAME, version: VERSION }, started })
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${NAME}: ${error.message}\n`)
      return 2
    }
    process.stderr.write(`${NAME}: could not run: ${(error as Error)?.message ?? String(error)}\n`)
    return 2
  } finally {
    await stopAll()
    process.off('SIGINT', interrupted)
    process.off('SIGTERM', interrupted)
  }
}
