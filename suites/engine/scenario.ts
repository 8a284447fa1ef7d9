/**
 * What a scenario works with: requests to the target's operations, statements of what it knows about an
 * exchange, and fast-check properties. It never calls a check: the engine judges every exchange it sends.
 */
import fc from 'fast-check'
import type { Credential, Exchange, Request, ScenarioRecord } from '../../model/index.js'
import { stringifyJson, type JsonValue, type OperationId, type Spec } from '../../spec/index.js'
import type { CredentialKind, Fact, Facts } from '../checks/check.js'
import type { CheckId } from '../checks/index.js'
import { fitNewPet } from './naming.js'
import { idOf } from '../checks/util.js'
import type { Area } from './config.js'
import type { Replay } from './judge.js'
import type { Recorder } from './recorder.js'
import { NotSent, type Run } from './run.js'

const MAX_SHRINK_RUNS = 40

/** Options of one request. */
export interface SendOptions {
  credential?: Credential
  /** What the scenario knows about this exchange. */
  facts?: Facts
}

/**
 * A scenario of the conformance run: a name, what it sends, and what it does. What it sends is all the engine
 * reads to decide whether a selection of checks needs it: the checks' own `on` say where they apply.
 */
export interface ScenarioSpec {
  name: string
  area: Area
  /** Operations whose behaviour it exercises (`--operation` selects by these). */
  operations: readonly OperationId[]
  /** Operations it also calls, to set up or to look (a create to read back, a listing to find an id). */
  uses?: readonly OperationId[]
  /** Facts it states about its requests (`sent`, `invalid`, `unknown`, `storedAfter`, ...); the engine adds its own. */
  states?: readonly Fact[]
  /** The kinds of credential it sends; the valid key alone when omitted. */
  credentials?: readonly CredentialKind[]
  /** Its creates go one at a time, overlapping no other create (how ids are assigned can be read from them). */
  oneAtATime?: true
  run: (s: Scenario) => Promise<void>
}

/** Defines a scenario, keeping its literal types. */
export function scenario(spec: ScenarioSpec): ScenarioSpec {
  return spec
}

/** A scenario's handle on the run. */
export class Scenario {
  readonly run: Run
  readonly recorder: Recorder
  /** A request of this scenario timed out: it sends nothing more, each further one could hang too. */
  timedOut = false

  constructor(run: Run, recorder: Recorder) {
    this.run = run
    this.recorder = recorder
  }

  get spec(): Spec {
    return this.run.spec
  }

  /** The name prefix of every pet this run creates. */
  get prefix(): string {
    return this.run.prefix
  }

  /** True while this scenario may create `n` more pets within its area's allowance. */
  mayCreate(n = 1): boolean {
    return this.run.mayCreate(this.recorder.area, n)
  }

  /** Sends one request; the engine records and judges it. */
  async send(request: Request, options: SendOptions = {}): Promise<Exchange> {
    if (this.timedOut) throw new NotSent('an earlier request of this scenario timed out')
    const { exchange, facts } = await this.run.send(
      { ...request, credential: request.credential ?? options.credential },
      this.recorder.area,
    )
    if (exchange.error && /^timeout/.test(exchange.error)) this.timedOut = true
    this.recorder.sent(exchange, { ...facts, ...options.facts })
    return exchange
  }

  /** createPet with a JSON body (a value), raw text (`raw`), or none (undefined). */
  createPet(
    body: JsonValue | undefined,
    options: SendOptions & { raw?: string; contentType?: string } = {},
  ): Promise<Exchange> {
    const text = options.raw ?? (body === undefined ? undefined : stringifyJson(body))
    const op = this.spec.operation('createPet')
    // Content-Type even without a body: "body missing" must be answered 400, not 415.
    return this.send(
      {
        operationId: 'createPet',
        method: op.method,
        path: op.path,
        body: text,
        contentType: options.contentType ?? 'application/json',
      },
      options,
    )
  }

  /** createPet of a valid NewPet; remembers the pet when the target created it. */
  async createValid(
    newPet: JsonValue,
    options: SendOptions & { contentType?: string } = {},
  ): Promise<{ exchange: Exchange; pet?: JsonValue }> {
    newPet = fitNewPet(this.spec, newPet, this.prefix)
    // A body the judged spec still refuses (a value outside a revision's enum) is sent as the invalid body it is.
    const problems = this.spec.schema('NewPet')(newPet)
    if (problems.length > 0)
      return {
        exchange: await this.createPet(newPet, { ...options, facts: { ...options.facts, invalid: problems[0]! } }),
      }
    const exchange = await this.createPet(newPet, { ...options, facts: { ...options.facts, sent: newPet } })
    const pet = exchange.response?.status === 201 && exchange.json.kind === 'json' ? exchange.json.value : undefined
    const id = idOf(pet)
    if (pet === undefined || id === undefined) return { exchange }
    return { exchange, pet }
  }

  /** createPet of an invalid body (raw text, or none), saying why it is invalid. */
  createInvalid(raw: string | undefined, why: string, options: SendOptions = {}): Promise<Exchange> {
    return this.createPet(undefined, { ...options, raw, facts: { ...options.facts, invalid: why } })
  }

  /** listPets with query parameters in order. */
  listPets(query: [string, string][] = [], options: SendOptions = {}): Promise<Exchange> {
    const op = this.spec.operation('listPets')
    return this.send({ operationId: 'listPets', method: op.method, path: op.path, query }, options)
  }

  /** getPet of an id given as text (sent percent-encoded). */
  getPet(id: string, options: SendOptions = {}): Promise<Exchange> {
    const op = this.spec.operation('getPet')
    return this.send(
      { operationId: 'getPet', method: op.method, path: op.path.replace(/\{[^}]+\}/, encodeURIComponent(id)) },
      options,
    )
  }

  /** getPet of an id no pet has: must be 404. */
  getUnknown(id: string, options: SendOptions = {}): Promise<Exchange> {
    return this.getPet(id, { ...options, facts: { ...options.facts, unknown: true } })
  }

  /** States what the scenario learned about an exchange after it was sent; the checks that needed it judge it now. */
  know(exchange: Exchange, facts: Facts): void {
    this.recorder.know(exchange, facts)
  }

  /** Says why these checks cannot be judged on this target, unless another scenario judges them. */
  premiseMissing(ids: readonly CheckId[], reason: string): void {
    this.recorder.judge.premiseMissing(ids, reason)
  }

  /** A scenario of its own for one property run, judged apart and merged back. */
  child(): Scenario {
    return new Scenario(this.run, this.run.recorder(this.recorder.scenario, this.recorder.area))
  }

  /**
   * Runs a fast-check property with the run's seed. Each run gets its own recorder; a failing run is shrunk
   * (within bounds: each step sends requests again; none after a transport error) and the smallest
   * counterexample's findings are kept, with the counterexample, seed and path to replay it.
   */
  async property<T>(options: {
    arbitrary: fc.Arbitrary<T>
    numRuns: number
    examples?: T[]
    maxShrinkRuns?: number
    run: (value: T, s: Scenario) => Promise<void>
    show?: (value: T) => string
  }): Promise<void> {
    let last: { child: Scenario; value: T } | undefined
    let shrinkRuns = 0
    const property = fc.asyncProperty(options.arbitrary, async (value) => {
      if (last && (++shrinkRuns > (options.maxShrinkRuns ?? MAX_SHRINK_RUNS) || last.child.recorder.transportFailed))
        return true
      if (this.run.stopped) return true
      const child = this.child()
      try {
        await options.run(value, child)
      } catch (error) {
        if (!(error instanceof NotSent)) child.recorder.judge.kitError(error)
      }
      const failing = child.recorder.judge.failing(false).length > 0 && !child.recorder.judge.broken
      this.recorder.absorb(child.recorder, { counts: true, findings: !failing })
      if (!failing) return true
      last = { child, value }
      return false
    })
    const details = await fc.check(property, {
      seed: this.run.config.seed,
      numRuns: options.numRuns,
      examples: (options.examples ?? []).map((e) => [e] as [T]),
    })
    if (last) {
      const show = options.show ?? ((v: T) => fc.stringify(v))
      const replay: Replay = {
        counterexample: show(last.value),
        seed: details.seed,
        ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}),
      }
      this.recorder.absorb(last.child.recorder, { counts: false, findings: true }, replay)
    }
  }
}

/** How a scenario learns that the run is interrupted, and where its record then goes at once. */
export interface Interrupt {
  signal: AbortSignal
  /** Handed the record as it stands when the signal aborts (the scenario's promise may no longer be awaited). */
  record: (record: ScenarioRecord) => void
}

/**
 * Runs one scenario to its record: never throws; what stopped it early is said in the record. When `interrupt`'s
 * signal aborts, the whole run stops sending and the record so far is handed over at once.
 */
export async function runScenario(run: Run, spec: ScenarioSpec, interrupt?: Interrupt): Promise<ScenarioRecord> {
  const recorder = run.recorder(spec.name, spec.area)
  if (!run.selection.wants(spec)) return recorder.record()
  const onAbort = () => {
    run.interrupt('the run was interrupted before every scenario finished')
    recorder.stopped ??= run.stopped
    interrupt?.record(recorder.record())
  }
  if (interrupt?.signal.aborted) onAbort()
  else interrupt?.signal.addEventListener('abort', onAbort, { once: true })
  const s = new Scenario(run, recorder)
  try {
    if (run.stopped) throw new NotSent(run.stopped)
    await spec.run(s)
  } catch (error) {
    if (error instanceof NotSent) recorder.stopped = error.message
    else recorder.judge.kitError(error)
  } finally {
    interrupt?.signal.removeEventListener('abort', onAbort)
  }
  return recorder.record()
}
