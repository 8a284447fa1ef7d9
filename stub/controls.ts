/**
 * The client's controls, a wrapper around the stub's route as a fault is: `Prefer` (a forced status or
 * example, a delay, a socket misbehaviour) and the global chaos (latency, a share of 429 or 503).
 */
import { stringifyJson, type OperationId } from '../spec/index.js'
import { exposing } from './cors.js'
import { generate } from './generate.js'
import type { SpecExamples } from './examples.js'
import { readPreferences, type Preferences } from './prefer.js'
import type { SocketDirective } from './socket.js'
import type { Authenticator } from './auth.js'
import type { Responder } from './respond.js'
import { REALM, type AppRequest, type AppResponse, type Chaos, type Routed, type Wrapper } from './http.js'

/** What the controls need besides the route they wrap. */
export interface ControlsOptions {
  auth: Authenticator
  responder: Responder
  examples: SpecExamples
  /** Global chaos; off when absent or when it asks for nothing. */
  chaos?: Chaos
  /** The source of chance for chaos and `dynamic=true`. */
  random: () => number
}

/** The wrapper that honours `Prefer` and chaos around the route within; requests with neither pass straight through. */
export function clientControls(options: ControlsOptions): Wrapper {
  const { latencyMs, failRate = 0 } = options.chaos ?? {}
  const chaos = latencyMs || failRate > 0 ? options.chaos : undefined
  const { random } = options
  return (next, within) => {
    /** A request under the client's `Prefer` or the global chaos: a forced answer, or the real one delayed. */
    const controlled = (request: AppRequest, operationId: OperationId): Routed => {
      const header = request.headers.prefer
      let preferences: Preferences | undefined
      try {
        preferences =
          header === undefined
            ? undefined
            : readPreferences(Array.isArray(header) ? header.join(', ') : header, operationId, options.examples)
      } catch (error) {
        return within.failure(error, operationId)
      }
      let routed: Routed
      try {
        if (preferences?.forced) routed = forced(request, operationId, preferences, options)
        else if (chaos?.failRate && random() < chaos.failRate)
          routed = options.responder.unavailable(operationId, chaos.failStatus ?? 503, '--fail-rate')
        else routed = next(request)
      } catch (error) {
        routed = within.failure(error, operationId) // a refusal is delayed and marked like any answer
      }
      const [min, max] = chaos?.latencyMs ?? [0, 0]
      const delayMs = preferences?.delayMs ?? (max > 0 ? Math.round(min + random() * (max - min)) : undefined)
      return decorate(routed, delayMs, preferences?.socket, preferences?.applied || undefined)
    }
    return (request) => {
      if (chaos === undefined && request.headers.prefer === undefined) return next(request)
      const operationId = within.operationOf(request)
      // Unknown paths and methods, and preflights, are answered as they are: the controls apply to operations.
      if (operationId === undefined || request.method === 'OPTIONS') return next(request)
      return controlled(request, operationId)
    }
  }
}

/**
 * The answer a client chose: the status and body come from the spec (a named example, a generated body, or
 * the first example of the status), and the request never reaches the store. Credentials are checked first,
 * as the service would, unless the client asks for the 401 itself.
 */
function forced(
  request: AppRequest,
  operationId: OperationId,
  preferences: Preferences,
  options: ControlsOptions,
): AppResponse {
  const { auth, responder, examples: all, random } = options
  const { status, example, dynamic } = preferences.forced!
  if (status !== 401) {
    const denied = auth.unauthorized(request, operationId)
    if (denied) return denied
  }
  if (status === 429 || status === 503)
    return responder.unavailable(operationId, status, `Prefer: ${preferences.applied}`)
  const examples = all.of(operationId).filter((candidate) => candidate.status === status)
  const schema = all.schema(operationId, status)
  let value = (example ? examples.find((candidate) => candidate.name === example) : dynamic ? undefined : examples[0])
    ?.value
  if (value === undefined && schema) value = generate(schema, (node) => all.resolve(node), random)
  // An Error's `status` repeats the HTTP status, whatever the generator picked.
  if (status >= 400 && value !== null && typeof value === 'object' && !Array.isArray(value) && 'status' in value)
    value = { ...value, status }
  const body = value === undefined ? '' : stringifyJson(value)
  const code = status >= 400 ? ((value as { code?: unknown } | undefined)?.code as string | undefined) : undefined
  const extra = status === 401 ? ['WWW-Authenticate', `Bearer realm="${REALM}"`] : undefined
  return responder.respond(status, body, operationId, { extra, code })
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
  const headers =
    applied === undefined ? routed.headers : exposing(routed.headers.concat('Preference-Applied', applied))
  return { ...routed, headers, delayMs, socket, applied }
}
