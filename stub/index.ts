/** The stub's public face: start it in-process, or build its parts. */
import { App, DEFAULT_MAX_BODY } from './app.js'
import { DEFAULT_API_KEY } from './config.js'
import type { FaultName } from './faults.js'
import { loadSeed, type SeedPet } from './seed.js'
import { bufferedLog, serve } from './server.js'
import { PetStore } from './store.js'

export { App, BASE_PATH, DEFAULT_MAX_BODY, DEPRECATION, type AppOptions, type AppRequest, type AppResponse } from './app.js'
export { ApiError, errorBody } from './errors.js'
export { DEFAULT_API_KEY, DEFAULT_PORT, resolveConfig, UsageError, USAGE, type StubConfig } from './config.js'
export { FAULTS, isFaultName, type FaultName } from './faults.js'
export { DEFAULT_SEED_PATH, loadSeed, type SeedPet } from './seed.js'
export { ListenError, serve, type RunningServer, type ServerOptions } from './server.js'
export { PetStore, StoreError, petJson, toInt64, type Int64, type NewPetRecord, type PetRecord } from './store.js'

/** How to start a stub in-process; every field is optional. */
export interface StubOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number
  /** Address to bind; 127.0.0.1 by default. */
  host?: string
  /** Accepted API keys; `petstore-dev-key` by default. */
  apiKeys?: string[]
  /** A seed file, pets, or `false` for an empty store; the kit's fixture pets by default. */
  seed?: string | false | SeedPet[]
  /** Largest request body in bytes; 64 KiB by default. */
  maxBody?: number
  /** No request log on stderr; true by default here (the command line logs unless `--quiet`). */
  quiet?: boolean
  /** A deliberate fault to inject (see FAULTS). */
  fault?: FaultName
}

/** A running stub. */
export interface Stub {
  /** Base address of the interface, e.g. `http://127.0.0.1:40123/v1`. */
  url: string
  port: number
  /** The store behind it, for tests and benchmarks that add pets directly. */
  store: PetStore
  /** Stops it: in-flight requests get a moment to finish, then every connection ends. */
  close(): Promise<void>
}

/** Starts a stub on a loopback port and resolves once it listens. */
export async function startStub(options: StubOptions = {}): Promise<Stub> {
  const store = new PetStore(loadSeed(options.seed))
  const app = new App({ store, apiKeys: options.apiKeys ?? [DEFAULT_API_KEY], maxBody: options.maxBody ?? DEFAULT_MAX_BODY, fault: options.fault })
  const log = options.quiet === false ? bufferedLog((text) => process.stderr.write(text)) : undefined
  const running = await serve(app, { port: options.port ?? 0, host: options.host ?? '127.0.0.1', log })
  return { url: running.url, port: running.port, store, close: () => running.close() }
}
