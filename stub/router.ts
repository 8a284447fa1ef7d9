/** Which operation a request is for: the spec's paths under the base path, CORS preflights, 404 and 405. */
import type { OperationId, Spec } from '../spec/index.js'
import { ApiError } from './errors.js'
import { decodeComponent, quote, splitTarget } from './request.js'
import { allowedHeaders, preflightHeaders } from './cors.js'
import type { Operations } from './operations.js'
import type { Responder } from './respond.js'
import { basePathOf, JSON_TYPE, type AppRequest, type AppResponse, type Route } from './http.js'

/** A path template of the spec and the operation behind each of its methods. */
interface PathRoute {
  segments: string[]
  operations: Map<string, OperationId>
  allow: string
}

/** Routes requests to the operations by the spec's paths (the core route); every failure becomes its documented answer. */
export class Router {
  readonly #operations: Operations
  readonly #responder: Responder
  readonly #routes: PathRoute[]
  /** The version prefix the operations live under (`/v1`). */
  readonly #base: string
  /** Routes by exact path, for the paths with no parameter (the usual spelling skips decoding). */
  readonly #fixedRoutes = new Map<string, { route: PathRoute }>()
  /** Routes whose one parameter is their last segment, by the path before it (`/v1/pets/`). */
  readonly #lastParamRoutes: { prefix: string; route: PathRoute }[] = []

  constructor(s: Spec, operations: Operations, responder: Responder) {
    this.#operations = operations
    this.#responder = responder
    this.#routes = readRoutes(s.operations)
    const base = (this.#base = basePathOf(s))
    for (const route of this.#routes) {
      const params = route.segments.filter((segment) => segment.startsWith('{')).length
      const parent = base + '/' + route.segments.slice(0, -1).join('/') + '/'
      if (params === 0) this.#fixedRoutes.set(base + '/' + route.segments.join('/'), { route })
      else if (params === 1 && route.segments.at(-1)!.startsWith('{'))
        this.#lastParamRoutes.push({ prefix: parent, route })
    }
  }

  /** Routes a request: answers it, or asks for its body (authenticated createPet). Never throws. */
  readonly route: Route = (request) => {
    let operationId: OperationId | undefined
    try {
      const { path, query } = splitTarget(request.url)
      const match = this.#match(path)
      if (!match) throw new ApiError(404, 'not_found', `no resource at ${quote(path)}; ${this.#whyNone(path)}`)
      if (request.method === 'OPTIONS') return this.#preflight(match.route, request)
      operationId = match.route.operations.get(request.method)
      if (operationId === undefined) return this.#methodNotAllowed(request.method, path, match.route)
      return this.#operations.operate(request, operationId, match.param, query)
    } catch (error) {
      return this.#responder.failure(error, operationId)
    }
  }

  /** The operation a request is for, or `undefined` (unknown path or method). */
  readonly operationOf = (request: Pick<AppRequest, 'method' | 'url'>): OperationId | undefined => {
    try {
      return this.#match(splitTarget(request.url).path)?.route.operations.get(request.method)
    } catch {
      return undefined
    }
  }

  /** Why no route matched `path`: a segment that cannot be percent-decoded, or a path outside the operations'. */
  #whyNone(path: string): string {
    const malformed = path.split('/').find((segment) => decodeComponent(segment, false) === undefined)
    if (malformed !== undefined)
      return `its segment ${quote(malformed)} is not percent-encoded text (a % must start %XX, XX two hex digits of UTF-8)`
    return `the operations live under ${this.#base || '/'}`
  }

  #match(path: string): { route: PathRoute; param?: string } | undefined {
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
    if (!path.startsWith(this.#base + '/')) return undefined
    const segments = path.slice(this.#base.length + 1).split('/')
    for (const route of this.#routes) {
      if (route.segments.length !== segments.length) continue
      let param: string | undefined
      let matched = true
      for (let i = 0; i < segments.length && matched; i++) {
        const segment = decodeComponent(segments[i]!, false)
        const template = route.segments[i]!
        if (template.startsWith('{')) {
          // A parameter that is not percent-encoded text (`/v1/pets/%`) is still that operation's: its value as sent,
          // which no pet has (its key is checked first, and the answer carries the operation's headers).
          param = segment ?? segments[i]!
          matched = param !== ''
        } else matched = segment === template
      }
      if (matched) return { route, param }
    }
    return undefined
  }

  #preflight(route: PathRoute, request: AppRequest): AppResponse {
    // No body, but every answer says JSON: clients and checks that read Content-Type on every response agree.
    const asked = request.headers['access-control-request-headers']
    const allowed = allowedHeaders(Array.isArray(asked) ? asked.join(',') : asked)
    const headers = ['Content-Type', JSON_TYPE, 'Allow', route.allow, ...preflightHeaders(route.allow, allowed)]
    return { status: 204, headers, body: '', allowedHeaders: allowed }
  }

  #methodNotAllowed(method: string, path: string, route: PathRoute): AppResponse {
    const error = new ApiError(
      405,
      'method_not_allowed',
      `${method} is not allowed on ${quote(path)}; allowed: ${route.allow}`,
    )
    return this.#responder.error(error, undefined, ['Allow', route.allow])
  }
}

function readRoutes(
  operations: Record<string, { operationId: OperationId; method: string; path: string }>,
): PathRoute[] {
  const routes = new Map<string, PathRoute>()
  for (const op of Object.values(operations)) {
    const route = routes.get(op.path) ?? { segments: op.path.split('/').slice(1), operations: new Map(), allow: '' }
    route.operations.set(op.method, op.operationId)
    routes.set(op.path, route)
  }
  for (const route of routes.values()) route.allow = [...route.operations.keys(), 'OPTIONS'].join(', ')
  return [...routes.values()]
}
