/**
 * The stub's HTTP semantics with no socket: a request (method, target, headers, body) goes in, a
 * response (status, flat header list, body text) comes out. Tests call it directly; server.ts binds it.
 * It is made of a router (paths, CORS, 404 and 405) over the three operations (each after authentication),
 * wrapped in the client's controls (`Prefer`, chaos).
 */
import { spec, type OperationId, type Spec } from '../spec/index.js'
import { specExamples } from './examples.js'
import type { Store } from './store.js'
import { Authenticator } from './auth.js'
import { ClientControls } from './controls.js'
import { Operations } from './operations.js'
import { Responder } from './respond.js'
import { Router } from './router.js'
import {
  answer,
  DEFAULT_MAX_BODY,
  type AppRequest,
  type AppResponse,
  type Chaos,
  type FullRequest,
  type Handler,
  type Routed,
} from './http.js'

export * from './http.js'
export { SOCKET_DIRECTIVES, TRICKLE_MS, type SocketDirective } from './socket.js'

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

/** The stub's request handling over one store. */
export class App implements Handler {
  /** The pets this app serves. */
  readonly store: Store
  /** Largest accepted request body in bytes. */
  readonly maxBody: number
  readonly #handler: Handler

  constructor(options: AppOptions) {
    const s = options.spec ?? spec()
    const responder = new Responder(s, options.maxBody ?? DEFAULT_MAX_BODY)
    const auth = new Authenticator(options.apiKeys, responder)
    this.store = options.store
    this.maxBody = responder.maxBody
    const router = new Router(s, new Operations(s, options.store, auth, responder), responder)
    const random = options.random ?? Math.random
    this.#handler = new ClientControls(router, {
      auth,
      responder,
      examples: specExamples(s),
      chaos: options.chaos,
      random,
    })
  }

  /** Routes a request: answers it, or asks for its body (authenticated createPet). Never throws. */
  route(request: AppRequest): Routed {
    return this.#handler.route(request)
  }

  /** Answers a request whose whole body is at hand (tests, and anything that does not stream). */
  handle(request: FullRequest): Promise<AppResponse> {
    return answer(this, request)
  }

  /** The operation a request is for, or `undefined` (unknown path or method). */
  operationOf(request: Pick<AppRequest, 'method' | 'url'>): OperationId | undefined {
    return this.#handler.operationOf(request)
  }

  /** The answer to a body over `maxBody`; it closes the connection, since the rest of the body is not read. */
  tooLarge(): AppResponse {
    return this.#handler.tooLarge()
  }

  /** The one catch-all: an ApiError becomes its Error response, anything else a safe documented 4xx. */
  failure(error: unknown, operationId?: OperationId): AppResponse {
    return this.#handler.failure(error, operationId)
  }

  /** An Error response for a request that never reached routing (bad HTTP, timeouts). */
  protocolError(status: 400 | 408 | 431, code: string, message: string): AppResponse {
    return this.#handler.protocolError(status, code, message)
  }
}
