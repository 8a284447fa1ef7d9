/**
 * How a test-only fault changes the stub: by a layer around its route (a wrapper from route to route, as a Hono
 * middleware is) or by wrapping its store. The product code never knows a fault is there.
 */
import type { OperationId } from '../../spec/index.js'
import { answer, type AppRequest, type AppResponse, type FullRequest, type Handler, type Layer } from '../app.js'
import type { Store } from '../store.js'

/** One deliberate bug, the check of the conformance suite meant to catch it, and how to put it in. */
export interface Fault {
  /** What goes wrong, in one line. */
  readonly description: string
  /** The id of the suite check meant to catch it. */
  readonly catches: string
  /** Builds the wrappers for one stub; state they share lives in this call, never in the module. */
  readonly wrap: () => FaultWrappers
  /** It shows only on a store that starts empty (an empty result must occur): tests start such a stub without seed pets. */
  readonly emptyStore?: true
}

/** The wrappers one fault puts around a stub's store (before the app is built on it) and its route. */
export interface FaultWrappers {
  store?: (store: Store) => Store
  layer?: (context: FaultContext) => Layer
}

/** What a fault may use besides the request: the stub's keys and its (wrapped) store. */
export interface FaultContext {
  apiKeys: readonly string[]
  store: Store
}

/** Sends a request on to the wrapped app. */
export type Next = (request: FullRequest) => Promise<AppResponse>

/** A fault that changes requests on their way in or responses on their way out; it sees every request's body. */
export function wrapApp(
  description: string,
  catches: string,
  middleware: (next: Next, context: FaultContext & { operationOf: Handler['operationOf'] }) => Next,
): Fault {
  return { description, catches, wrap: () => ({ layer: (context) => withMiddleware(context, middleware) }) }
}

/** A fault that changes what the store does. */
export function wrapStore(description: string, catches: string, wrap: (store: Store) => Partial<Store>): Fault {
  return { description, catches, wrap: () => ({ store: (store) => override(store, wrap(store)) }) }
}

/**
 * A fault that only rewrites responses, all of them (protocol errors included), without reading bodies the
 * app would not read. `request` is missing for answers to requests that never reached routing.
 */
export function mapResponses(
  description: string,
  catches: string,
  map: (response: AppResponse, request: AppRequest | undefined, operationId: OperationId | undefined) => AppResponse,
): Fault {
  return { description, catches, wrap: () => ({ layer: () => mapped(map) }) }
}

/** A store whose `methods` replace the original's; everything else goes to the original. */
export function override(store: Store, methods: Partial<Store>): Store {
  return new Proxy(store, {
    get(target, key) {
      if (Object.hasOwn(methods, key)) return methods[key as keyof Store]
      const value: unknown = Reflect.get(target, key, target) // the original as receiver: its private fields and getters work
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** The layer that runs `middleware` around the route within: every request is read whole, then handed to it. */
export function withMiddleware(
  context: FaultContext,
  middleware: (next: Next, context: FaultContext & { operationOf: Handler['operationOf'] }) => Next,
): Layer {
  return {
    route: (_next, within) => {
      const handle = middleware((request) => answer(within, request), { ...context, operationOf: within.operationOf })
      return (request) => ({
        kind: 'body',
        operationId: within.operationOf(request),
        accept: (body) => handle({ ...request, body }),
      })
    },
  }
}

/** The layer that rewrites every answer: the route's, and the error answers given outside it. */
function mapped(
  map: (response: AppResponse, request: AppRequest | undefined, operationId: OperationId | undefined) => AppResponse,
): Layer {
  return {
    route: (next, within) => (request) => {
      const routed = next(request)
      const operationId = within.operationOf(request)
      if (!('kind' in routed)) return map(routed, request, operationId)
      const accept = async (body: Uint8Array | string) => map(await routed.accept(body), request, operationId)
      return { kind: 'body', operationId: routed.operationId, accept }
    },
    answers: (response, operationId) => map(response, undefined, operationId),
  }
}

/** The response with another status. */
export function withStatus(response: AppResponse, status: number): AppResponse {
  return { ...response, status }
}

/** The response with another header value (case-insensitive name; added when absent). */
export function withHeader(response: AppResponse, name: string, value: string): AppResponse {
  const headers = response.headers.slice()
  const at = headers.findIndex((item, i) => i % 2 === 0 && item.toLowerCase() === name.toLowerCase())
  if (at >= 0) headers[at + 1] = value
  else headers.push(name, value)
  return { ...response, headers }
}

/** The response with another body, its Content-Length to match. */
export function withBody(response: AppResponse, body: string): AppResponse {
  return { ...withHeader(response, 'Content-Length', String(Buffer.byteLength(body))), body }
}

/** The Error body of a response, when it has one. */
export function errorOf(response: AppResponse): { code: string; message: string; status: number } | undefined {
  if (response.status < 400 || response.body === '') return undefined
  try {
    const body = JSON.parse(response.body) as { code?: unknown }
    return typeof body?.code === 'string' ? (body as { code: string; message: string; status: number }) : undefined
  } catch {
    return undefined
  }
}

/** The request carrying the stub's first key instead of whatever credentials it had. */
export function withKey<T extends AppRequest>(request: T, context: FaultContext): T {
  return { ...request, headers: { ...request.headers, authorization: `Bearer ${context.apiKeys[0]}` } }
}
