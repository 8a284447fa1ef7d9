/**
 * The shapes the stub's parts share: a request (method, target, headers, body) goes in, a response (status,
 * flat header list, body text) comes out, and a {@link Handler} turns one into the other with no socket. The stub
 * is composed ({@link compose}) from wrappers around one route, as Hono middleware is.
 */
import { constants as bufferConstants } from 'node:buffer'
import { bundledSpec, versionPrefix, type JsonValue, type OperationId, type Spec } from '../spec/index.js'
import type { RequestHeaders } from './request.js'
import type { SocketDirective } from './socket.js'

export type { RequestHeaders } from './request.js'

/**
 * The path prefix that carries the interface version ("Versioning" in the interface), read from a spec's servers:
 * `/v1` in the bundled spec; empty when a revision's servers name no path.
 */
export function basePathOf(s: Spec): string {
  return versionPrefix(s)?.prefix ?? ''
}

/** The bundled spec's base path, `/v1`; a stub serving a revision uses that revision's ({@link basePathOf}). */
export const BASE_PATH = basePathOf(bundledSpec())

/**
 * When an operation was deprecated (RFC 9745 `@<unix seconds>`) if the spec's Deprecation header gives no example
 * date: 2025-12-05T00:00:00Z, the bundled spec's example.
 */
export const DEPRECATION = '@1764892800'

/** The request body limit when none is configured: 64 KiB. */
export const DEFAULT_MAX_BODY = 64 * 1024

/**
 * The largest request body limit: a body is read as one text, and Node holds no text longer than this (about 512 MiB,
 * `buffer.constants.MAX_STRING_LENGTH`); a larger limit is cut to it, so that a larger body is refused as too large
 * instead of failing as it is read.
 */
export const MAX_MAX_BODY = bufferConstants.MAX_STRING_LENGTH

/** The realm of the RFC 6750 challenge on 401. */
export const REALM = 'petstore'

/** RFC 8259 defines no parameters for application/json, so none is sent. */
export const JSON_TYPE = 'application/json'

/** Seconds a 429 or 503 asks the client to wait (`Retry-After`). */
export const RETRY_AFTER = '1'

/** A request as the app sees it; `url` is the request target (path and query). */
export interface AppRequest {
  method: string
  url: string
  headers: RequestHeaders
  /** What the app remembers about the connection the request came on (the server keeps one per socket). */
  connection?: ConnectionMemo
  /**
   * Sent by a page of a site the stub does not serve (a DNS-rebinding page's too): answered and logged, but kept out of
   * the journal and the client report, answered or not, which any site's page could otherwise fill with its requests.
   */
  unrecorded?: true
}

/** Per-connection memory: what this connection's Authorization already proved, so its next requests skip reading it. */
export interface ConnectionMemo {
  acceptedHeader?: string
  /** The Authorization the client report last found well formed on this connection, so its next requests skip reading it. */
  wellFormedHeader?: string
}

/**
 * A response: status, headers as a flat `[name, value, ...]` list (what `res.writeHead` takes), body text,
 * and the Error code when it is one (for the log). The edges (server.ts, fetch.ts) honour `delayMs` and `socket`.
 */
export interface AppResponse {
  status: number
  headers: string[]
  body: string
  /**
   * The body when it is too large to hold whole (the admin API's state): made a piece at a time as the client takes
   * them, so that a client that never reads holds one piece, not the whole; `body` is then empty. Never with `delayMs`
   * or `socket`.
   */
  pieces?: Iterator<string | Uint8Array>
  code?: string
  /** The preferences applied (what `Preference-Applied` says), for the log and the journal. */
  applied?: string
  /**
   * The request body as the app read it, when it read and stored a NewPet from it: sent as JSON, parsed, valid. The
   * client report judges that body from it instead of parsing it again.
   */
  readBody?: { [key: string]: JsonValue }
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
  /**
   * What the route does to each answer to this request (a page's CORS headers), for the answers an edge gives without
   * calling `accept`: a body too large, a throw. See {@link asRouted}.
   */
  finish?: (answer: AppResponse) => AppResponse
}

/** `answer`, given by an edge to a request that wanted its body, as the route would have given it. */
export function asRouted(wanted: BodyWanted, answer: AppResponse): AppResponse {
  return wanted.finish ? wanted.finish(answer) : answer
}

/** What routing a request gives: a response now, or a request for the body. */
export type Routed = AppResponse | BodyWanted

/** A request with its whole body. */
export type FullRequest = AppRequest & { body?: Uint8Array | string }

/** Answers a routed request: a response now, or a request for its body. Never throws. */
export type Route = (request: AppRequest) => Routed

/**
 * What the edges drive: the composed stub ({@link compose}). Its route answers routed requests; the error answers
 * given outside any route (a body too large, a throw, bad HTTP) come from the one responder.
 */
export interface Handler {
  /** Largest accepted request body in bytes. */
  readonly maxBody: number
  /** Answers a request, or asks for its body. Never throws. */
  readonly route: Route
  /** The answer to a body over `limit` (`maxBody`, or the route's own limit). */
  readonly tooLarge: (limit?: number) => AppResponse
  /** The answer when handling threw. */
  readonly failure: (error: unknown, operationId?: OperationId) => AppResponse
  /** The answer to a request that never reached routing (bad HTTP, timeouts). */
  readonly protocolError: (status: 400 | 408 | 431, code: string, message: string) => AppResponse
  /** The operation a request is for, if any (logs, journal, wrappers). */
  readonly operationOf: (request: Pick<AppRequest, 'method' | 'url'>) => OperationId | undefined
}

/**
 * A wrapper, as a Hono middleware: it takes the route within and returns the route to use. `within` is the stub
 * composed so far, for the operation a request is for and the error answers.
 */
export type Wrapper = (next: Route, within: Handler) => Route

/** One layer of the stub: a wrapper, and for a layer that rewrites answers, its rewrite of the error answers too. */
export interface Layer {
  route?: Wrapper
  /** Rewrites an error answer given outside any route (a body too large, a throw, bad HTTP). */
  answers?: (response: AppResponse, operationId?: OperationId) => AppResponse
}

/** The stub made of `core` with `layers` around it, innermost first; built once, so a request allocates nothing more. */
export function compose(core: Handler, layers: readonly Layer[]): Handler {
  let within = core
  for (const { route, answers } of layers) {
    const inner = within
    within = {
      maxBody: inner.maxBody,
      route: route ? route(inner.route, inner) : inner.route,
      operationOf: inner.operationOf,
      tooLarge: answers ? (limit) => answers(inner.tooLarge(limit)) : inner.tooLarge,
      failure: answers
        ? (error, operationId) => answers(inner.failure(error, operationId), operationId)
        : inner.failure,
      protocolError: answers
        ? (status, code, message) => answers(inner.protocolError(status, code, message))
        : inner.protocolError,
    }
  }
  return within
}

/** Global chaos for soak tests, off by default: latency on every answer, and a share of answers failing. */
export interface Chaos {
  /** Every answer waits a uniform random time from `[min, max]` ms. */
  latencyMs?: readonly [number, number]
  /** The share of requests (0 to 1) answered with `failStatus` instead, state untouched. */
  failRate?: number
  failStatus?: 429 | 503
}

function byteLength(body: Uint8Array | string): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
}

/** Answers a request whose whole body is at hand: routes it, checks the body limit, hands the body over. */
export async function answer(handler: Handler, request: FullRequest): Promise<AppResponse> {
  const routed = handler.route(request)
  if (!('kind' in routed)) return routed
  const body = request.body ?? ''
  const limit = routed.maxBody ?? handler.maxBody
  if (byteLength(body) > limit) return asRouted(routed, handler.tooLarge(limit))
  try {
    return await routed.accept(body)
  } catch (error) {
    return asRouted(routed, handler.failure(error, routed.operationId))
  }
}
