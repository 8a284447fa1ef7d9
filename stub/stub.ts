/** A whole stub in-process: its store, its app (with a fault around it, if asked), as a Fetch handler or on a port. */
import { App, DEFAULT_MAX_BODY, type Handler } from './app.js'
import { FAULTS, type FaultName } from './faults/index.js'
import { fetchWith } from './fetch.js'
import { loadSeed, type SeedPet } from './seed.js'
import { bufferedLog, serve } from './server.js'
import { PetStore } from './store.js'

/** The key accepted when none is configured. */
export const DEFAULT_API_KEY = 'petstore-dev-key'

/** How to build a stub; every field is optional. */
export interface CreateStubOptions {
  /** Accepted API keys; `petstore-dev-key` by default. */
  apiKeys?: string[]
  /** A seed file, pets, or `false` for an empty store; the kit's fixture pets by default. */
  seed?: string | false | readonly SeedPet[]
  /** Largest request body in bytes; 64 KiB by default. */
  maxBody?: number
  /** A deliberate fault to inject (see FAULTS): for proving that a test suite catches it. */
  fault?: FaultName
}

/** A stub with no socket. */
export interface InProcessStub {
  /** Answers a request exactly as the stub answers it over HTTP (Fetch API: MSW, undici, any fetch-based test). */
  fetch(request: Request): Promise<Response>
  /** The store behind it, for tests and benchmarks that add pets directly. */
  readonly store: PetStore
  /** What the node server drives: the app, with the fault (if any) around it. */
  readonly handler: Handler
}

/** Builds a stub that answers through `fetch`, with no port. Throws StoreError on a bad seed. */
export function createStub(options: CreateStubOptions = {}): InProcessStub {
  const store = new PetStore(loadSeed(options.seed))
  const apiKeys = options.apiKeys ?? [DEFAULT_API_KEY]
  const wrappers = options.fault === undefined ? {} : FAULTS[options.fault].wrap()
  const appStore = wrappers.store?.(store) ?? store
  const app = new App({ store: appStore, apiKeys, maxBody: options.maxBody ?? DEFAULT_MAX_BODY })
  const handler = wrappers.app?.(app, { apiKeys, store: appStore }) ?? app
  return { store, handler, fetch: (request) => fetchWith(handler, request) }
}

/** How to start a stub in-process on a port; every field is optional. */
export interface StubOptions extends CreateStubOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number
  /** Address to bind; 127.0.0.1 by default. */
  host?: string
  /** No request log on stderr; true by default here (the command line logs unless `--quiet`). */
  quiet?: boolean
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
  const stub = createStub(options)
  const log = options.quiet === false ? bufferedLog((text) => process.stderr.write(text)) : undefined
  const running = await serve(stub.handler, { port: options.port ?? 0, host: options.host ?? '127.0.0.1', log })
  return { url: running.url, port: running.port, store: stub.store, close: () => running.close() }
}
