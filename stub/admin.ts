/**
 * The admin API under `/__stub/` (described by stub/admin.yaml, which it serves): reset to the seed, snapshot
 * and restore, the request journal, health, and the interface's own spec. Outside `/v1`, so the interface's
 * paths stay exactly as documented.
 */
import { readFileSync } from 'node:fs'
import { parseJson, SPEC_PATH, stringifyJson, type JsonValue, type Spec } from '../spec/index.js'
import { ADMIN_PREFIX } from './admin-path.js'
import { joinedPieces } from './arena.js'
import { JSON_TYPE, type AppRequest, type AppResponse, type Routed } from './app.js'
import { RETRY_AFTER } from './http.js'
import { allowedHeaders, corsRemoved, exposing, preflightHeaders } from './cors.js'
import { ApiError, errorBody } from './errors.js'
import { AdminOrigins, type HostCheck } from './origin.js'
import { notKept } from './respond.js'
import type { Journal, JournalFilter } from './journal.js'
import { quote, readQuery, sameText, splitTarget } from './request.js'
import { int64Properties, readSnapshot } from './seed.js'
import { PersistError, StoreError, type PetRecord, type PetStore } from './store.js'

/** Refuses bytes that are not UTF-8, rather than reading them as U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Where this API's own OpenAPI document lives. */
export const ADMIN_SPEC_PATH = new URL('./admin.yaml', import.meta.url)

/** The largest snapshot a restore accepts: far above the interface's body limit, since it holds every pet. */
export const ADMIN_MAX_BODY = 64 * 1024 * 1024

const YAML_TYPE = 'application/yaml'

/** What the admin API works on. */
export interface AdminOptions {
  store: PetStore
  /** What a reset goes back to. */
  seed: readonly PetRecord[]
  journal: Journal
  /** When set, every operation but the preflight needs `Authorization: Bearer <adminKey>`. */
  adminKey?: string
  /** The interface the stub serves (a revision of it, when given): restores are checked and it is served by it. */
  spec?: Spec
  /** Origins whose pages may use the admin API (`https://app.example:3000`); none but the stub's own by default. */
  origins?: readonly string[]
  /** The names the stub's server answers for, a page's own origin under one of them let in; any when not given (no server). */
  hosts?: HostCheck
  /** More endpoints under the prefix, by path (`/like`, `/client-report`): what a twin adopted, the client report. */
  more?: Record<string, { summary: string; methods: Record<string, (request: AppRequest, query: string) => Routed> }>
  /** Called by a reset (`POST /reset`), after the pets are back to the seed. */
  onReset?: () => void
}

type Operation = (request: AppRequest, query: string) => Routed

interface Endpoint {
  summary: string
  methods: Record<string, Operation>
}

/** The admin API's request handling. */
export class Admin {
  readonly #options: AdminOptions
  readonly #origins: AdminOrigins
  readonly #started = performance.now()
  readonly #endpoints: Map<string, Endpoint>
  #documents: { petstore: string; admin: string } | undefined

  constructor(options: AdminOptions) {
    this.#options = options
    this.#origins = new AdminOrigins(options.origins, options.hosts)
    const { journal } = options
    this.#endpoints = new Map<string, Endpoint>([
      ['/', { summary: 'what this API offers', methods: { GET: () => this.#index() } }],
      ['/health', { summary: 'whether the stub is up, and how full it is', methods: { GET: () => this.#health() } }],
      ['/reset', { summary: 'put the pets back to the seed', methods: { POST: () => this.#reset() } }],
      [
        '/state',
        {
          summary: 'every pet and the next id (GET); replace them (PUT)',
          methods: {
            GET: (_, query) => this.#snapshot(query),
            PUT: () => ({ kind: 'body', maxBody: ADMIN_MAX_BODY, accept: (body) => this.#restore(body) }),
          },
        },
      ],
      [
        '/requests',
        {
          summary: 'the request journal, newest first (GET); empty it (DELETE)',
          methods: { GET: (_, query) => this.#requests(query), DELETE: () => json(200, { cleared: journal.clear() }) },
        },
      ],
      [
        '/petstore.yaml',
        { summary: "the interface's OpenAPI document", methods: { GET: () => document(this.#read().petstore) } },
      ],
      ['/admin.yaml', { summary: "this API's OpenAPI document", methods: { GET: () => document(this.#read().admin) } }],
      ...Object.entries(options.more ?? {}),
    ])
  }

  /**
   * Answers a request under `/__stub`. Never throws. A page on another site gets nothing from it (see stub/origin.ts):
   * its requests are refused, and no answer names its origin unless it was allowed.
   */
  route(request: AppRequest): Routed {
    // A preflight is refused only for its origin: it carries no body, and a page's own is what it asks about.
    const refused =
      request.method === 'OPTIONS'
        ? this.#origins.originRefusal(request.headers)
        : this.#origins.refusal(request.method, request.headers)
    const routed = refused ? error(refused) : this.#route(request)
    const cors = this.#origins.corsHeaders(request.headers.origin)
    if (request.method === 'OPTIONS') return routed // a preflight has its own
    if (!('kind' in routed)) return cors.length === 0 ? routed : withHeaders(routed, cors)
    return {
      kind: 'body',
      maxBody: routed.maxBody,
      accept: (body) => {
        const answer = routed.accept(body)
        if (cors.length === 0) return answer
        return answer instanceof Promise ? answer.then((done) => withHeaders(done, cors)) : withHeaders(answer, cors)
      },
      // The interface's error answers (a body too large) grant every origin: an admin answer names only an allowed one.
      finish: (answer) => withHeaders(corsRemoved(answer), cors),
    }
  }

  #route(request: AppRequest): Routed {
    try {
      const { path, query } = splitTarget(request.url)
      const endpoint = this.#endpoints.get(path.slice(ADMIN_PREFIX.length) || '/')
      if (!endpoint)
        throw new ApiError(404, 'not_found', `no admin resource at ${quote(path)}; GET ${ADMIN_PREFIX}/ lists them`)
      const allow = [...Object.keys(endpoint.methods), 'OPTIONS'].join(', ')
      if (request.method === 'OPTIONS') {
        const asked = request.headers['access-control-request-headers']
        const allowed = allowedHeaders(Array.isArray(asked) ? asked.join(',') : asked)
        const origin = request.headers.origin
        // A preflight from a page not allowed by name gets no CORS headers: its browser then sends nothing.
        const cors =
          typeof origin === 'string' && this.#origins.corsHeaders(origin).length > 2
            ? preflightHeaders(allow, allowed, origin).concat('Vary', 'Origin')
            : []
        return {
          status: 204,
          headers: ['Content-Type', JSON_TYPE, 'Allow', allow, ...cors],
          body: '',
          allowedHeaders: allowed,
        }
      }
      const operation = endpoint.methods[request.method]
      if (!operation)
        return error(
          new ApiError(
            405,
            'method_not_allowed',
            `${request.method} is not allowed on ${quote(path)}; allowed: ${allow}`,
          ),
          ['Allow', allow],
        )
      const denied = this.#unauthorized(request)
      if (denied) return denied
      return operation(request, query)
    } catch (caught) {
      return failure(caught)
    }
  }

  #unauthorized(request: AppRequest): AppResponse | undefined {
    const key = this.#options.adminKey
    if (key === undefined) return undefined
    const header = request.headers.authorization
    const token = typeof header === 'string' ? /^bearer[ \t]+(\S+)\s*$/i.exec(header.trim())?.[1] : undefined
    if (token !== undefined && sameText(token, key)) return undefined
    const why = header === undefined ? 'the admin API needs the admin key' : 'the admin key is not valid'
    return error(new ApiError(401, 'admin_key_required', `${why}: send Authorization: Bearer <ADMIN_KEY>`), [
      'WWW-Authenticate',
      'Bearer realm="petstore-stub-admin"',
    ])
  }

  #index(): AppResponse {
    const operations = [...this.#endpoints].flatMap(([path, endpoint]) =>
      Object.keys(endpoint.methods).map((method) => ({ method, path: ADMIN_PREFIX + path, summary: endpoint.summary })),
    )
    return json(200, { operations })
  }

  #health(): AppResponse {
    const uptimeSeconds = Math.round(performance.now() - this.#started) / 1000
    return json(200, {
      status: 'ok',
      pets: this.#options.store.size,
      uptimeSeconds,
      journal: this.#options.journal.stats,
    })
  }

  #reset(): AppResponse {
    this.#options.store.replace(this.#options.seed)
    this.#options.onReset?.()
    return json(200, { pets: this.#options.store.size })
  }

  /**
   * The state as JSON: int64 values as integers, or as decimal strings with `?int64=string`. Streamed from the store as
   * it was when asked, a chunk of pets at a time: a full store's state is a hundred megabytes and more, and a client
   * that asks for it and never reads must not have the stub hold a copy of it.
   */
  #snapshot(query: string): AppResponse {
    const values = readQuery(query, ['int64']).get('int64')
    const [form] = values ?? ['number']
    if (values !== undefined && (values.length > 1 || (form !== 'string' && form !== 'number')))
      throw new ApiError(
        400,
        'invalid_query',
        `int64 must be given once, as string or number; got ${quote(String(form))}`,
      )
    const view = this.#options.store.view()
    if (form === 'number') {
      const head = `{"nextId":${String(view.nextId)},"pets":[`
      const length = Buffer.byteLength(head) + view.pets.bytes + 2
      return streamed(
        ['Content-Type', JSON_TYPE, 'Content-Length', String(length)],
        [head],
        joinedPieces(view.pets.pieces()),
        [']}'],
      )
    }
    // Without a length: it is known only once every pet is rewritten.
    return streamed(
      ['Content-Type', JSON_TYPE],
      [`{"nextId":${stringifyJson(String(view.nextId))},"pets":[`],
      withInt64Strings(view.pets.pieces(), int64Properties(this.#options.spec)),
      [']}'],
    )
  }

  #restore(body: Uint8Array | string): AppResponse {
    try {
      let value: JsonValue
      try {
        // Bytes that are not UTF-8 are refused, as a create's are, not read as U+FFFD in place of what was sent.
        value = parseJson(typeof body === 'string' ? body : utf8.decode(body), { uniqueKeys: true })
      } catch (caught) {
        const why = caught instanceof SyntaxError ? caught.message : 'it is not UTF-8'
        throw new ApiError(400, 'invalid_json', `the snapshot is not valid JSON: ${why}`)
      }
      let snapshot
      try {
        snapshot = readSnapshot(value, 'the snapshot', this.#options.spec, { int64Strings: true })
      } catch (caught) {
        if (!(caught instanceof StoreError) || !hasUnsafeInteger(value)) throw caught
        // Most likely a JavaScript client's JSON.parse rounded an int64 (2^63 - 1 becomes 2^63) on the way.
        throw new StoreError(
          `${caught.message}; an integer beyond 2^53 may have been rounded by a JavaScript parser: read the state with GET ${ADMIN_PREFIX}/state?int64=string (int64 values as strings) and PUT that back unchanged`,
        )
      }
      this.#options.store.replace(snapshot.pets, snapshot.nextId)
      return json(200, { pets: this.#options.store.size })
    } catch (caught) {
      return failure(caught)
    }
  }

  /** The journal's last answer, for its query, while the journal is as it was then. */
  #journalAnswer: { query: string; changes: number; answer: AppResponse } | undefined

  #requests(query: string): AppResponse {
    const names = ['method', 'path', 'status', 'limit']
    const params = readQuery(query, names)
    const filter: JournalFilter = {}
    for (const name of names) {
      const values = params.get(name)
      if (values === undefined) continue
      const [value] = values
      if (values.length === 1 && value === undefined)
        throw new ApiError(400, 'invalid_filter', `${name} is not percent-encoded text (a % must start %XX)`)
      if (values.length > 1 || value === undefined || value === '')
        throw new ApiError(400, 'invalid_filter', `${name} must be given once, not empty`)
      if (name === 'status' && !/^([1-5][0-9][0-9]|[1-5]xx)$/i.test(value))
        throw new ApiError(400, 'invalid_filter', `status must be a status (404) or a class (4xx); got ${quote(value)}`)
      if (name === 'limit' && !/^[1-9][0-9]{0,8}$/.test(value))
        throw new ApiError(400, 'invalid_filter', `limit must be a whole number from 1; got ${quote(value)}`)
      if (name === 'limit') filter.limit = Number(value)
      else filter[name as 'method' | 'path' | 'status'] = value
    }
    // The same read of an unchanged journal gets the answer made last: a megabyte of JSON each, made anew for two
    // thousand clients, held the loop for 40 s; made once, it is one text, written as bytes shared by them all.
    const journal = this.#options.journal
    const last = this.#journalAnswer
    if (last?.query === query && last.changes === journal.changes) return last.answer
    const answer = json(200, { stats: journal.stats, entries: journal.read(filter) })
    this.#journalAnswer = { query, changes: journal.changes, answer }
    return answer
  }

  #read(): { petstore: string; admin: string } {
    return (this.#documents ??= {
      petstore: this.#options.spec?.text ?? readFileSync(SPEC_PATH, 'utf8'),
      // On disk the admin document refers to the interface's at ../spec/; served, the two sit side by side.
      admin: readFileSync(ADMIN_SPEC_PATH, 'utf8').replaceAll('../spec/petstore.yaml#', 'petstore.yaml#'),
    })
  }
}

function headersFor(type: string, body: string, extra: string[] = []): string[] {
  const headers = ['Content-Type', type, 'Content-Length', String(Buffer.byteLength(body))]
  return extra.length > 0 ? exposing(headers.concat(extra)) : headers
}

/** True when a JSON value holds an integer no JavaScript number keeps exactly. */
function hasUnsafeInteger(value: JsonValue): boolean {
  if (typeof value === 'bigint') return true
  if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value)
  if (value === null || typeof value !== 'object') return false
  return (Array.isArray(value) ? value : Object.values(value)).some(hasUnsafeInteger)
}

function withHeaders(response: AppResponse, extra: string[]): AppResponse {
  return { ...response, headers: exposing(response.headers.concat(extra)) }
}

function raw(status: number, body: string): AppResponse {
  return { status, headers: headersFor(JSON_TYPE, body), body }
}

/** An answer whose body is `head`, then `pieces`, then `tail`, each made only once the client took the one before. */
function streamed(
  headers: string[],
  head: Iterable<string>,
  pieces: Iterator<string | Uint8Array>,
  tail: Iterable<string>,
): AppResponse {
  function* all(): Generator<string | Uint8Array> {
    yield* head
    yield* { [Symbol.iterator]: () => pieces }
    yield* tail
  }
  return { status: 200, headers, body: '', pieces: all() }
}

/** Pets' JSON joined by commas, a piece at a time, rewritten with the values of `names` (the int64 ones) as strings. */
function* withInt64Strings(pieces: Iterator<Buffer>, names: readonly string[]): Generator<string> {
  const wanted = new Set(names)
  let first = true
  for (let next = pieces.next(); !next.done; next = pieces.next()) {
    yield (first ? '' : ',') + int64AsStrings(next.value.toString('utf8'), wanted)
    first = false
  }
}

/**
 * `pets` (pets' JSON, joined by commas) with the numbers of the members named in `names` at the top level of each pet
 * written as strings: a scan of the text, where parsing each pet and writing it again took twice as long (1.2 s for
 * 200,000 pets, against 0.54 s; 0.12 s for the state as stored). Strings are skipped whole, so a name inside one, or a member of a nested object, is left.
 */
export function int64AsStrings(pets: string, names: ReadonlySet<string>): string {
  let shown = ''
  let last = 0
  let depth = 0
  let key = false // the next string at depth 1 is a member's name
  for (let at = 0; at < pets.length; at++) {
    const unit = pets.charCodeAt(at)
    if (unit === 0x22 /* " */) {
      const end = stringEnd(pets, at)
      if (key && depth === 1) {
        key = false
        let value = end + 1
        while (isSpace(pets.charCodeAt(value))) value++
        if (pets.charCodeAt(value) === 0x3a /* : */ && names.has(pets.slice(at + 1, end))) {
          value++
          while (isSpace(pets.charCodeAt(value))) value++
          let after = value
          while (after < pets.length && /[-+0-9.eE]/.test(pets[after]!)) after++
          if (after > value) {
            shown += pets.slice(last, value) + '"' + pets.slice(value, after) + '"'
            last = after
          }
          at = after - 1
          continue
        }
      }
      at = end
    } else if (unit === 0x7b /* { */ || unit === 0x5b /* [ */) {
      depth++
      key = unit === 0x7b && depth === 1
    } else if (unit === 0x7d /* } */ || unit === 0x5d /* ] */) depth--
    else if (unit === 0x2c /* , */ && depth === 1) key = true
  }
  return last === 0 ? pets : shown + pets.slice(last)
}

/** Where the JSON string that begins at `start` ends (its closing quote), its escapes skipped. */
function stringEnd(text: string, start: number): number {
  let at = start + 1
  for (;;) {
    const quote = text.indexOf('"', at)
    if (quote === -1) return text.length
    let slashes = 0
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c /* \ */) slashes++
    if (slashes % 2 === 0) return quote
    at = quote + 1
  }
}

function isSpace(unit: number): boolean {
  return unit === 0x20 || unit === 0x0a || unit === 0x0d || unit === 0x09
}

/** A JSON answer of the admin API. */
export function adminJson(status: number, value: unknown): AppResponse {
  return json(status, value)
}

/** A text answer of the admin API in another media type (Markdown, say). */
export function adminText(status: number, type: string, text: string): AppResponse {
  return { status, headers: headersFor(type, text), body: text }
}

function json(status: number, value: unknown): AppResponse {
  return raw(status, stringifyJson(value))
}

function document(text: string): AppResponse {
  return { status: 200, headers: headersFor(YAML_TYPE, text), body: text }
}

function error(apiError: ApiError, extra?: string[]): AppResponse {
  const body = errorBody(apiError)
  return { status: apiError.status, headers: headersFor(JSON_TYPE, body, extra), body, code: apiError.code }
}

/** The admin API's catch-all: its own errors as they are, a bad snapshot a 400, anything else a 400 too. */
function failure(caught: unknown): AppResponse {
  if (caught instanceof ApiError) return error(caught)
  if (caught instanceof PersistError) return error(notKept(caught), ['Retry-After', RETRY_AFTER])
  if (caught instanceof StoreError) return error(new ApiError(400, 'invalid_snapshot', caught.message))
  return error(new ApiError(400, 'unexpected_error', 'the admin request could not be handled'))
}
