/** The `petstore-stub` command: resolves its config, starts the stub, and stops it on SIGINT or SIGTERM. */
import { App } from './app.js'
import { resolveConfig, USAGE, UsageError } from './config.js'
import { FAULTS } from './faults.js'
import { loadSeed } from './seed.js'
import { bufferedLog, ListenError, serve } from './server.js'
import { PetStore, StoreError } from './store.js'

const COMMAND = 'petstore-stub'
/** How long requests in flight may take to finish after a stop signal. */
const SHUTDOWN_GRACE_MS = 5_000

function fail(message: string): never {
  process.stderr.write(`${COMMAND}: ${message}\n`)
  process.exit(2)
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  let config
  try {
    config = resolveConfig(argv, env)
  } catch (error) {
    if (error instanceof UsageError) fail(`${error.message} (see --help)`)
    throw error
  }
  if (config.help) {
    process.stdout.write(USAGE)
    return
  }
  let store: PetStore
  try {
    store = new PetStore(loadSeed(config.seed))
  } catch (error) {
    if (error instanceof StoreError) fail(error.message)
    throw error
  }
  const app = new App({ store, apiKeys: config.apiKeys, maxBody: config.maxBody, fault: config.fault })
  const log = config.quiet ? undefined : bufferedLog((text) => process.stderr.write(text))
  let running
  try {
    running = await serve(app, { port: config.port, host: config.host, log })
  } catch (error) {
    if (error instanceof ListenError) fail(`${error.message}; choose another with --port`)
    throw error
  }
  const key = config.apiKeys[0]!
  process.stdout.write(`Pet Store stub listening on ${running.url} (${store.size} pets)\n`)
  process.stdout.write(`API key: ${key}  (send Authorization: Bearer ${key})\n`)
  if (config.fault) process.stdout.write(`Fault injected: ${config.fault}: ${FAULTS[config.fault]}\n`)

  // A bug must not take the stub down in front of its users: report it and keep serving.
  process.on('uncaughtException', (error) => process.stderr.write(`${COMMAND}: unexpected error: ${error.stack ?? String(error)}\n`))
  process.on('unhandledRejection', (error) => process.stderr.write(`${COMMAND}: unexpected error: ${String(error)}\n`))
  let stopping = false
  const stop = () => {
    if (stopping) process.exit(1) // a second signal does not wait
    stopping = true
    void running
      .close(SHUTDOWN_GRACE_MS)
      .then(() => new Promise((resolve) => setImmediate(resolve))) // the last buffered log lines
      .then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

await main(process.argv.slice(2), process.env)
