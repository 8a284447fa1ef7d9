/**
 * The stub's HTTP semantics with no socket: a request (method, target, headers, body) goes in, a
 * response (status, flat header list, body text) comes out. Tests call it directly; server.ts binds it.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { spec, stringifyJson, type OperationId, type Spec } from '../spec/index.js'
import { ApiError, errorBody } from './errors.js'
import { NewPetReader } from './new-pet.js'
import { decodeComponent, parsePetId, quote, readQuery, sameText, splitTarget, type RequestHeaders } from './request.js'
import { allowedHeaders, EXPOSED, preflightHeaders } from './cors.js'
import { generate } from './generate.js'
import { specExamples, type SpecExamples } from './examples.js'
import { readPreferences, type Preferences } from './prefer.js'
import { StoreError, type Store } from './store.js'
import type { SocketDirective } from './socket.js'

export type { RequestHeaders } from './request.js'

/** The path prefix that carries the interface version ("Versioning" in the interface), read from the spec's servers. */
export const BASE_PATH = basePath(spec().doc.servers ?? [])

/** When getPet was deprecated, as RFC 9745 `@<unix seconds>`: 2025-12-05T00:00:00Z, the date the stub chose. */
export const DEPRECATION = '@1764892800'

/** The request body limit when none is configured: 64 KiB. */
export const DEFAULT_MAX_BODY = 64 * 1024

/** The realm of the RFC 6750 challenge on 401. */
export const REALM = 'petstore'

/** A request as the app sees it; `url` is the request target (path and query). */
export interface AppRequest {
  method: string
  url: string
  headers: RequestHeaders
  /** What the app remembers about the connection the request came on (the server keeps one per socket). */
  connection?: ConnectionMemo
}

/** Per-connection memory: the token this connection already proved, so its next requests skip the digest. */
export interface ConnectionMemo {
  acceptedToken?: string
}

export { SOCKET_DIRECTIVES, TRICKLE_MS, type SocketDirective } from './socket.js'

/**
 * A response: status, headers as a flat `[name, value, ...]` list (what `res.writeHead` takes), body text,
 * and the Error code when it is one (for the log). The edges (server.ts, fetch.ts) honour `delayMs` and `socket`.
 */
export interface AppResponse {
  status: number
  headers: string[]
  body: string
  code?: string
  /** The preferences applied (what `Preference-Applied` says), for the log and the journal. */
  applied?: string
  /** Wait this long before answering. */
  delayMs?: number
  /** Misbehave at the connection instead of answering normally. */
  socket?: SocketDirective
  /** For `trickle`: how long the whole body takes (TRICKLE_MS when absent). */
  trickleMs?: number
  /** For a CORS preflight: the request headers it allowed, as the page asked for them (for the log). */
  allowedHeaders?: string
}

/** The app needs the request body to answer; the server reads it (within `maxBody`) and calls `accept`. */
export interface BodyWanted {
  kind: 'body'
  operationId?: OperationId
  /** A body limit of its own (the admin API's restore), else the handler's. */
  maxBody?: number
  accept(body: Uint8Array | string): AppResponse | Promise<AppResponse>
}

/** What routing a request gives: a response now, or a request for the body. */
export type Routed = AppResponse | BodyWanted

/** A request with its whole body. */
export type FullRequest = AppRequest & { body?: Uint8Array | string }

/** What the edges drive: the {@link App}, or something wrapped around it with the same shape (a fault). */
export interface Handler {
  /** Largest accepted request body in bytes. */
  readonly maxBody: number
  /** Answers a request, or asks for its body. Never throws. */
  route(request: AppRequest): Routed
  /** The answer to a body over `maxBody`. */
  tooLarge(): AppResponse
  /** The answer when handling threw. */
  failure(error: unknown, operationId?: OperationId): AppResponse
  /** The answer to a request that never reached routing (bad HTTP, timeouts). */
  protocolError(status: 400 | 408 | 431, code: string, message: string): AppResponse
  /** The operation a request is for, if any (logs, journal, wrappers). */
  operationOf(request: Pick<AppRequest, 'method' | 'url'>): OperationId | undefined
}

/** Global chaos for soak tests, off by default: latency on every answer, and a share of answers failing. */
export interface Chaos {
  /** Every answer waits a uniform random time from `[min, max]` ms. */
  latencyMs?: readonly [number, number]
  /** The share of requests (0 to 1) answered with `failStatus` instead, state untouched. */
  failRate?: number
  failStatus?: 429 | 503
}

/** What an app is built from. */
export interface AppOptions {
  store: Store
  /** Accepted API keys; at least one. */
  apiKeys: readonly string[]
  /** Largest accepted request body in bytes; 64 KiB when not given. */
  maxBody?: number
  chaos?: Chaos
  /** The source of chance for chaos and `dynamic=true` (tests pass their own). */
  random?: () => number
  /** The interface served: a revision of it, or the spec in use by default. */
  spec?: Spec
}

/** RFC 8259 defines no parameters for application/json, so none is sent. */
export const JSON_TYPE = 'application/json'
/** Seconds a 429 or 503 asks the client to wait (`Retry-After`). */
export const RETRY_AFTER = '1'
/** Where the Content-Length value sits in the prepared header lists. */
const LENGTH_AT = 7

/** A path template of the spec and the operation behind each of its methods. */
interface Route {
  segments: string[]
  operations: Map<string, OperationId>
  allow: string
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

function byteLength(body: Uint8Array | string): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
}

/** Answers a request whose whole body is at hand: routes it, checks the body limit, hands the body over. */
export async function answer(handler: Handler, request: FullRequest): Promise<AppResponse> {
  const routed = handler.route(request)
  if (!('kind' in routed)) return routed
  const body = request.body ?? ''
  if (byteLength(body) > (routed.maxBody ?? handler.maxBody)) return handler.tooLarge()
  try {
    return await routed.accept(body)
  } catch (error) {
    return handler.failure(error, routed.operationId)
  }
}

/** The path of the spec's first server URL (variables at their defaults), e.g. `/v1`. */
function basePath(servers: { url: string; variables?: Record<string, { default: string }> }[]): string {
  for (const server of servers) {
    const url = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => server.variables?.[name]?.default ?? '')
    const path = URL.canParse(url) ? new URL(url).pathname.replace(/\/+$/, '') : ''
    if (path !== '') return path
  }
  throw new Error('the spec names no server with a base path such as /v1')
}

/** The stub's request handling over one store. */
export class App implements Handler {
  /** The pets this app serves. */
  readonly store: Store
  /** Largest accepted request body in bytes. */
  readonly maxBody: number
  readonly #keyDigests: Buffer[]
  readonly #routes: Route[]
  readonly #deprecated: string[]
  /** The headers of every JSON answer, Content-Length left blank; getPet's add the deprecation headers. */
  readonly #head: string[]
  readonly #getPetHead: string[]
  /** Routes by exact path, for the paths with no parameter (the usual spelling skips decoding). */
  readonly #fixedRoutes: Map<string, { route: Route }>
  /** Routes whose one parameter is their last segment, by the path before it (`/v1/pets/`). */
  readonly #lastParamRoutes: { prefix: string; route: Route }[]
  readonly #limit: { minimum: number; maximum: number; default: number }
  readonly #statusFilter: string[]
  readonly #queryNames: string[]
  readonly #newPets: NewPetReader
  readonly #fallback: Map<OperationId | undefined, 400 | 404>
  readonly #examples: SpecExamples
  readonly #chaos: Chaos | undefined
  readonly #random: () => number
  /** Prepared list responses by status filter and count, valid while the store version is `#pagesVersion`. */
  readonly #pages = new Map<string | undefined, (AppResponse | undefined)[]>()
  #pagesVersion = -1

  constructor(options: AppOptions) {
    if (options.apiKeys.length === 0) throw new Error('the stub needs at least one API key')
    this.store = options.store
    this.maxBody = options.maxBody ?? DEFAULT_MAX_BODY
    const { latencyMs, failRate = 0 } = options.chaos ?? {}
    this.#chaos = latencyMs || failRate > 0 ? options.chaos : undefined
    this.#random = options.random ?? Math.random
    const s = options.spec ?? spec()
    this.#examples = specExamples(s)
    this.#keyDigests = options.apiKeys.map(sha256)
    this.#routes = readRoutes(s.operations)
    const getPet = s.operation('getPet')
    const successor = String(s.doc.paths[getPet.path].get['x-successor'] ?? 'GET /pets')
      .split(' ')
      .pop()
    this.#deprecated = ['Deprecation', DEPRECATION, 'Link', `<${BASE_PATH}${successor}>; rel="successor-version"`]
    if (getPet.sunset) this.#deprecated.push('Sunset', getPet.sunset.toUTCString())
    this.#head = [
      'Content-Type',
      JSON_TYPE,
      'Access-Control-Allow-Origin',
      '*',
      'Access-Control-Expose-Headers',
      EXPOSED,
      'Content-Length',
      '',
    ]
    this.#getPetHead = this.#head.concat(this.#deprecated)
    this.#fixedRoutes = new Map()
    this.#lastParamRoutes = []
    for (const route of this.#routes) {
      const params = route.segments.filter((segment) => segment.startsWith('{')).length
      const parent = BASE_PATH + '/' + route.segments.slice(0, -1).join('/') + '/'
      if (params === 0) this.#fixedRoutes.set(BASE_PATH + '/' + route.segments.join('/'), { route })
      else if (params === 1 && route.segments.at(-1)!.startsWith('{'))
        this.#lastParamRoutes.push({ prefix: parent, route })
    }
    const limit = s.parameter('listPets', 'limit')
    this.#limit = { minimum: Number(limit.minimum), maximum: Number(limit.maximum), default: Number(limit.default) }
    this.#statusFilter = s.parameter('listPets', 'status').enum ?? []
    this.#queryNames = Object.entries(s.operation('listPets').parameters)
      .filter(([, p]) => p.in === 'query')
      .map(([name]) => name)
    this.#newPets = new NewPetReader(s)
    // Something unexpected answers 400, or 404 on an operation that documents 404 and no 400 (getPet).
    this.#fallback = new Map([[undefined, 400]])
    for (const op of Object.values(s.operations))
      this.#fallback.set(op.operationId, op.statuses.includes('404') && !op.statuses.includes('400') ? 404 : 400)
  }

  /** Routes a request: answers it, or asks for its body (authenticated createPet). Never throws. */
  route(request: AppRequest): Routed {
    let operationId: OperationId | undefined
    try {
      const { path, query } = splitTarget(request.url)
      const match = this.#match(path)
      if (!match)
        throw new ApiError(404, 'not_found', `no resource at ${quote(path)}; the operations live under ${BASE_PATH}`)
      if (request.method === 'OPTIONS') return this.#preflight(match.route, request)
      operationId = match.route.operations.get(request.method)
      if (operationId === undefined) return this.#methodNotAllowed(request.method, path, match.route)
      if (this.#chaos !== undefined || request.headers.prefer !== undefined)
        return this.#controlled(request, operationId, match.param, query)
      return this.#operate(request, operationId, match.param, query)
    } catch (error) {
      return this.failure(error, operationId)
    }
  }

  #operate(request: AppRequest, operationId: OperationId, param: string | undefined, query: string): Routed {
    switch (operationId) {
      case 'listPets':
        return this.#listPets(request, query)
      case 'getPet':
        return this.#getPet(request, param ?? '')
      case 'createPet':
        return this.#createPet(request)
    }
  }

  /** A request under the client's `Prefer` or the global chaos: a forced answer, or the real one delayed. */
  #controlled(request: AppRequest, operationId: OperationId, param: string | undefined, query: string): Routed {
    const header = request.headers.prefer
    const preferences =
      header === undefined
        ? undefined
        : readPreferences(Array.isArray(header) ? header.join(', ') : header, operationId, this.#examples)
    let routed: Routed
    try {
      if (preferences?.forced) routed = this.#forced(request, operationId, preferences)
      else if (this.#chaos?.failRate && this.#random() < this.#chaos.failRate)
        routed = this.#unavailable(operationId, this.#chaos.failStatus ?? 503, '--fail-rate')
      else routed = this.#operate(request, operationId, param, query)
    } catch (error) {
      routed = this.failure(error, operationId) // a refusal is delayed and marked like any answer
    }
    const [min, max] = this.#chaos?.latencyMs ?? [0, 0]
    const delayMs = preferences?.delayMs ?? (max > 0 ? Math.round(min + this.#random() * (max - min)) : undefined)
    return decorate(routed, delayMs, preferences?.socket, preferences?.applied || undefined)
  }

  /**
   * The answer a client chose: the status and body come from the spec (a named example, a generated body, or
   * the first example of the status), and the request never reaches the store. Credentials are checked first,
   * as the service would, unless the client asks for the 401 itself.
   */
  #forced(request: AppRequest, operationId: OperationId, preferences: Preferences): AppResponse {
    const { status, example, dynamic } = preferences.forced!
    if (status !== 401) {
      const denied = this.#unauthorized(request, operationId)
      if (denied) return denied
    }
    if (status === 429 || status === 503)
      return this.#unavailable(operationId, status, `Prefer: ${preferences.applied}`)
    const examples = this.#examples.of(operationId).filter((candidate) => candidate.status === status)
    const schema = this.#examples.schema(operationId, status)
    let value = (example ? examples.find((candidate) => candidate.name === example) : dynamic ? undefined : examples[0])
      ?.value
    if (value === undefined && schema) value = generate(schema, (node) => this.#examples.resolve(node), this.#random)
    // An Error's `status` repeats the HTTP status, whatever the generator picked.
    if (status >= 400 && value !== null && typeof value === 'object' && !Array.isArray(value) && 'status' in value)
      value = { ...value, status }
    const body = value === undefined ? '' : stringifyJson(value)
    const code = status >= 400 ? ((value as { code?: unknown } | undefined)?.code as string | undefined) : undefined
    const extra = status === 401 ? ['WWW-Authenticate', `Bearer realm="${REALM}"`] : undefined
    return this.#respond(status, body, operationId, extra, code)
  }

  /** A 429 or 503 with an Error body and `Retry-After`: asked for (Prefer, --fail-rate), never on its own. */
  #unavailable(operationId: OperationId, status: 429 | 503, why: string): AppResponse {
    const error =
      status === 429
        ? new ApiError(429, 'rate_limited', `too many requests (asked for by ${why})`)
        : new ApiError(503, 'unavailable', `the service is unavailable (asked for by ${why})`)
    return this.#error(error, operationId, ['Retry-After', RETRY_AFTER])
  }

  /** Answers a request whose whole body is at hand (tests, and anything that does not stream). */
  handle(request: FullRequest): Promise<AppResponse> {
    return answer(this, request)
  }

  /** The operation a request is for, or `undefined` (unknown path or method). */
  operationOf(request: Pick<AppRequest, 'method' | 'url'>): OperationId | undefined {
    try {
      return this.#match(splitTarget(request.url).path)?.route.operations.get(request.method)
    } catch {
      return undefined
    }
  }

  /** The answer to a body over `maxBody`; it closes the connection, since the rest of the body is not read. */
  tooLarge(): AppResponse {
    const error = new ApiError(400, 'body_too_large', `request body exceeds the limit of ${this.maxBody} bytes`)
    return this.#error(error, 'createPet', ['Connection', 'close'])
  }

  /** The one catch-all: an ApiError becomes its Error response, anything else a safe documented 4xx. */
  failure(error: unknown, operationId?: OperationId): AppResponse {
    if (error instanceof ApiError) return this.#error(error, operationId)
    if (error instanceof StoreError) return this.#error(new ApiError(400, 'ids_exhausted', error.message), operationId)
    const status = this.#fallback.get(operationId) ?? 400
    return this.#error(new ApiError(status, 'unexpected_error', 'the request could not be handled'), operationId)
  }

  /** An Error response for a request that never reached routing (bad HTTP, timeouts). */
  protocolError(status: 400 | 408 | 431, code: string, message: string): AppResponse {
    return this.#error(new ApiError(status, code, message), undefined, ['Connection', 'close'])
  }

  #respond(status: number, body: string, operationId?: OperationId, extra?: string[], code?: string): AppResponse {
    // A copy of a prepared list, which writeHead takes as is: cheaper than building or concatenating arrays.
    const headers = operationId === 'getPet' ? this.#getPetHead.slice() : this.#head.slice()
    headers[LENGTH_AT] = String(Buffer.byteLength(body))
    if (extra) for (const item of extra) headers.push(item)
    return { status, headers, body, code }
  }

  #error(error: ApiError, operationId?: OperationId, extra?: string[]): AppResponse {
    return this.#respond(error.status, errorBody(error), operationId, extra, error.code)
  }

  #match(path: string): { route: Route; param?: string } | undefined {
    const fixed = this.#fixedRoutes.get(path)
    if (fixed) return fixed
    // `/v1/pets/42`: a plain last segment (no escapes, so no other spelling of a fixed path) is the parameter.
    for (const { prefix, route } of this.#lastParamRoutes) {
      if (
        path.length > prefix.length &&
        path.startsWith(prefix) &&
        !path.includes('/', prefix.length) &&
        !path.includes('%', prefix.length)
      ) {
        return { route, param: path.slice(prefix.length) }
      }
    }
    if (!path.startsWith(BASE_PATH + '/')) return undefined
    const segments = path.slice(BASE_PATH.length + 1).split('/')
    for (const route of this.#routes) {
      if (route.segments.length !== segments.length) continue
      let param: string | undefined
      let matched = true
      for (let i = 0; i < segments.length && matched; i++) {
        const segment = decodeComponent(segments[i]!, false)
        const template = route.segments[i]!
        if (template.startsWith('{')) {
          param = segment
          matched = segment !== undefined && segment !== ''
        } else matched = segment === template
      }
      if (matched) return { route, param }
    }
    return undefined
  }

  #preflight(route: Route, request: AppRequest): AppResponse {
    // No body, but every answer says JSON: clients and checks that read Content-Type on every response agree.
    const asked = request.headers['access-control-request-headers']
    const allowed = allowedHeaders(Array.isArray(asked) ? asked.join(',') : asked)
    const headers = ['Content-Type', JSON_TYPE, 'Allow', route.allow, ...preflightHeaders(route.allow, allowed)]
    return { status: 204, headers, body: '', allowedHeaders: allowed }
  }

  #methodNotAllowed(method: string, path: string, route: Route): AppResponse {
    const error = new ApiError(
      405,
      'method_not_allowed',
      `${method} is not allowed on ${quote(path)}; allowed: ${route.allow}`,
    )
    return this.#error(error, undefined, ['Allow', route.allow])
  }

  /** The 401 of an operation when the request does not carry an accepted key, else `undefined`. */
  #unauthorized(request: AppRequest, operationId: OperationId): AppResponse | undefined {
    const header = request.headers.authorization
    // Authorization is a singleton field (RFC 9110 §11.6.2): two of them are ambiguous credentials, never accepted.
    if (Array.isArray(header)) {
      return this.#challenge(
        'multiple_credentials',
        'send exactly one Authorization header: Bearer <API_KEY>',
        'invalid_request',
        operationId,
      )
    }
    const text = header?.trim() ?? ''
    if (text === '')
      return this.#challenge(
        'missing_credentials',
        'an API key is required: send Authorization: Bearer <API_KEY>',
        undefined,
        operationId,
      )
    const space = text.search(/[ \t]/)
    const scheme = space < 0 ? text : text.slice(0, space)
    // RFC 6750 §3: a request with another authentication scheme gets the challenge without an error code.
    if (scheme.toLowerCase() !== 'bearer') {
      return this.#challenge(
        'unsupported_scheme',
        'the Authorization header must use the Bearer scheme: Bearer <API_KEY>',
        undefined,
        operationId,
      )
    }
    const token = space < 0 ? '' : text.slice(space + 1).trim()
    if (token === '') return this.#challenge('invalid_token', 'the Bearer token is empty', 'invalid_token', operationId)
    const memo = request.connection
    if (memo?.acceptedToken !== undefined && sameText(token, memo.acceptedToken)) return undefined
    if (this.#isKnownKey(token)) {
      if (memo) memo.acceptedToken = token
      return undefined
    }
    return this.#challenge('invalid_token', 'the API key is not valid', 'invalid_token', operationId)
  }

  /** Compares SHA-256 digests with timingSafeEqual: equal lengths, and no early exit on the first differing key. */
  #isKnownKey(token: string): boolean {
    const digest = sha256(token)
    let known = false
    for (const key of this.#keyDigests) known = timingSafeEqual(key, digest) || known
    return known
  }

  /** A 401 with the RFC 6750 §3 challenge; `error` only when credentials came (§3.1 error codes). */
  #challenge(
    code: string,
    message: string,
    error: 'invalid_token' | 'invalid_request' | undefined,
    operationId: OperationId,
  ): AppResponse {
    const challenge = error ? `Bearer realm="${REALM}", error="${error}"` : `Bearer realm="${REALM}"`
    return this.#error(new ApiError(401, code, message), operationId, ['WWW-Authenticate', challenge])
  }

  #listPets(request: AppRequest, query: string): AppResponse {
    const denied = this.#unauthorized(request, 'listPets')
    if (denied) return denied
    const params = readQuery(query, this.#queryNames)
    const limit = this.#readLimit(params.get('limit'))
    return this.#list(limit, this.#readStatus(params.get('status')))
  }

  /**
   * A page of the list. Pages are kept until the store changes, so repeated reads hand out one prepared
   * response instead of joining the pets again.
   */
  #list(count: number, filter: string | undefined): AppResponse {
    if (this.#pagesVersion !== this.store.version) {
      this.#pages.clear()
      this.#pagesVersion = this.store.version
    }
    let pages = this.#pages.get(filter)
    const cached = pages?.[count]
    if (cached) return cached
    const list = '[' + this.store.page(count, filter).join(',') + ']'
    const response = this.#respond(200, list, 'listPets')
    if (count > this.#limit.maximum) return response // only the pages the spec allows are worth keeping
    if (!pages) this.#pages.set(filter, (pages = []))
    pages[count] = response
    return response
  }

  #readLimit(values: (string | undefined)[] | undefined): number {
    const { minimum, maximum } = this.#limit
    if (values === undefined) return this.#limit.default
    const expected = `limit must be an integer from ${minimum} to ${maximum}`
    if (values.length > 1)
      throw new ApiError(400, 'invalid_limit', `${expected}, given once; got ${values.length} values`)
    const [text] = values
    if (text === undefined) throw new ApiError(400, 'invalid_limit', `${expected}; got malformed percent-encoding`)
    const value = /^[0-9]{1,10}$/.test(text) ? Number(text) : NaN
    if (!(value >= minimum && value <= maximum))
      throw new ApiError(400, 'invalid_limit', `${expected}; got ${quote(text)}`)
    return value
  }

  #readStatus(values: (string | undefined)[] | undefined): string | undefined {
    if (values === undefined) return undefined
    const expected = `status must be one of ${this.#statusFilter.join(', ')}`
    if (values.length > 1)
      throw new ApiError(400, 'invalid_status', `${expected}, given once; got ${values.length} values`)
    const [text] = values
    if (text === undefined) throw new ApiError(400, 'invalid_status', `${expected}; got malformed percent-encoding`)
    if (!this.#statusFilter.includes(text)) throw new ApiError(400, 'invalid_status', `${expected}; got ${quote(text)}`)
    return text
  }

  #getPet(request: AppRequest, petId: string): AppResponse {
    const denied = this.#unauthorized(request, 'getPet')
    if (denied) return denied
    const id = parsePetId(petId)
    if (id === undefined)
      throw new ApiError(404, 'pet_not_found', `no pet with id ${quote(petId)}: petId must be an int64 integer`)
    const json = this.store.find(id)
    if (json !== undefined) return this.#respond(200, json, 'getPet')
    throw new ApiError(404, 'pet_not_found', `no pet with id ${String(id)}`)
  }

  #createPet(request: AppRequest): Routed {
    const denied = this.#unauthorized(request, 'createPet')
    if (denied) return denied
    return new PendingCreate(request.headers, this.#createWith)
  }

  /** Made once per app: each pending create holds it, so no closure is made per request. */
  readonly #createWith = (body: Uint8Array | string, headers: RequestHeaders) => this.#create(body, headers)

  #create(body: Uint8Array | string, headers: RequestHeaders): AppResponse {
    try {
      return this.#respond(201, this.store.add(this.#newPets.read(body, headers)).json, 'createPet')
    } catch (error) {
      return this.failure(error, 'createPet')
    }
  }
}

/** An authenticated createPet waiting for its body. */
class PendingCreate implements BodyWanted {
  readonly kind = 'body'
  readonly operationId = 'createPet'

  constructor(
    readonly headers: RequestHeaders,
    readonly create: (body: Uint8Array | string, headers: RequestHeaders) => AppResponse,
  ) {}

  accept(body: Uint8Array | string): AppResponse {
    return this.create(body, this.headers)
  }
}

/** The routed answer with a delay, a socket directive and `Preference-Applied`, when any is asked for. */
function decorate(
  routed: Routed,
  delayMs: number | undefined,
  socket: SocketDirective | undefined,
  applied: string | undefined,
): Routed {
  if (delayMs === undefined && socket === undefined && applied === undefined) return routed
  if ('kind' in routed) {
    const accept = async (body: Uint8Array | string) =>
      decorate(await routed.accept(body), delayMs, socket, applied) as AppResponse
    return { kind: 'body', operationId: routed.operationId, accept }
  }
  // Prepared list pages are shared: the decorated answer is a copy.
  const headers = applied === undefined ? routed.headers : routed.headers.concat('Preference-Applied', applied)
  return { ...routed, headers, delayMs, socket, applied }
}

function readRoutes(operations: Record<string, { operationId: OperationId; method: string; path: string }>): Route[] {
  const routes = new Map<string, Route>()
  for (const op of Object.values(operations)) {
    const route = routes.get(op.path) ?? { segments: op.path.split('/').slice(1), operations: new Map(), allow: '' }
    route.operations.set(op.method, op.operationId)
    routes.set(op.path, route)
  }
  for (const route of routes.values()) route.allow = [...route.operations.keys(), 'OPTIONS'].join(', ')
  return [...routes.values()]
}
