/** The `petstore-stub` command: resolves its config, starts the stub, and stops it on SIGINT, SIGTERM or SIGHUP. */
import { accessSync, constants, existsSync, statSync, writeFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import {
  bufferedLog,
  clientReportMarkdown,
  createStub,
  DEFAULT_SEED_PATH,
  type BufferedLog,
  FAULTS,
  ListenError,
  PersistError,
  secretsOf,
  serve,
  StoreError,
  streamLog,
  type InProcessStub,
  type RunningServer,
} from '../../stub/index.js'
import { UsageError } from '../usage-error.js'
import { banner } from './banner.js'
import { resolveConfig, usage } from './config.js'

const COMMAND = 'petstore-stub'
/** How long requests in flight may take to finish after a stop signal. */
const SHUTDOWN_GRACE_MS = 5_000
/** Signals this close together are one stop delivered twice, not an impatient second one. */
const REPEAT_WINDOW_MS = 1_000
/** How often a stub started by npm looks whether npm's shell is still its parent. */
const PARENT_CHECK_MS = 250

function fail(message: string): never {
  process.stderr.write(`${COMMAND}: ${message}\n`)
  process.exit(2)
}

/** Why a file could not be written (made in its folder, or written over), or `undefined` when it can. */
function whyUnwritable(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return 'it is not a file'
    accessSync(file, constants.W_OK)
    return undefined
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return code ?? String(error)
  }
  const folder = dirname(resolve(file))
  try {
    if (!statSync(folder).isDirectory()) return `${folder} is not a folder`
    accessSync(folder, constants.W_OK)
    return undefined
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? `there is no folder ${folder}` : (code ?? String(error))
  }
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  // Signals are handled from the start: a supervisor may stop the stub the moment it prints its URL, or before.
  let running: RunningServer | undefined
  let stub: InProcessStub | undefined
  let log: BufferedLog | undefined
  let stoppedAt: number | undefined
  const stop = () => {
    if (stoppedAt !== undefined) {
      // The same stop often arrives twice at once (the terminal signals the process group, and npm passes it on).
      if (performance.now() - stoppedAt < REPEAT_WINDOW_MS) return
      log?.flush()
      process.exit(1) // a second signal, later, does not wait
    }
    stoppedAt = performance.now()
    if (!running) {
      stub?.close() // nothing is served yet; the data file, if it is kept already, is let go
      process.exit(0)
    }
    void running
      .close(SHUTDOWN_GRACE_MS)
      .then(() => stub?.close()) // the data file's last write
      .then(() => writeClientReport())
      .then(() => log?.flush()) // the last log lines
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => process.exit(0))
  }
  /** Other lines on stderr come after the log lines written before them. */
  const report = (text: string) => {
    log?.flush()
    process.stderr.write(text)
  }
  /** The client report at shutdown, when asked for; a file that cannot be written is said, not thrown. */
  const writeClientReport = () => {
    const file = config?.clientReport
    if (!file || !stub) return
    try {
      const report = stub.clientReport()
      writeFileSync(file, file.endsWith('.md') ? clientReportMarkdown(report) : JSON.stringify(report, null, 2) + '\n')
    } catch (error) {
      report(
        `${COMMAND}: cannot write the client report to ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`,
      )
    }
  }
  // SIGHUP: the terminal closed (on Windows, Node emits it as the console window closes), or a supervisor's reload.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop)
  // A reader that went away (`petstore-stub | head -2`) must not take the stub down: output is best effort, from
  // the start on, since the data file's notices (a torn record dropped) are written while the stub starts.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined)
  let config: ReturnType<typeof resolveConfig> | undefined
  try {
    config = resolveConfig(argv, env)
  } catch (error) {
    if (error instanceof UsageError) fail(`${error.message} (see --help)`)
    throw error
  }
  if (config.help) {
    process.stdout.write(usage())
    return
  }
  // A report that could not be written would be found missing only when the stub stops, days later perhaps.
  const unwritable = config.clientReport === undefined ? undefined : whyUnwritable(config.clientReport)
  if (unwritable) fail(`cannot write the client report to ${config.clientReport}: ${unwritable}`)
  const fromData = config.data !== undefined && existsSync(config.data)
  try {
    stub = createStub(
      {
        apiKeys: config.apiKeys,
        // The kit's own seed is fitted to a revision (--spec); a seed the user names is checked as it is.
        seed: config.seed === DEFAULT_SEED_PATH ? undefined : config.seed,
        maxBody: config.maxBody,
        maxStore: config.maxStore,
        chaos: config.chaos,
        adminKey: config.adminKey,
        adminOrigins: config.adminOrigins,
        allowOrigins: config.allowOrigins,
        journal: { entries: config.journal },
        data: config.data,
        onDataError: (message) => report(`${COMMAND}: ${message}\n`),
        fault: config.fault,
        ...(config.spec ? { spec: config.spec } : {}),
        ...(config.like ? { like: config.like } : {}),
      },
      { host: config.host, allowHosts: config.allowHosts },
    )
  } catch (error) {
    // A message that already says how to mend the file (a log's line, a missing data file) needs no more advice.
    const advised = / remove (that line|the log)/.test(String((error as Error).message))
    if (error instanceof StoreError) fail(fromData && !advised ? `${error.message}; fix or remove it` : error.message)
    if (error instanceof PersistError) fail(error.message) // nothing would be kept: no answer may say otherwise
    throw error
  }
  log = config.quiet ? undefined : bufferedLog(streamLog(process.stderr))
  try {
    running = await serve(stub.handler, {
      port: config.port,
      host: config.host,
      log,
      secrets: secretsOf({ apiKeys: config.apiKeys, adminKey: config.adminKey }),
      journal: stub.journal,
      basePath: stub.basePath,
      allowHosts: config.allowHosts,
    })
  } catch (error) {
    stub.close()
    if (error instanceof ListenError) fail(`${error.message}; choose another with --port`)
    throw error
  }
  const petsFrom = fromData
    ? `the data file ${config.data}`
    : config.seed === false
      ? 'no seed'
      : relative(process.cwd(), config.seed)
  process.stdout.write(banner(config, running.url, stub.store.size, petsFrom, stub.dataFile))
  if (config.fault) process.stdout.write(`Fault injected: ${config.fault}: ${FAULTS[config.fault].description}\n`)

  // A bug must not take the stub down in front of its users: report it and keep serving.
  process.on('uncaughtException', (error) => report(`${COMMAND}: unexpected error: ${error.stack ?? String(error)}\n`))
  process.on('unhandledRejection', (error) => report(`${COMMAND}: unexpected error: ${String(error)}\n`))
  if (env.npm_lifecycle_event !== undefined) stopWithParent(stop)
}

/**
 * Under `npx` or `npm start` the stub runs below npm's `sh -c`, which dies on SIGTERM without passing it
 * on: when that parent goes away, the stub stops as if it had the signal, instead of holding its port.
 */
function stopWithParent(stop: () => void): void {
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    stop()
  }, PARENT_CHECK_MS)
  timer.unref()
}

await main(process.argv.slice(2), process.env)
