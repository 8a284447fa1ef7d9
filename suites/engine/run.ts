/**
 * The engine: one `Run` per conformance run. Scenarios send requests through it and say what they know; it
 * sends each request once, derives what the run has learned (pets created, pets held, the query's documented
 * values), and gives each scenario a recorder (what it sent and saw) and a judge (the checks its selection says
 * apply). At the end it judges the run as a whole (coverage, id scheme) once.
 */
import {
  keySecrets,
  Redactor,
  type Exchange,
  type Request,
  type ScenarioRecord,
  type StatusCoverage,
  type Throttling,
  type WaitNotice,
} from '../../model/index.js'
import { INT64_MAX, spec as loadSpec, type JsonValue, type OperationId, type Spec } from '../../spec/index.js'
import { runPrefix } from './naming.js'
import type { ExchangeCheck, Facts, TransportCheck } from '../checks/check.js'
import { idOf, isObject, listedPets, queryOutsideRange } from '../checks/util.js'
import { isThrottling, TransportStopped } from '../transport/polite.js'
import type { Transport } from '../transport/transport.js'
import type { Allowances, Area, RunConfig } from './config.js'
import { Judge } from './judge.js'
import { Recorder } from './recorder.js'
import { Selection } from './selection.js'

/** A request the run must not send (deadline, budget, target gone): the scenario ends, its checks stay unjudged. */
export class NotSent extends Error {
  override name = 'NotSent'
}

/** The name of the run-level record, the last of a run: its `stopped` says why the whole run stopped, if it did. */
export const RUN_LEVEL = 'the run as a whole'

/** Transport errors in a row after which the target is taken to have stopped answering. */
const ERRORS_IN_A_ROW_TO_STOP = 8
/** After a timeout, later requests wait this many times the slowest answer seen (at least a second). */
const TIMEOUT_FACTOR = 3

/** A pet the run knows of, and when it learned of it (a sequence number: requests sent before it do not know it). */
interface Known {
  pet: JsonValue
  at: number
  /** The status the client sent with it, when it sent one. */
  sentStatus?: string
}

/** What the engine adds to a transport: a reason to stop, when it has one, and a way to stop it at once. */
export interface RunTransport extends Transport {
  readonly stopped?: string
  interrupt?(reason: string): void
  /** Told of each wait for a throttling answer as it starts (the polite transport). */
  onWait?: ((wait: WaitNotice) => void) | undefined
  /** The rate limiting met so far (the polite transport). */
  throttling?(): Throttling
}

/** One conformance run against one target. */
export class Run {
  readonly config: RunConfig
  readonly spec: Spec
  readonly transport: RunTransport
  /** Redacts the key from what the run records, before anything is cut to size. */
  readonly redactor: Redactor
  /** The checks it judges, and where: `--check` and `--operation` read by the one rule. */
  readonly selection: Selection
  /** Pets this run created, by id (decimal text), as createPet returned them, in creation order. */
  readonly created = new Map<string, Known>()
  /** Pets the target held before the run created them, by id, as first seen. */
  readonly existing = new Map<string, JsonValue>()
  /** Ids of pets created one at a time, in creation order: what the id scheme is judged on. */
  readonly idsInOrder: string[] = []
  /** What is known about each exchange sent, for judging it again when a scenario learns more. */
  readonly factsOf = new WeakMap<Exchange, Facts>()
  readonly createdByArea: Record<Area, number> = {
    create: 0,
    list: 0,
    get: 0,
    auth: 0,
    stateful: 0,
    coverage: 0,
    probe: 0,
  }
  readonly #statusesSeen = new Set<string>()
  readonly #seen = new Map<string, number>() // every id known to exist -> when it was learned
  #clock = 0
  #errorsInARow = 0
  #slowestMs = 0
  #timeoutMs: number
  #stopped: string | undefined

  constructor(config: RunConfig, transport: RunTransport, spec: Spec = loadSpec()) {
    this.config = config
    this.spec = spec
    this.transport = transport
    this.#timeoutMs = config.timeoutMs
    this.redactor = new Redactor(keySecrets(config.apiKey))
    this.selection = new Selection(config, spec)
  }

  /** The name prefix of every pet this run creates: `pcs-<runId>-`, unless the judged spec's name refuses it. */
  get prefix(): string {
    return (this.#prefix ??= runPrefix(this.spec, this.config.runId))
  }

  #prefix: string | undefined

  /** Why the run stopped sending, once it has. */
  get stopped(): string | undefined {
    return this.#stopped ?? this.transport.stopped
  }

  /** Stops the run at once: no request goes out any more, those waiting to go end now, the scenarios stop. */
  interrupt(reason: string): void {
    this.#stopped ??= reason
    this.transport.interrupt?.(reason)
  }

  /** True while an area may create `n` more pets. */
  mayCreate(area: Area, n = 1): boolean {
    return this.createdByArea[area] + n <= this.config.allowances[area]
  }

  /** A new recorder for one scenario (or one property run). */
  recorder(scenario: string, area: Area): Recorder {
    return new Recorder({ name: scenario, area }, new Judge(this.selection, this.spec, this.redactor), this.factsOf)
  }

  /**
   * Sends one request: what the run knew when it was sent becomes the exchange's facts. Throws `NotSent`
   * when the run must not send any more.
   */
  async send(request: Request, area: Area): Promise<{ exchange: Exchange; facts: Facts }> {
    const stop = this.#whyNotSend(request, area)
    if (stop) throw new NotSent(stop)
    const sentAt = ++this.#clock
    const before = this.#before(request)
    const create = request.operationId === 'createPet' ? this.#createStarts() : undefined
    let exchange: Exchange
    try {
      exchange = await this.transport.send({ ...request, timeoutMs: this.#timeoutMs })
    } catch (error) {
      if (error instanceof TransportStopped) throw new NotSent(error.message)
      throw error
    } finally {
      if (create) this.#createsInFlight.delete(create)
    }
    if (create) this.#createEnds(create, exchange)
    // A throttling answer comes back only once the run gave up waiting: it is not the target's answer to judge.
    if (isThrottling(exchange) && this.transport.stopped) throw new NotSent(this.transport.stopped)
    const facts = { ...before, ...this.#after(exchange) }
    this.#learn(exchange, area, sentAt)
    return { exchange, facts }
  }

  /** The run-level record: the checks of the run as a whole and the coverage, computed once. */
  finish(): ScenarioRecord {
    const recorder = this.recorder(RUN_LEVEL, 'coverage')
    const coverage = this.coverage()
    recorder.judge.wholeRun({ coverage, idsInOrder: this.idsInOrder }, Boolean(this.stopped))
    return { ...recorder.record(), coverage, ...(this.stopped ? { stopped: this.stopped } : {}) }
  }

  /** Which documented statuses of the selected operations the run provoked. */
  coverage(): StatusCoverage[] {
    return this.selection.operations.flatMap((operationId) =>
      this.spec.statuses(operationId).map((status) => ({
        operationId,
        status,
        seen: this.#statusesSeen.has(`${operationId} ${status}`),
        provokable: provokable(this.spec, operationId, status),
      })),
    )
  }

  /** An id no pet is likely to have: far past the largest id known, within int64. */
  unknownId(offset = 0n): string {
    const ids = [...this.#seen.keys()].map(BigInt)
    const max = ids.reduce((a, b) => (b > a ? b : a), 0n)
    const far = max + 1_000_000_007n + offset
    if (far <= INT64_MAX) return String(far)
    // Ids already reach the top of int64: go far below the smallest one instead.
    const min = ids.reduce((a, b) => (b < a ? b : a), max)
    return String(min - 1_000_000_007n - offset)
  }

  /** An id beyond 2^53 that no pet is likely to have, or undefined when the run has seen ids around it. */
  unknownBigId(): string | undefined {
    const candidate = 2n ** 58n + 1_234_567n
    const near = (id: bigint) => (id > candidate ? id - candidate : candidate - id) < 1_000_000_000n
    return [...this.#seen.keys()].some((id) => near(BigInt(id))) ? undefined : String(candidate)
  }

  #whyNotSend(request: Request, area: Area): string | undefined {
    if (this.stopped) return this.stopped
    if (this.config.deadline !== undefined && Date.now() > this.config.deadline) {
      return (this.#stopped = '--max-time reached before every check was judged')
    }
    if (request.operationId === 'createPet' && request.credential === undefined && !this.mayCreate(area)) {
      return `the ${area} scenarios used their allowance of ${this.config.allowances[area]} pets`
    }
    return undefined
  }

  // What the run knew as the request left: the pets it had seen and created by then.
  #before(request: Request): Facts {
    if (request.operationId !== 'listPets') return {}
    const status = request.query?.find(([name]) => name === 'status')?.[1]
    const created = [...this.created.values()].map((k) => k.pet)
    // Pets are never removed by the described operations: every pet seen still exists. With a filter, only the
    // run's own pets of that status count (others may have moved to another status since).
    const atLeast =
      status === undefined ? this.#seen.size : [...this.created.values()].filter((k) => k.sentStatus === status).length
    return { created, atLeast }
  }

  // What the answer is judged against: computed before the run learns from it.
  #after(exchange: Exchange): Facts {
    const facts: Facts = {}
    if (exchange.operationId === 'listPets') Object.assign(facts, this.#query(exchange))
    if (exchange.operationId === 'createPet' && exchange.response?.status === 201)
      facts.takenIds = new Set(this.created.keys())
    if (exchange.operationId === 'getPet') {
      const id = petIdOf(exchange.request.url)
      const created = id === undefined ? undefined : this.created.get(id)
      if (created) facts.expected = created.pet
      else if (id !== undefined && this.existing.has(id)) facts.existing = this.existing.get(id)
    }
    return facts
  }

  // The documented values of a listPets query, and the names of the parameters outside their documented range.
  #query(exchange: Exchange): Facts {
    const outOfRange = queryOutsideRange(this.spec, 'listPets', exchange.request.url)
    const query = new URL(exchange.request.url).searchParams
    const facts: Facts = outOfRange.length ? { outOfRange } : {}
    const limit = query.get('limit')
    const status = query.get('status')
    if (limit !== null && !outOfRange.includes('limit')) facts.limit = Number(limit)
    if (status !== null && !outOfRange.includes('status')) facts.status = status
    return facts
  }

  // What an answer teaches the run: statuses seen, pets that exist, how slow the target is, whether it answers.
  #learn(exchange: Exchange, area: Area, sentAt: number): void {
    const clock = Math.max(sentAt, ++this.#clock)
    if (exchange.error) {
      if (++this.#errorsInARow >= ERRORS_IN_A_ROW_TO_STOP) {
        this.#stopped ??= `the target stopped answering (${ERRORS_IN_A_ROW_TO_STOP} requests in a row got no HTTP answer)`
      }
      if (/^timeout/.test(exchange.error)) this.#shortenTimeout()
      return
    }
    this.#errorsInARow = 0
    this.#slowestMs = Math.max(this.#slowestMs, exchange.durationMs)
    const { status } = exchange.response!
    if (exchange.operationId) this.#statusesSeen.add(`${exchange.operationId} ${status}`)
    const body = bodyOf(exchange)
    if (exchange.operationId === 'createPet' && status >= 200 && status < 300) {
      this.createdByArea[area]++
      const id = idOf(body)
      if (id !== undefined && status === 201 && !this.created.has(id)) {
        const sent = parseSent(exchange.request.body)
        // Listed while its create was still on its way: the run's own pet, not one the target held before.
        this.existing.delete(id)
        this.created.set(id, {
          pet: body!,
          at: clock,
          ...(typeof sent?.status === 'string' ? { sentStatus: sent.status } : {}),
        })
      }
    }
    const pets =
      exchange.operationId === 'listPets' && status === 200
        ? (listedPets(exchange) ?? [])
        : status === 200 && exchange.operationId === 'getPet'
          ? [body]
          : []
    if (exchange.operationId === 'createPet' && status === 201) pets.push(body)
    for (const pet of pets) {
      const id = idOf(pet)
      if (id === undefined) continue
      if (!this.#seen.has(id)) this.#seen.set(id, clock)
      if (exchange.operationId === 'listPets' && !this.created.has(id) && !this.existing.has(id))
        this.existing.set(id, pet!)
    }
  }

  /** Whether the run has seen a pet with this id (created it, listed it, read it). */
  knows(id: string): boolean {
    return this.#seen.has(id)
  }

  // Creates in flight: an id scheme can only be read from creates that no other create overlapped.
  #createsInFlight = new Set<{ overlapped: boolean }>()

  #createStarts(): { overlapped: boolean } {
    const token = { overlapped: this.#createsInFlight.size > 0 }
    for (const other of this.#createsInFlight) other.overlapped = true
    this.#createsInFlight.add(token)
    return token
  }

  #createEnds(token: { overlapped: boolean }, exchange: Exchange): void {
    this.#createsInFlight.delete(token)
    const id = exchange.response?.status === 201 ? idOf(bodyOf(exchange)) : undefined
    if (id !== undefined && !token.overlapped) this.idsInOrder.push(id)
  }

  // One timeout seen: later requests need not wait the full timeout, only well past the slowest answer.
  #shortenTimeout(): void {
    const shorter = Math.max(1000, TIMEOUT_FACTOR * this.#slowestMs)
    if (shorter < this.#timeoutMs) this.#timeoutMs = shorter
  }

  /** The per-request timeout now in force. */
  get timeoutMs(): number {
    return this.#timeoutMs
  }
}

/** The last path segment of a getPet URL, decoded; undefined when its percent-encoding is malformed. */
function petIdOf(url: string): string | undefined {
  const segment = new URL(url).pathname.split('/').pop() ?? ''
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

function bodyOf(exchange: Exchange): JsonValue | undefined {
  return exchange.json.kind === 'json' ? exchange.json.value : undefined
}

function parseSent(body: string | undefined): { status?: unknown } | undefined {
  if (body === undefined) return undefined
  try {
    const value = JSON.parse(body) as unknown
    return isObject(value as JsonValue) ? (value as { status?: unknown }) : undefined
  } catch {
    return undefined
  }
}

export type { Allowances, ExchangeCheck, TransportCheck }

/**
 * Whether the run sends requests that call for `status` of an operation, and for no other status it documents: its
 * one success status (valid requests), 401 where it needs a key (none, or a wrong one), 404 where its path names an
 * id (one no pet has), 400 for an invalid body or query value (or path value, where no 404 is documented). A status
 * the spec marks `x-interface-silent`, and any other a revision documents (409, 429, 5xx, `default`), has no
 * request of the run that calls for it: the run does not ask to see it.
 */
export function provokable(spec: Spec, operationId: OperationId, status: string): boolean {
  const op = spec.operation(operationId)
  if (op.silentStatuses.includes(status)) return false
  const described = spec.doc.paths[op.path][op.method.toLowerCase()]
  const inPath = Object.values(op.parameters).some((parameter) => parameter.in === 'path')
  if (/^2[0-9][0-9]$/.test(status)) return op.statuses.filter((s) => /^2[0-9][0-9]$/.test(s)).length === 1
  switch (status) {
    case '401': {
      const security: unknown = described.security ?? spec.doc.security
      // `security: []` or an empty requirement among the alternatives: a request without a key is served.
      return (
        Array.isArray(security) &&
        security.length > 0 &&
        !security.some((need) => need === null || typeof need !== 'object' || Object.keys(need).length === 0)
      )
    }
    case '404':
      return inPath
    case '400':
      return described.requestBody !== undefined || !inPath || !op.statuses.includes('404')
    default:
      return false
  }
}
