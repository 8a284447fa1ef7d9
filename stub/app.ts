/**
 * The stub's HTTP semantics with no socket: a request (method, target, headers, body) goes in, a
 * response (status, flat header list, body text) comes out. Tests call it directly; server.ts binds it.
 * Its route is the router's (paths, CORS, 404 and 405, then the three operations, each after authentication) with
 * the client's controls (`Prefer`, chaos) wrapped around it; its error answers are the one responder's.
 */
import { spec, type Spec } from '../spec/index.js'
import { specExamples } from './examples.js'
import type { Store } from './store.js'
import { Authenticator } from './auth.js'
import { clientControls } from './controls.js'
import { Operations } from './operations.js'
import { Responder } from './respond.js'
import { Router } from './router.js'
import {
  answer,
  compose,
  DEFAULT_MAX_BODY,
  MAX_MAX_BODY,
  type AppResponse,
  type Chaos,
  type FullRequest,
  type Handler,
  type Route,
} from './http.js'

export * from './http.js'
export { SOCKET_DIRECTIVES, TRICKLE_MS, type SocketDirective } from './socket.js'

/** What an app is built from. */
export interface AppOptions {
  store: Store
  /** Accepted API keys; at least one. */
  apiKeys: readonly string[]
  /** Largest accepted request body in bytes; 64 KiB when not given, at most {@link MAX_MAX_BODY}. */
  maxBody?: number
  chaos?: Chaos
  /** The source of chance for chaos and `dynamic=true` (tests pass their own). */
  random?: () => number
  /** The interface served: a revision of it, or the spec in use by default. */
  spec?: Spec
}

/** The stub's request handling over one store: the router's route with the client's controls around it. */
export class App implements Handler {
  /** The pets this app serves. */
  readonly store: Store
  /** Largest accepted request body in bytes. */
  readonly maxBody: number
  /** Routes a request: answers it, or asks for its body (authenticated createPet). Never throws. */
  readonly route: Route
  /** The operation a request is for, or `undefined` (unknown path or method). */
  readonly operationOf: Handler['operationOf']
  /** The answer to a body over `maxBody`; it closes the connection, since the rest of the body is not read. */
  readonly tooLarge: Handler['tooLarge']
  /** The one catch-all: an ApiError becomes its Error response, anything else a safe documented 4xx. */
  readonly failure: Handler['failure']
  /** An Error response for a request that never reached routing (bad HTTP, timeouts). */
  readonly protocolError: Handler['protocolError']

  constructor(options: AppOptions) {
    const s = options.spec ?? spec()
    const responder = new Responder(s, Math.min(options.maxBody ?? DEFAULT_MAX_BODY, MAX_MAX_BODY))
    const auth = new Authenticator(options.apiKeys, responder)
    this.store = options.store
    const router = new Router(s, new Operations(s, options.store, auth, responder), responder)
    const core: Handler = {
      maxBody: responder.maxBody,
      route: router.route,
      operationOf: router.operationOf,
      tooLarge: responder.tooLarge,
      failure: responder.failure,
      protocolError: responder.protocolError,
    }
    const controls = clientControls({
      auth,
      responder,
      examples: specExamples(s),
      chaos: options.chaos,
      random: options.random ?? Math.random,
    })
    // The layers around the router's route, innermost first: a new control of the interface's requests goes here.
    const app = compose(core, [{ route: controls }])
    this.maxBody = app.maxBody
    this.route = app.route
    this.operationOf = app.operationOf
    this.tooLarge = app.tooLarge
    this.failure = app.failure
    this.protocolError = app.protocolError
  }

  /** Answers a request whose whole body is at hand (tests, and anything that does not stream). */
  handle(request: FullRequest): Promise<AppResponse> {
    return answer(this, request)
  }
}
