/**
 * A whole stub in-process: its store, its app (with a fault around it, if asked), the admin API and the
 * journal, as a Fetch handler or on a port.
 */
import { specFrom, type JsonValue, type Spec } from '../spec/index.js'
import { Admin, adminJson, adminText, type AdminOptions } from './admin.js'
import { ClientReporter, ReportingJournal, type ClientReport } from './client-report.js'
import { clientReportMarkdown } from './client-report-markdown.js'
import { isAdmin } from './admin-path.js'
import {
  App,
  basePathOf,
  compose,
  DEFAULT_MAX_BODY,
  MAX_MAX_BODY,
  asRouted,
  type AppRequest,
  type AppResponse,
  type Chaos,
  type Handler,
  type Route,
  type Routed,
} from './app.js'
import { FAULTS, isFaultName, type FaultName } from './faults/index.js'
import { fetchWith } from './fetch.js'
import { Journal, JOURNAL_LIMITS, type JournalEntry, type JournalFilter, type JournalOptions } from './journal.js'
import { DataFileLock } from './data-lock.js'
import { dataFileOf, keepInFile, readDataFile } from './persist.js'
import { loadSeed, readSnapshot, type SeedPet } from './seed.js'
import { bufferedLog, streamLog } from './log.js'
import { serve, type RunningServer } from './server.js'
import {
  exposureOf,
  HostCheck,
  isOriginToAllow,
  PageOrigins,
  pageRefused,
  withCredentials,
  withoutCors,
  sharesAdminKey,
} from './origin.js'
import { PetStore, type StoreState } from './store.js'
import { acceptOf } from './request.js'
import { likenessSummary, likeWrappers, readLikeness, type Likeness, type ReportData } from './like/index.js'

import { DEFAULT_API_KEY } from './auth.js'

export { DEFAULT_API_KEY }

/**
 * The most bytes of JSON the pets may take before creates are refused (400 `store_full`): about two million pets of
 * the usual size, or two thousand of the largest body. What the stub holds, the data file and its one JSON text stay
 * bounded, so a flood of creates (a runaway test, a page using the public key) cannot exhaust memory, nor make a data
 * file too large to read back.
 */
export const DEFAULT_MAX_STORE = 128 * 1024 * 1024

/** The largest `maxStore`: the state's JSON text stays well under the longest string V8 makes (about 512 MiB). */
export const MAX_MAX_STORE = 256 * 1024 * 1024

/** How to build a stub; every field is optional. */
export interface CreateStubOptions {
  /** Accepted API keys; `petstore-dev-key` by default. */
  apiKeys?: string[]
  /** A seed file, pets, or `false` for an empty store; the kit's fixture pets by default. */
  seed?: string | false | readonly SeedPet[]
  /** Largest request body in bytes; 64 KiB by default. */
  maxBody?: number
  /** The most bytes of JSON the pets may take before a create is refused ({@link DEFAULT_MAX_STORE} by default). */
  maxStore?: number
  /** Global latency and failures, off by default. */
  chaos?: Chaos
  /** The source of chance for chaos and `Prefer: dynamic=true`; `Math.random` by default. */
  random?: () => number
  /** The request journal's bounds (1000 entries, 1 MiB by default), or `false` for none. */
  journal?: JournalOptions | false
  /** When set, the admin API needs `Authorization: Bearer <adminKey>`. */
  adminKey?: string
  /**
   * Origins whose pages may use the admin API (`http://localhost:5173`): it then answers them with CORS headers.
   * By default no page on another origin can read it or change anything through it.
   */
  adminOrigins?: string[]
  /**
   * Origins whose pages may call the interface besides this machine's (`https://app.example`; `null` for a page opened
   * from a file, `*` for every one). By default only pages on a loopback name or address, or on a name the stub answers
   * for, get CORS grants: a page of another site the developer visits can neither read nor change the pets.
   */
  allowOrigins?: string[]
  /**
   * A data file that keeps the pets across restarts: read if it exists (with its log of changes), every change
   * flushed to it before its answer leaves, folded into one snapshot on close.
   */
  data?: string
  /**
   * Told of what the data file met that is no answer's: a torn record dropped at start, a last write that failed, a file
   * written again after it was removed or replaced under the stub.
   */
  onDataError?: (message: string) => void
  /** A deliberate fault to inject (see FAULTS): for proving that a test suite catches it. */
  fault?: FaultName
  /**
   * The interface to serve: a revision of the bundled spec (a loaded {@link Spec} or a file path), which the pets,
   * their validation, limits, enums and headers follow; the bundled spec by default. A file that is not a revision
   * of this interface throws SpecError.
   */
  spec?: Spec | string
  /**
   * Make the stub a twin of a real service: a conformance report of it (report.json's path, its parsed JSON, or a
   * likeness read with readLikeness), whose choices where the interface is silent the stub adopts. A report of
   * another kit version or spec revision throws LikeError.
   */
  like?: string | ReportData | Likeness
}

/** A stub with no socket. */
export interface InProcessStub {
  /** Answers a request exactly as the stub answers it over HTTP (Fetch API: MSW, undici, any fetch-based test). */
  fetch(request: Request): Promise<Response>
  /** The store behind it, for tests and benchmarks that add pets directly. */
  readonly store: PetStore
  /** The version prefix the operations are served under, read from the spec's servers: `/v1` in the bundled spec. */
  readonly basePath: string
  /** What the node server drives: the admin API and the app, with the fault (if any) around the app. */
  readonly handler: Handler
  readonly journal: Journal
  /** Puts the pets back to the seed and empties the client report (`POST /__stub/reset`). */
  reset(): void
  /** Every pet and the next id (`GET /__stub/state`). */
  snapshot(): StoreState
  /** Replaces every pet (`PUT /__stub/state`): a snapshot or an array of pets, checked whole first; throws StoreError. */
  restore(snapshot: StoreState | readonly SeedPet[] | JsonValue): void
  /** The journal, newest first (`GET /__stub/requests`). */
  requests(filter?: JournalFilter): JournalEntry[]
  /** Empties the journal (`DELETE /__stub/requests`); returns how many entries it held. */
  clearRequests(): number
  /** Folds the data file's log into its snapshot, if there is one, and stops keeping the store there. */
  close(): void
  /**
   * The traffic received since the start or the last reset, judged against the interface (`GET /__stub/client-report`):
   * misuses with their basis, count, first time and an example, and the documented answers never received.
   */
  clientReport(): ClientReport
  /** What the stub adopted from a report (`like`), and what it could not mimic; `undefined` when it is no twin. */
  readonly like: Likeness | undefined
  /** The file the store is kept in (`data` with its links followed), when there is one. */
  readonly dataFile: string | undefined
}

/**
 * Builds a stub that answers through `fetch`, with no port. Throws StoreError on a bad seed or data file, SpecError on a
 * bad spec. `served` says where a node server will serve it, so that pages on the bound address and the names allowed
 * with `allowHosts` are this machine's too.
 */
export function createStub(
  options: CreateStubOptions = {},
  served?: { host: string; allowHosts?: readonly string[] },
): InProcessStub {
  // Limits first: a bad one is refused before any file is taken.
  const maxStore = limited('maxStore', options.maxStore, 1, MAX_MAX_STORE) ?? DEFAULT_MAX_STORE
  const maxBody = limited('maxBody', options.maxBody, 1, MAX_MAX_BODY)
  const bounds = options.journal === false ? { entries: 0 } : options.journal
  const journalBounds = {
    entries: limited('journal.entries', bounds?.entries, 0, JOURNAL_LIMITS.entries),
    bytes: limited('journal.bytes', bounds?.bytes, 0, JOURNAL_LIMITS.bytes),
  }
  checkKeys(options)
  checkOrigins(options)
  if (options.fault !== undefined && !isFaultName(options.fault))
    throw new TypeError(`createStub: no fault is named ${JSON.stringify(options.fault)}`)
  const spec = specFrom(options.spec)
  const seed = loadSeed(options.seed, spec)
  const like = options.like === undefined ? undefined : readLikeness(options.like, spec)
  const data = options.data === undefined ? undefined : dataFileOf(options.data)
  // The file is held before it is read: a stub still stopping on it acknowledges creates until it lets go of it.
  const lock = data === undefined ? undefined : DataFileLock.take(data)
  try {
    const saved = data === undefined ? undefined : readDataFile(data, spec, options.onDataError)
    const store = new PetStore(saved?.pets ?? seed, saved?.nextId)
    store.maxBytes = maxStore
    const apiKeys = options.apiKeys ?? [DEFAULT_API_KEY]
    const reporter = new ClientReporter({ spec, operationOf: (request) => app.operationOf(request) })
    const journal = new ReportingJournal({ ...journalBounds, secrets: secretsOf(options) }, reporter)
    const wrappers = options.fault === undefined ? {} : FAULTS[options.fault].wrap()
    const twin = like && likeWrappers(like, spec)
    const faultStore = wrappers.store?.(store) ?? store
    const appStore = twin ? twin.store(faultStore) : faultStore
    const app = new App({
      store: appStore,
      apiKeys,
      maxBody: maxBody ?? twin?.maxBody ?? DEFAULT_MAX_BODY,
      chaos: options.chaos,
      random: options.random,
      spec,
    })
    const more: AdminOptions['more'] = {
      '/like': {
        summary: 'what this twin adopted from a report, and what it could not mimic',
        methods: {
          GET: () =>
            like
              ? adminJson(200, likenessSummary(like))
              : adminJson(404, { code: 'not_a_twin', message: 'the stub was started without --like', status: 404 }),
        },
      },
    }
    more['/client-report'] = {
      summary: 'the traffic received, judged against the interface (JSON, or Markdown with Accept: text/markdown)',
      methods: {
        GET: (request, query) => {
          const accept = request.headers.accept
          const report = reporter.report()
          // Markdown when asked for by name and wanted at least as much as JSON (`text/markdown;q=0` is a refusal).
          const asMarkdown = acceptOf(accept, 'text/markdown')
          const markdown =
            (asMarkdown?.specificity === 2 &&
              asMarkdown.weight > 0 &&
              asMarkdown.weight >= (acceptOf(accept, 'application/json')?.weight ?? 0)) ||
            /(^|&)format=markdown(&|$)/.test(query)
          const answer = markdown
            ? adminText(200, 'text/markdown; charset=utf-8', clientReportMarkdown(report))
            : adminJson(200, report)
          return { ...answer, headers: [...answer.headers, 'Vary', 'Accept'] } // a cache must not serve one for the other
        },
        DELETE: () => {
          reporter.reset()
          return adminJson(200, { cleared: true })
        },
      },
    }
    const hosts = served && new HostCheck(served.host, served.allowHosts)
    const pages = new PageOrigins(options.allowOrigins, hosts)
    const admin = new Admin({
      store,
      seed,
      journal,
      adminKey: options.adminKey,
      spec,
      origins: options.adminOrigins,
      hosts,
      more,
      onReset: () => reporter.reset(),
    })
    // Innermost first: the fault, the twin, then the admin API and the pages' credentials.
    const handler = compose(app, [
      wrappers.layer?.({ apiKeys, store: appStore }) ?? {},
      twin?.layer ?? {},
      { route: (next) => (request) => (isAdmin(request.url) ? admin.route(request) : forPages(next, request, pages)) },
    ])
    const persistence = data === undefined ? undefined : keepInFile(store, data, options.onDataError, lock)
    return {
      store,
      basePath: basePathOf(spec),
      handler,
      journal,
      fetch: (request) => fetchWith(handler, request, journal),
      reset: () => {
        store.replace(seed)
        reporter.reset()
      },
      snapshot: () => store.state(),
      restore: (snapshot) => {
        const { pets, nextId } = readSnapshot(snapshot as JsonValue, 'the snapshot', spec)
        store.replace(pets, nextId)
      },
      requests: (filter) => journal.read(filter),
      clearRequests: () => journal.clear(),
      close: () => persistence?.close(),
      like,
      dataFile: data,
      clientReport: () => reporter.report(),
    }
  } catch (error) {
    lock?.release() // a data file that cannot be read or written, or an option found bad late: the file is let go
    throw error
  }
}

/**
 * The app's answer to `request`. A page's request names its origin: one of an origin allowed (see {@link PageOrigins})
 * may carry cookies, so its answer names that origin; one of any other gets no CORS grant, its preflight a 403.
 */
function forPages(next: Route, request: AppRequest, pages: PageOrigins): Routed {
  const origin = request.headers.origin
  if (typeof origin !== 'string') {
    // A browser's request that names no origin (`<img>`, a no-cors GET) says in Sec-Fetch-Site that it came from another
    // site, and in Referer (which a page can shorten, never forge) which page sent it: one of the developer's is recorded
    // (a page of http://localhost:5173 calling http://127.0.0.1:4010 is cross-site too).
    if (request.headers['sec-fetch-site'] === 'cross-site' && !pages.allows(refererOrigin(request.headers.referer)))
      request.unrecorded = true
    return next(request)
  }
  if (pages.allows(origin)) return mapAnswer(next(request), (answer) => withCredentials(answer, origin))
  // Marked on the request, so that it stays out also when it gets no answer (a client that left).
  request.unrecorded = true
  if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined)
    return pageRefused(origin)
  return mapAnswer(next(request), withoutCors)
}

/** The origin of a `Referer` (`http://localhost:5173` of `http://localhost:5173/app?x`), or `''` without one. */
function refererOrigin(referer: string | string[] | undefined): string {
  if (typeof referer !== 'string' || !URL.canParse(referer)) return ''
  const { origin } = new URL(referer)
  return origin === 'null' ? '' : origin
}

/** What `routed` answers, passed through `change` (once the body is read, for a request that wants one). */
function mapAnswer(routed: Routed, change: (answer: AppResponse) => AppResponse): Routed {
  if (!('kind' in routed)) return change(routed)
  return {
    kind: 'body',
    operationId: routed.operationId,
    maxBody: routed.maxBody,
    accept: (body) => {
      const answer = routed.accept(body)
      return answer instanceof Promise ? answer.then(change) : change(answer)
    },
    finish: (answer) => change(asRouted(routed, answer)),
  }
}

/** How to start a stub in-process on a port; every field is optional. */
export interface StubOptions extends CreateStubOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number
  /** Address to bind; 127.0.0.1 by default. Any but a loopback address needs `adminKey`, as `--host` needs `--admin-key`. */
  host?: string
  /** No request log on stderr; true by default here (the command line logs unless `--quiet`). */
  quiet?: boolean
  /** Names a request's `Host` may give besides loopback names and the bound address (`*`: any, which needs `adminKey`). */
  allowHosts?: string[]
}

/** A running stub. */
export interface Stub {
  /** Base address of the interface, e.g. `http://127.0.0.1:40123/v1`. */
  url: string
  port: number
  /** The store behind it, for tests and benchmarks that add pets directly. */
  store: PetStore
  /** The same stub without the socket: its admin methods and Fetch handler. */
  stub: InProcessStub
  /** Stops it: in-flight requests get a moment to finish, then every connection ends. */
  close(): Promise<void>
}

/**
 * Starts a stub on a loopback port and resolves once it listens. Throws a TypeError, before binding anything, for
 * options that would leave its admin API open to other machines or to DNS-rebinding pages (see `host`, `allowHosts`).
 */
export async function startStub(options: StubOptions = {}): Promise<Stub> {
  const host = options.host ?? '127.0.0.1'
  checkKeys(options) // before they are read below, so that keys of the wrong kind are named as such
  const exposure = exposureOf(host, options.allowHosts, options.adminKey, options.apiKeys)
  if (exposure === 'host-name')
    throw new TypeError(
      `allowHosts must hold host names or addresses with no port, or '*' alone, got ${JSON.stringify(options.allowHosts)}`,
    )
  if (exposure === 'shared-admin-key') throw new TypeError(SHARED_ADMIN_KEY)
  if (exposure === 'reachable') throw new TypeError(`host ${host} is reachable from other machines: give adminKey too`)
  if (exposure === 'any-host')
    throw new TypeError(`allowHosts '*' answers any host name, a DNS-rebinding page's too: give adminKey too`)
  if (exposure === 'public-key')
    throw new TypeError(
      `allowHosts '*' answers a DNS-rebinding page too, which knows the default API key: give apiKeys`,
    )
  const stub = createStub(options, { host, allowHosts: options.allowHosts })
  const log = options.quiet === false ? bufferedLog(streamLog(process.stderr)) : undefined
  let running: RunningServer
  try {
    running = await serve(stub.handler, {
      port: options.port ?? 0,
      host,
      log,
      secrets: secretsOf(options),
      journal: stub.journal,
      basePath: stub.basePath,
      allowHosts: options.allowHosts,
    })
  } catch (error) {
    stub.close() // a port in use: the data file and its lock are let go, so that a start on another port may have them
    throw error
  }
  return {
    url: running.url,
    port: running.port,
    store: stub.store,
    stub,
    close: () =>
      running.close().then(() => {
        log?.flush()
        stub.close()
      }),
  }
}

/** Throws a TypeError for keys the command line would refuse: no key, an empty one, or no text. */
function checkKeys(options: CreateStubOptions): void {
  const { apiKeys, adminKey } = options
  // As the command takes them: a key travels as a Bearer token, so visible ASCII with no spaces (one with a space, or
  // an empty one, would lock out everyone).
  const key = (value: unknown) => typeof value === 'string' && /^[\x21-\x7e]+$/.test(value)
  if (apiKeys !== undefined && !(Array.isArray(apiKeys) && apiKeys.length > 0 && everyOf(apiKeys, key)))
    throw new TypeError('createStub: apiKeys must be a list of at least one key, each visible ASCII with no spaces')
  if (adminKey !== undefined && !key(adminKey))
    throw new TypeError('createStub: adminKey must be visible ASCII characters with no spaces')
  if (sharesAdminKey(adminKey, apiKeys)) throw new TypeError(`createStub: ${SHARED_ADMIN_KEY}`)
}

/** Throws a TypeError for origins the command line would refuse (see isOriginToAllow). */
function checkOrigins({ adminOrigins, allowOrigins }: CreateStubOptions): void {
  if (
    adminOrigins !== undefined &&
    !(Array.isArray(adminOrigins) && everyOf(adminOrigins, (o) => isOriginToAllow(o, false)))
  )
    throw new TypeError(
      `createStub: adminOrigins must list origins such as http://localhost:5173 (no null, no *), got ${JSON.stringify(adminOrigins)}`,
    )
  if (
    allowOrigins !== undefined &&
    !(Array.isArray(allowOrigins) && everyOf(allowOrigins, (o) => isOriginToAllow(o, true)))
  )
    throw new TypeError(
      `createStub: allowOrigins must list origins such as https://app.example (or null, or *), got ${JSON.stringify(allowOrigins)}`,
    )
}

/** True when every item of the list meets `test`, holes included (`every` skips them). */
function everyOf(list: readonly unknown[], test: (item: unknown) => boolean): boolean {
  for (let i = 0; i < list.length; i++) if (!test(list[i])) return false
  return true
}

/** Why an admin key that is an API key, or the default one, is refused. */
const SHARED_ADMIN_KEY = `adminKey must differ from every API key and from the default key ${DEFAULT_API_KEY}, which every page knows: the admin API would open to whoever may call the interface`

/**
 * A limit of {@link CreateStubOptions} as used: at most `most` (a larger one takes too much memory to be meant), and
 * a RangeError for one that is no number or below `least`, thrown before the stub is made (a NaN body limit refused
 * every create).
 */
function limited(name: string, value: number | undefined, least: number, most: number): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !(value >= least))
    throw new RangeError(`createStub: ${name} must be a number of at least ${least}, got ${String(value)}`)
  return Math.min(Math.floor(value), most)
}

/** What a stub never writes to its log or journal: the API keys it takes, and the admin key. */
export function secretsOf(options: Pick<CreateStubOptions, 'apiKeys' | 'adminKey'>): string[] {
  return [...(options.apiKeys ?? [DEFAULT_API_KEY]), ...(options.adminKey ? [options.adminKey] : [])]
}
