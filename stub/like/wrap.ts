/**
 * A likeness put around the stub as wrappers, the way a fault is: one around the store (ids, order, default status,
 * fields kept or added) and a layer around the route (answers to requests the stub would refuse or route otherwise). The
 * product's handlers never ask whether a twin is on; each trait below changes one behaviour, and only when adopted.
 */
import { parseJson, stringifyJson, type JsonValue, type Spec } from '../../spec/index.js'
import {
  basePathOf,
  DEFAULT_MAX_BODY,
  type AppResponse,
  type FullRequest,
  type Handler,
  type Layer,
  type Route,
} from '../http.js'
import { splitTarget, readQuery, headerOf } from '../request.js'
import type { Store } from '../store.js'
import type { Observed } from './answer.js'
import { idMapping, type IdMapping } from './ids.js'
import type { Likeness, Taken, Traits } from './likeness.js'
import { LEADING_ID, likeStore, withAdded } from './store.js'

/** The wrappers of one twin: state they share (kept fields) lives in this call, never in the module. */
export interface LikeWrappers {
  store: (store: Store) => Store
  layer: Layer
  /** The body limit the twin needs (a service that took larger bodies than the stub's default). */
  maxBody?: number
}

/** Sends a request on to the wrapped app. */
type Next = (request: FullRequest) => Promise<AppResponse>

/** Builds the wrappers that make a stub the twin `like` describes. */
export function likeWrappers(like: Likeness, spec: Spec): LikeWrappers {
  const traits = like.traits
  const ids = traits.ids ? idMapping(traits.ids) : undefined
  /** Fields the twin adds to a pet's JSON, by store id: undeclared ones a client sent, and the service's extras. */
  const added = new Map<string, string>()
  const started = new Date().toISOString()
  const extras = traits.extraFields ?? []
  const shown = (json: string): string => withAdded(json, ids, added, extras, started)
  return {
    ...(traits.maxBody ? { maxBody: traits.maxBody } : {}),
    store: (store) => likeStore(store, { traits, ids, shown, added, extras }),
    layer: {
      route: (_next, within) => new LikeRoute(within, spec, traits, ids, added).route,
      // A body too large is refused as the service refused it, and every error answer carries its codes.
      answers: (response) =>
        withCodes(
          traits.tooLarge && response.code === 'body_too_large' ? act(response, traits.tooLarge) : response,
          traits,
        ),
    },
  }
}

/** The route as the twin answers: each trait changes the requests it names, every other request passes as it is. */
class LikeRoute {
  /** The stub composed so far: its route, the operation a request is for, its error answers. */
  readonly #app: Handler
  readonly #spec: Spec
  readonly #traits: Traits
  readonly #ids: IdMapping | undefined
  readonly #added: Map<string, string>
  readonly #base: string
  readonly #undeclared: Set<string>

  constructor(app: Handler, spec: Spec, traits: Traits, ids: IdMapping | undefined, added: Map<string, string>) {
    this.#app = app
    this.#spec = spec
    this.#traits = traits
    this.#ids = ids
    this.#added = added
    this.#base = basePathOf(spec)
    this.#undeclared = new Set(['id', ...Object.keys(spec.propertiesOf('NewPet'))])
  }

  readonly route: Route = (request) => ({
    kind: 'body',
    operationId: this.#app.operationOf(request),
    accept: (body) => this.#answer({ ...request, body }),
  })

  /** The stub's answer with the service's Error codes. */
  readonly #next: Next = async (request) => {
    const routed = this.#app.route(request)
    if (!('kind' in routed)) return this.#codes(routed)
    try {
      return this.#codes(await routed.accept(request.body ?? ''))
    } catch (error) {
      return this.#codes(this.#app.failure(error, routed.operationId))
    }
  }

  async #answer(request: FullRequest): Promise<AppResponse> {
    // A percent-encoded spelling the stub decodes to a documented path: as the service answered it, when it showed.
    if (request.url.includes('%')) {
      const spelled = await this.#asVariant(request)
      if (spelled) return spelled
    }
    const operationId = this.#app.operationOf(request)
    switch (operationId) {
      case 'listPets':
        return this.#listPets(request)
      case 'getPet':
        return this.#getPet(request)
      case 'createPet':
        return this.#createPet(request)
      default:
        return this.#elsewhere(request)
    }
  }

  /** Out-of-range queries: as the report showed for the same query, else as the service did with most. */
  async #listPets(request: FullRequest): Promise<AppResponse> {
    const queries = this.#traits.queries
    if (!queries) return this.#next(request)
    const { path, query } = splitTarget(request.url)
    const known = queries.byQuery.get(query)
    if (known) return this.#query(request, path, query, known)
    const response = await this.#next(request)
    if (response.status !== 400) return response
    // The stub refused the query: the parameter it names decides which fallback applies.
    const name = [...queries.fallback.keys()].find((n) => readQuery(query, [n]).has(n) && response.code !== undefined)
    const fallback = name === undefined ? undefined : queries.fallback.get(name)
    return fallback ? this.#query(request, path, query, fallback) : response
  }

  async #query(request: FullRequest, path: string, query: string, answer: Observed): Promise<AppResponse> {
    if (answer.kind === 'error') {
      // The stub's own refusal (or its 401, which comes first) in the service's words.
      const refused = await this.#next({ ...request, url: `${path}?limit=0` })
      return refused.status === 401 ? refused : act(refused, answer)
    }
    const { query: taken, empty } = this.#takenQuery(query)
    const response = await this.#next({ ...request, url: taken ? `${path}?${taken}` : path })
    return empty && response.status === 200 ? withBody(response, '[]') : response
  }

  /** The query as valid values near the ones sent: limit read leniently and clamped, status matched in any case. */
  #takenQuery(query: string): { query: string; empty: boolean } {
    const limit = this.#spec.parameter('listPets', 'limit')
    const statuses = this.#spec.parameter('listPets', 'status').enum ?? []
    const params = readQuery(query, ['limit', 'status'])
    const parts: string[] = []
    let empty = false
    const limitText = params.get('limit')?.[0]?.trim()
    if (limitText !== undefined) {
      const value = /^0x[0-9a-f]+$/i.test(limitText) ? parseInt(limitText, 16) : Math.trunc(Number(limitText))
      if (limitText !== '' && Number.isFinite(value)) {
        const step = limit.multipleOf ?? 1
        const clamped = Math.min(Number(limit.maximum), Math.max(Number(limit.minimum), value))
        parts.push(`limit=${Math.max(step, clamped - (clamped % step))}`)
      }
    }
    const statusText = params.get('status')?.[0]
    if (statusText !== undefined && statusText !== '') {
      const match = statuses.find((s) => s.toLowerCase() === statusText.trim().toLowerCase())
      if (match) parts.push(`status=${encodeURIComponent(match)}`)
      else empty = true
    }
    return { query: parts.join('&'), empty }
  }

  /** A petId in another form: refused as the service refused it, or read as the integer it spells. */
  async #getPet(request: FullRequest): Promise<AppResponse> {
    const rule = this.#traits.invalidId
    const { path, query } = splitTarget(request.url)
    const slash = path.lastIndexOf('/')
    const text = decodeURIComponentSafe(path.slice(slash + 1))
    const prefix = path.slice(0, slash + 1)
    const plain = text !== undefined && /^-?[0-9]+$/.test(text)
    const inRange = plain && BigInt(text) >= -(2n ** 63n) && BigInt(text) < 2n ** 63n
    if (rule && !(plain && inRange && !/^-?0[0-9]/.test(text))) {
      const spelled = text === undefined ? undefined : /^\s*\+?([0-9]+)(\.0*)?\s*$/.exec(text)?.[1]
      const refusal =
        plain && !inRange
          ? rule.beyondInt64
          : text !== undefined && /^-?0[0-9]/.test(text) && rule.spellingsTaken
            ? undefined
            : spelled !== undefined
              ? rule.spellingsTaken
                ? undefined
                : (rule.spellingRefusal ?? rule.notInteger)
              : rule.notInteger
      if (refusal) {
        const refused = await this.#next({ ...request, url: `${prefix}not-an-id` })
        return refused.status === 401 ? refused : act(refused, refusal)
      }
      if (spelled !== undefined && rule.spellingsTaken)
        return this.#mapped({ ...request, url: `${prefix}${BigInt(spelled)}${query ? `?${query}` : ''}` })
    }
    return this.#mapped(request)
  }

  /** getPet with the twin's id read back into the store's (the store wrapper shows it again). */
  #mapped(request: FullRequest): Promise<AppResponse> {
    return this.#next(request)
  }

  /** createPet: media types, JSON forms and undeclared fields as the service took or refused them. */
  async #createPet(request: FullRequest): Promise<AppResponse> {
    const body = request.body ?? ''
    const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8')
    const refuse = async (answer: Observed) => {
      // An empty body is refused without storing anything: the stub's 401 or 400, then in the service's words.
      const refused = await this.#next({ ...request, body: '' })
      return refused.status === 401 ? refused : act(refused, answer)
    }
    let forwarded = request
    const type = headerOf(request.headers, 'content-type')
    const media = this.#traits.mediaTypes?.get(type === undefined || type === '' ? 'no Content-Type' : type)
    if (media !== undefined && media !== 'accepted') return refuse(media)
    if (media === 'accepted')
      forwarded = { ...request, headers: { ...request.headers, 'content-type': 'application/json' } }
    for (const [label, taken] of this.#traits.leeway ?? []) {
      if (taken !== 'accepted' && leewayIn(label, text)) return refuse(taken)
    }
    const undeclared = this.#traits.undeclared
    let kept: [string, JsonValue][] = []
    if (undeclared) {
      const fields = objectOf(text)
      const names = fields ? Object.keys(fields).filter((name) => !this.#undeclared.has(name)) : []
      if (undeclared.refusal && names.length) return refuse(undeclared.refusal)
      if (undeclared.idRefusal && fields && Object.hasOwn(fields, 'id')) return refuse(undeclared.idRefusal)
      if (undeclared.keep && fields) kept = names.map((name) => [name, fields[name]!])
    }
    const response = await this.#next(forwarded)
    const large = this.#traits.largeInvalid
    if (large && response.status === 400 && Buffer.byteLength(text) > DEFAULT_MAX_BODY) return act(response, large)
    if (response.status !== 201 || kept.length === 0) return response
    return this.#keep(response, kept)
  }

  /** Stores the undeclared fields a created pet came with, and shows them in its 201. */
  #keep(response: AppResponse, kept: [string, JsonValue][]): AppResponse {
    const shownId = LEADING_ID.exec(response.body)?.[1]
    if (shownId === undefined) return response
    const stored = this.#ids ? this.#ids.stored(BigInt(shownId)) : BigInt(shownId)
    if (stored === undefined) return response
    const members = kept.map(([name, value]) => `,${JSON.stringify(name)}:${stringifyJson(value)}`).join('')
    const key = String(stored)
    // The pet's fields as sent come before the ones the service adds (its extras end the body).
    const extras = this.#added.get(key) ?? ''
    this.#added.set(key, members + extras)
    const body = response.body.slice(0, response.body.length - 1 - extras.length)
    return withBody(response, body + members + extras + '}')
  }

  /** A path or method the interface does not have, answered as the service answered it. */
  async #elsewhere(request: FullRequest): Promise<AppResponse> {
    const keyed = request.headers.authorization !== undefined
    const { path } = splitTarget(request.url)
    const suffix = keyed ? '' : ' without a key'
    const template = this.#templateOf(path)
    if (template !== undefined) {
      const answer =
        this.#traits.methods?.get(`${request.method} ${template}${suffix}`) ??
        this.#traits.methods?.get(`TRACE ${template}${suffix}`)
      if (!answer) return this.#next(request)
      if (answer.kind === 'pets' || answer.kind === 'pet' || (request.method === 'HEAD' && answer.status < 300))
        return this.#next({ ...request, method: 'GET' })
      return act(await this.#next(request), answer)
    }
    // A percent-encoded spelling was looked up already, by #answer.
    const spelled = request.url.includes('%') ? undefined : await this.#asVariant(request)
    if (spelled) return spelled
    const response = await this.#next(request)
    return this.#traits.unknownPath && response.status === 404 ? act(response, this.#traits.unknownPath) : response
  }

  /** Another spelling of a documented path answered as the service answered it, if the report showed that spelling. */
  async #asVariant(request: FullRequest): Promise<AppResponse | undefined> {
    const { path, query } = splitTarget(request.url)
    const variant = this.#variantOf(request.method, path)
    const suffix = request.headers.authorization !== undefined ? '' : ' without a key'
    const answer = variant && this.#traits.paths?.get(`${variant.label}${suffix}`)
    if (!variant || !answer) return undefined
    const canonical = variant.canonical + (query ? `?${query}` : '')
    if (answer.status < 300) return this.#answer({ ...request, url: canonical })
    if (answer.status < 400) return redirect(await this.#next(request), answer.status, canonical)
    if (answer.status === 401) {
      const denied = await this.#next({ ...request, url: canonical, body: '' })
      if (denied.status === 401) return denied
    }
    return act(await this.#next(request), answer)
  }

  /** The spec's path template a path matches with some documented method (`/pets/{petId}`), if any. */
  #templateOf(path: string): string | undefined {
    for (const op of Object.values(this.#spec.operations)) {
      if (this.#app.operationOf({ method: op.method, url: path }) === op.operationId) return op.path
    }
    return undefined
  }

  /** Another spelling of a documented path, in the report's words (`GET /pets with a trailing slash`), and the path. */
  #variantOf(method: string, path: string): { label: string; canonical: string } | undefined {
    const templates = [...new Set(Object.values(this.#spec.operations).map((op) => op.path))]
    const base = this.#base
    const candidates: [string, string][] = []
    if (path.length > 1 && path.endsWith('/')) candidates.push([path.slice(0, -1), 'with a trailing slash'])
    if (path.includes('//')) {
      const collapsed = path.replace(/\/{2,}/g, '/')
      candidates.push([
        collapsed,
        collapsed.split('/').length > 3 ? 'with a doubled slash' : 'with a doubled leading slash',
      ])
    }
    // A slash sent as `%2F` (RFC 3986 §2.2: another resource to the letter, the same one to many routers).
    if (/%2f/i.test(path)) candidates.push([path.replace(/%2f/gi, '/'), 'with its slash percent-encoded'])
    // Unreserved characters percent-encoded: the same path to RFC 3986 §2.3, another spelling on the wire.
    const decoded = path.replace(/%([0-9a-f]{2})/gi, (code, hex: string) => {
      const c = String.fromCharCode(parseInt(hex, 16))
      return /[A-Za-z0-9._~-]/.test(c) ? c : code
    })
    if (decoded !== path) {
      const digits = /\/([0-9]+)$/.exec(decoded)
      const inDigits = digits !== null && path.slice(path.lastIndexOf('/') + 1) !== digits[1]
      candidates.push([decoded, inDigits ? 'with its digits percent-encoded' : 'with a percent-encoded letter'])
    }
    if (path !== path.toLowerCase()) {
      const lower = path.toLowerCase()
      const rest = lower.slice(base.length)
      const capital = path.slice(base.length) === rest.replace(/^\/(.)/, (_, c: string) => `/${c.toUpperCase()}`)
      candidates.push([lower, path === path.toUpperCase() || !capital ? 'in upper case' : 'with a capital letter'])
    }
    for (const [canonical, how] of candidates) {
      for (const template of templates) {
        const op = Object.values(this.#spec.operations).find((o) => o.path === template)!
        const url = canonical.startsWith(base.toUpperCase()) ? base + canonical.slice(base.length) : canonical
        if (this.#app.operationOf({ method: op.method, url }) === undefined) continue
        if (this.#templateOf(url) !== template) continue
        return { label: `${method} ${template} ${how}`, canonical: url }
      }
    }
    return undefined
  }

  /** Error codes as the service writes them. */
  #codes(response: AppResponse): AppResponse {
    return withCodes(response, this.#traits)
  }
}

/** Error codes as the service writes them: its 401 and 404 codes, and its style for the others. */
function withCodes(response: AppResponse, traits: Traits): AppResponse {
  const codes = traits.codes
  if (!codes || response.code === undefined) return response
  const code =
    response.status === 401 && codes.unauthorized
      ? codes.unauthorized
      : response.status === 404 && response.code === 'pet_not_found' && codes.notFound
        ? codes.notFound
        : codes.style === 'upper'
          ? response.code.toUpperCase()
          : codes.style === 'numeric'
            ? `E${response.status}`
            : response.code
  return code === response.code ? response : rewriteError(response, response.status, code)
}

/** True when a createPet body shows the JSON form the report's words name. */
function leewayIn(label: string, text: string): boolean {
  if (label.startsWith('a byte-order mark')) return text.charCodeAt(0) === 0xfeff
  if (label.startsWith('a duplicate key')) {
    try {
      parseJson(text)
      return false
    } catch {
      try {
        JSON.parse(text)
        return true
      } catch {
        return false
      }
    }
  }
  const written = / written (\S+)$/.exec(label)?.[1]
  if (written !== undefined)
    return new RegExp(`[:\\[,]\\s*${written.replace(/[.+\\-]/g, '\\$&')}\\s*[,}\\]]`).test(text)
  if (label.endsWith('written with a fraction')) return /[:[,]\s*-?[0-9]{10,}\.[0-9]+\s*[,}\]]/.test(text)
  return false
}

/** The members of a JSON object body, or undefined. */
function objectOf(text: string): Record<string, JsonValue> | undefined {
  try {
    const value = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}

function decodeURIComponentSafe(text: string): string | undefined {
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}

/** The stub's answer turned into the one observed: status, Error code or body, `Allow` as observed. */
export function act(response: AppResponse, answer: Observed): AppResponse {
  let out: AppResponse
  if (answer.kind === 'error') out = rewriteError(response, answer.status, answer.code!)
  else if (answer.kind === 'json') out = { ...withBody(response, answer.body!), status: answer.status, code: undefined }
  else out = { ...withBody(response, ''), status: answer.status, code: undefined }
  out = withoutHeader(out, 'Allow')
  if (answer.allow !== undefined) out = { ...out, headers: out.headers.concat('Allow', answer.allow) }
  if (answer.status === 401 && !hasHeader(out, 'www-authenticate'))
    out = { ...out, headers: out.headers.concat('WWW-Authenticate', 'Bearer realm="petstore"') }
  return out
}

/** The Error response with another status and code; its message and any other member kept. */
function rewriteError(response: AppResponse, status: number, code: string): AppResponse {
  let body: Record<string, JsonValue> = { code, message: 'the request was refused', status }
  try {
    const parsed = JSON.parse(response.body) as unknown
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      body = { ...(parsed as Record<string, JsonValue>), code, status }
  } catch {
    // no Error body to keep: the one above
  }
  return { ...withBody(response, JSON.stringify(body)), status, code }
}

/** A redirect to the documented spelling of the path. */
function redirect(response: AppResponse, status: number, location: string): AppResponse {
  const out = withoutHeader({ ...withBody(response, ''), status, code: undefined }, 'Allow')
  return { ...out, headers: out.headers.concat('Location', location) }
}

function hasHeader(response: AppResponse, name: string): boolean {
  return response.headers.some((item, i) => i % 2 === 0 && item.toLowerCase() === name)
}

function withoutHeader(response: AppResponse, name: string): AppResponse {
  const headers: string[] = []
  for (let i = 0; i < response.headers.length; i += 2)
    if (response.headers[i]!.toLowerCase() !== name.toLowerCase())
      headers.push(response.headers[i]!, response.headers[i + 1]!)
  return { ...response, headers }
}

/** The response with another body, its Content-Length to match. */
function withBody(response: AppResponse, body: string): AppResponse {
  const headers = response.headers.slice()
  const at = headers.findIndex((item, i) => i % 2 === 0 && item.toLowerCase() === 'content-length')
  const length = String(Buffer.byteLength(body))
  if (at >= 0) headers[at + 1] = length
  else headers.push('Content-Length', length)
  return { ...response, headers, body }
}

export type { Taken }
