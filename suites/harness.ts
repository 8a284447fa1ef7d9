/**
 * What the conformance tests share: the run's session (config, spec, client, what the run created) and the
 * Recorder that sends requests, judges each exchange with the catalogue and turns the verdicts into the
 * `TestRecord` each vitest test case carries in `task.meta.conformance`.
 */
import fc from 'fast-check'
import { inject, test } from 'vitest'
import { spec, stringifyJson, type JsonValue, type OperationId, type Spec } from '../spec/index.js'
import type { NewPetValue } from './arbitraries.js'
import type { Allowances } from './config.js'
import { CROSS_CUTTING, checkById, type Check, type CheckInput } from './checks/index.js'
import { mayHitSizeLimit } from './checks/accepts-valid.js'
import { idOf, requestLine } from './checks/util.js'
import { Client, recorded, type Credential, type Exchange, type Request } from './client.js'
import type { CheckResult, Finding, Observation, Severity, Source, TestRecord } from './model.js'

/** What the command hands the conformance tests through vitest's `provide`. The key stays in memory only. */
export interface SuiteConfig {
  /** The target as reports show it, e.g. `http://127.0.0.1:4010/v1`. */
  baseUrl: string
  /** Where requests really go when Prism's proxy sits in between. */
  sendBaseUrl?: string
  apiKey: string
  seed: number
  runs: number
  timeoutMs: number
  checks: string[]
  operations: OperationId[]
  strict: boolean
  viaPrism: boolean
  runId: string
  allowances: Allowances
  /** Epoch ms after which no request is sent (`--max-time`): what is left is skipped. */
  stopAt: number
  /** Epoch ms after which properties start no new run, so the tests after them still get time. */
  propertiesStopAt: number
  /** Longest one property may run on a slow target, so one property cannot starve the others. */
  propertyBudgetMs: number
}

declare module 'vitest' {
  interface ProvidedContext {
    conformance: SuiteConfig
  }
}

/** The part of the run a test belongs to; each has its own allowance of pets to create. */
export type Area = keyof Allowances

/** A request the run must not send (record budget spent, target stopped answering): the test ends, its checks skip. */
export class NotSent extends Error {
  override name = 'NotSent'
}

const MAX_FINDINGS_PER_CHECK = 5
const MAX_OBSERVATIONS_PER_CHECK = 8
const MAX_SHRINK_RUNS = 40
// After this many timeouts the verdict is settled; later requests wait less so the run ends in time.
const TIMEOUTS_BEFORE_SHORTER_WAITS = 1
const SHORTER_TIMEOUT_MS = 1000
const TRANSPORT_ERRORS_BEFORE_STOP = 8

/** The run as the conformance tests share it (one worker, one module graph, files in order). */
export class Session {
  readonly config: SuiteConfig
  readonly spec: Spec
  readonly client: Client
  /** Pets this run created, by id, as createPet returned them, in creation order. */
  readonly created = new Map<string, JsonValue>()
  /** Pets the target held before the run created any, as first listed: they must still be there at the end. */
  readonly listedAtStart = new Map<string, JsonValue>()
  /** Ids of pets created one at a time, in creation order: what the id scheme is judged on. */
  readonly idsInOrder: string[] = []
  readonly createdByArea: Record<Area, number> = { create: 0, list: 0, get: 0, auth: 0, stateful: 0, coverage: 0 }
  timeouts = 0
  transportErrors = 0
  /** Checks of a second judge (Prism) whose verdict comes with each response, when one is in use. */
  readonly hookChecks: HookChecks | undefined

  constructor(config: SuiteConfig, hook?: HookChecks) {
    this.config = config
    this.spec = spec()
    this.hookChecks = hook
    this.client = new Client({
      baseUrl: config.baseUrl,
      sendBaseUrl: config.sendBaseUrl,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      onResponse: hook?.judge,
    })
  }

  /** The name prefix of every pet this run creates. */
  get prefix(): string {
    return `pcs-${this.config.runId}-`
  }

  /** True once the target has failed to answer so often that sending more only costs time. */
  get stopped(): boolean {
    return this.transportErrors >= TRANSPORT_ERRORS_BEFORE_STOP
  }

  /** Whether a check is selected for an operation (`--check`, `--operation`). */
  selects(check: Check, operationId?: OperationId): boolean {
    const { checks, operations } = this.config
    if (checks.length && !checks.includes(check.id)) return false
    const op = check.operationId === 'all' ? operationId : check.operationId
    return !operations.length || op === undefined || operations.includes(op)
  }

  /** Whether a test with this plan has anything selected to judge. */
  runs(plan: Plan): boolean {
    const judges = (c: Check, op: OperationId) => (c.operationId === 'all' || c.operationId === op) && this.selects(c, op)
    return [...plan.checks.map(checkById), ...CROSS_CUTTING].some((c) => plan.operations.some((op) => judges(c, op)))
  }

  /** Notes a transport error; after a few timeouts later requests wait less. */
  noteTransportError(error: string): void {
    this.transportErrors++
    if (/^timeout/.test(error) && ++this.timeouts >= TIMEOUTS_BEFORE_SHORTER_WAITS) {
      this.client.timeoutMs = Math.min(this.client.timeoutMs, SHORTER_TIMEOUT_MS)
    }
  }

  /** The largest id known to exist (created by the run or seen listed), as a bigint. */
  maxKnownId(seen: Iterable<string> = []): bigint | undefined {
    let max: bigint | undefined
    for (const id of [...this.created.keys(), ...seen]) if (max === undefined || BigInt(id) > max) max = BigInt(id)
    return max
  }
}

let current: Promise<Session> | undefined

/** The run's session, made on first use and shared by every conformance file. */
export function session(): Promise<Session> {
  return (current ??= makeSession())
}

/** A second judge whose verdict rides on each response: its checks and how to read its verdict. */
export interface HookChecks {
  checks: readonly { id: string; title: string }[]
  /** Findings for one exchange; undefined when the judge gave no verdict on it. */
  judge: (exchange: Exchange) => Finding[] | undefined
}

async function makeSession(): Promise<Session> {
  const config = inject('conformance')
  if (!config.viaPrism) return new Session(config)
  // Loaded only with --via-prism: it turns Prism's `sl-violations` header into findings.
  const prism = await import('./prism.js')
  return new Session(config, {
    checks: prism.PRISM_CHECKS,
    judge: (exchange) => {
      const header = exchange.response?.headers[prism.VIOLATIONS_HEADER]
      if (header === undefined) return undefined
      return prism.parseViolations(header, recorded(exchange)).map((finding) => ({ ...finding, curl: exchange.curl }))
    },
  })
}

/** The checks a test exercises and the operations it calls, for selection and `skipped` outcomes. */
export interface Plan {
  checks: string[]
  operations: OperationId[]
}

interface CheckState {
  id: string
  title: string
  severity: Severity
  source: Source
  operationId: OperationId | 'all'
  exchanges: number
  findings: Finding[]
  error?: string
}

/** Where a finding came from, when a property found it. */
interface Replay {
  counterexample: string
  seed: number
  path?: string
}

/** Options of a createPet request. */
export interface SendOptions {
  credential?: Credential
  /** Context the checks judging this exchange need. */
  context?: Omit<CheckInput, 'exchange'>
}

/**
 * Sends a test's requests through the run's client, judges every exchange with the cross-cutting checks,
 * runs the test's own checks, and builds the test's `TestRecord`.
 */
export class Recorder {
  readonly s: Session
  readonly plan: Plan
  readonly area: Area
  requestsSent = 0
  recordsCreated = 0
  /** A request of this recorder got no HTTP response. */
  transportFailed = false
  /** A request of this recorder timed out: the test sends nothing more, each further one could hang too. */
  timedOut = false
  readonly #checks = new Map<string, CheckState>()
  readonly #observations = new Map<string, Observation>()
  readonly #statuses = new Set<string>()
  readonly #started = performance.now()

  constructor(session: Session, plan: Plan, area: Area) {
    this.s = session
    this.plan = plan
    this.area = area
  }

  get spec(): Spec {
    return this.s.spec
  }

  /** True while this test may create `n` more pets within its area's allowance. */
  mayCreate(n = 1): boolean {
    return this.s.createdByArea[this.area] + n <= this.s.config.allowances[this.area]
  }

  /** Sends one request, records it and judges it with every selected cross-cutting check. */
  async send(request: Request, options: SendOptions = {}): Promise<Exchange> {
    if (this.s.stopped) throw new NotSent('the target stopped answering; the rest of the run is skipped')
    if (this.timedOut) throw new NotSent('an earlier request of this test timed out')
    if (Date.now() > this.s.config.stopAt) throw new NotSent('the run reached --max-time; the rest is skipped')
    if (request.operationId === 'createPet' && !this.mayCreate()) {
      throw new NotSent(`the ${this.area} checks used their allowance of ${this.s.config.allowances[this.area]} pets`)
    }
    const exchange = await this.s.client.send({ ...request, credential: request.credential ?? options.credential })
    this.requestsSent += exchange.attempts
    if (exchange.error) {
      this.transportFailed = true
      if (/^timeout/.test(exchange.error)) this.timedOut = true
      this.s.noteTransportError(exchange.error)
    }
    const status = exchange.response?.status
    if (status !== undefined) this.#statuses.add(`${exchange.operationId} ${status}`)
    if (request.operationId === 'createPet' && status !== undefined && status >= 200 && status < 300) {
      this.recordsCreated++
      this.s.createdByArea[this.area]++
    }
    const input = { ...options.context, exchange }
    for (const check of CROSS_CUTTING) this.check(check.id, input)
    if (exchange.hookFindings && this.s.hookChecks) {
      for (const { id, title } of this.s.hookChecks.checks) {
        if (!this.s.config.checks.length || this.s.config.checks.includes(id)) this.#hookState(id, title).exchanges++
      }
      for (const finding of exchange.hookFindings) {
        const known = this.s.hookChecks.checks.find((c) => c.id === finding.checkId)
        this.#addFinding(this.#hookState(finding.checkId, known?.title ?? finding.checkId), finding)
      }
    }
    return exchange
  }

  /** createPet with a JSON body (a value), a raw body (text), or none (undefined). */
  createPet(body: JsonValue | undefined, options: SendOptions & { raw?: string } = {}): Promise<Exchange> {
    const text = options.raw ?? (body === undefined ? undefined : stringifyJson(body))
    // Content-Type even without a body: "body missing" must be answered 400, not 415.
    return this.send({ operationId: 'createPet', method: 'POST', path: '/pets', body: text, contentType: 'application/json' }, options)
  }

  /** createPet of a valid NewPet: remembers the pet when the target created it. */
  async createValid(newPetValue: JsonValue | NewPetValue, options: SendOptions & { concurrent?: boolean } = {}): Promise<{ exchange: Exchange; pet?: JsonValue }> {
    const newPet = newPetValue as JsonValue
    const exchange = await this.createPet(newPet, { ...options, context: { ...options.context, sent: newPet } })
    this.check('createPet.accepts-valid', { exchange, sent: newPet })
    this.check('createPet.echo', { exchange, sent: newPet })
    if (exchange.response?.status === 400 && mayHitSizeLimit(newPet)) {
      const bytes = Buffer.byteLength(String((newPet as { name: string }).name), 'utf8')
      this.check('createPet.name.long', { exchange, sent: newPet }, `POST /pets with a name of ${bytes} UTF-8 bytes`)
    }
    const pet = exchange.response?.status === 201 && exchange.json.kind === 'json' ? exchange.json.value : undefined
    const id = idOf(pet)
    if (pet !== undefined && id !== undefined) {
      this.check('createPet.ids-unique', { exchange, takenIds: new Set(this.s.created.keys()) })
      if (!this.s.created.has(id)) this.s.created.set(id, pet)
      if (!options.concurrent) this.s.idsInOrder.push(id)
      return { exchange, pet }
    }
    return { exchange }
  }

  /** listPets with query parameters in order. */
  listPets(query: [string, string][] = [], options: SendOptions = {}): Promise<Exchange> {
    return this.send({ operationId: 'listPets', method: 'GET', path: '/pets', query }, options)
  }

  /** getPet of an id given as decimal text. */
  getPet(id: string, options: SendOptions = {}): Promise<Exchange> {
    return this.send({ operationId: 'getPet', method: 'GET', path: `/pets/${encodeURIComponent(id)}` }, options)
  }

  /** Runs one check of the catalogue (if selected and applicable) and records its verdict; returns its messages. */
  check(id: string, input: CheckInput, subject?: string): string[] {
    const check = checkById(id)
    if (!this.s.selects(check, input.exchange?.operationId)) return []
    let messages: string[]
    try {
      if (check.applies && !check.applies(input, this.spec)) return []
      messages = check.run(input, this.spec)
    } catch (error) {
      // A broken check is reported as such; it must not hide the other checks' results.
      this.#state(check).error ??= `the check itself failed: ${(error as Error).stack ?? String(error)}`
      return []
    }
    const state = this.#state(check)
    state.exchanges++
    if (check.severity === 'observed') {
      for (const behaviour of messages) this.observe(check, subject ?? check.subject ?? (input.exchange ? requestLine(input.exchange) : check.title), behaviour)
      return messages
    }
    const exchange = input.exchange
    for (const message of messages) {
      this.#addFinding(state, {
        checkId: check.id,
        ...(exchange || check.operationId !== 'all' ? { operationId: exchange?.operationId ?? (check.operationId as OperationId) } : {}),
        severity: check.severity,
        source: 'suite',
        message,
        ...(exchange ? { exchange: recorded(exchange), curl: exchange.curl } : {}),
      })
    }
    return messages
  }

  /** Records what the target chose where the interface is silent. */
  observe(check: Check, subject: string, behaviour: string): void {
    const key = `${check.id}\u0000${subject}\u0000${behaviour}`
    if (this.#observations.has(key)) return
    if ([...this.#observations.values()].filter((o) => o.id === check.id).length >= MAX_OBSERVATIONS_PER_CHECK) return
    const operationId = check.operationId === 'all' ? undefined : check.operationId
    this.#observations.set(key, { id: check.id, ...(operationId ? { operationId } : {}), subject, behaviour })
  }

  /** Lists a planned check in the record; never judged, its outcome is `skipped`. */
  declare(id: string): void {
    const check = checkById(id)
    if (this.s.selects(check)) this.#state(check)
  }

  /** Records a failure of the suite's own code against the test's planned checks. */
  kitError(error: unknown): void {
    const message = `the suite failed: ${(error as Error)?.stack ?? String(error)}`
    const open = this.plan.checks.map(checkById).filter((c) => this.s.selects(c))
    for (const check of open.length ? open : [checkById(CROSS_CUTTING[0].id)]) {
      const state = this.#state(check)
      if (!state.findings.length) state.error ??= message
    }
  }

  /** Findings that fail the test: `fail` severity, `advice` too under --strict, and broken checks. */
  failures(strict = this.s.config.strict): string[] {
    const failing: string[] = []
    for (const state of this.#checks.values()) {
      if (state.error) failing.push(`${state.id}: ${state.error}`)
      for (const f of state.findings) {
        if (f.severity === 'fail' || (strict && f.severity === 'advice')) failing.push([`${state.id}: ${f.message}`, ...reproduction(f)].join('\n'))
      }
    }
    return failing
  }

  /** A fresh recorder for one property run, judged apart and merged back by `property`. */
  child(): Recorder {
    return new Recorder(this.s, this.plan, this.area)
  }

  /**
   * Runs a fast-check property with the run's seed. Each run gets its own recorder; a failing run is shrunk
   * (within bounds: a few dozen runs, none after a transport error) and the smallest counterexample's
   * findings are kept, with the counterexample, seed and path to replay it.
   */
  async property<T>(options: {
    arbitrary: fc.Arbitrary<T>
    numRuns: number
    examples?: T[]
    /** Shrink steps allowed after the first failure; each one sends requests again. */
    maxShrinkRuns?: number
    run: (value: T, r: Recorder) => Promise<void>
    show?: (value: T) => string
  }): Promise<void> {
    let last: { child: Recorder; value: T } | undefined
    let shrinkRuns = 0
    const property = fc.asyncProperty(options.arbitrary, async (value) => {
      if (last && (++shrinkRuns > (options.maxShrinkRuns ?? MAX_SHRINK_RUNS) || last.child.transportFailed)) return true
      if (this.s.stopped) return true
      const child = this.child()
      try {
        await options.run(value, child)
      } catch (error) {
        if (!(error instanceof NotSent)) child.kitError(error)
      }
      const failing = child.failures(false).length > 0 && !child.#hasErrors()
      this.#absorb(child, { counts: true, findings: !failing })
      if (!failing) return true
      last = { child, value }
      return false
    })
    const details = await fc.check(property, {
      seed: this.s.config.seed,
      numRuns: options.numRuns,
      examples: (options.examples ?? []).map((e) => [e] as [T]),
      interruptAfterTimeLimit: Math.max(1000, Math.min(this.s.config.propertyBudgetMs, this.s.config.propertiesStopAt - Date.now())),
    })
    if (last) {
      const show = options.show ?? ((v: T) => fc.stringify(v))
      this.#absorb(last.child, { counts: false, findings: true }, {
        counterexample: show(last.value),
        seed: details.seed,
        ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}),
      })
    }
  }

  /** The record the reporter reads: plain JSON. */
  toRecord(): TestRecord {
    const durationMs = Math.round(performance.now() - this.#started)
    for (const id of this.plan.checks) this.declare(id)
    const checks: CheckResult[] = [...this.#checks.values()].map((s) => ({
      id: s.id,
      title: s.title,
      operationId: s.operationId,
      severity: s.severity,
      source: s.source,
      outcome: s.error ? 'error' : s.findings.length ? 'failed' : s.exchanges > 0 ? 'passed' : 'skipped',
      findings: s.error && !s.findings.length ? [] : s.findings,
      exchanges: s.exchanges,
      durationMs,
    }))
    return {
      checks,
      observations: [...this.#observations.values()],
      statusesSeen: [...this.#statuses].sort(),
      requestsSent: this.requestsSent,
      recordsCreated: this.recordsCreated,
    }
  }

  #hasErrors(): boolean {
    return [...this.#checks.values()].some((s) => s.error)
  }

  #state(check: Check, source: Source = 'suite'): CheckState {
    let state = this.#checks.get(check.id)
    if (!state) {
      state = { id: check.id, title: check.title, severity: check.severity, source, operationId: check.operationId, exchanges: 0, findings: [] }
      this.#checks.set(check.id, state)
    }
    return state
  }

  // A second judge's checks are not in the catalogue; they fail like any documented rule.
  #hookState(id: string, title: string): CheckState {
    return this.#state({ id, title, severity: 'fail', operationId: 'all', run: () => [] }, 'prism')
  }

  #addFinding(state: CheckState, finding: Finding): void {
    if (state.findings.length >= MAX_FINDINGS_PER_CHECK) return
    if (state.findings.some((f) => f.message === finding.message)) return
    state.findings.push(finding)
  }

  // Merges a property run's recorder: counts when the run happens; findings when it passed or is the final counterexample.
  #absorb(child: Recorder, what: { counts: boolean; findings: boolean }, replay?: Replay): void {
    const mine = (state: CheckState) => {
      let own = this.#checks.get(state.id)
      if (!own) this.#checks.set(state.id, (own = { ...state, exchanges: 0, findings: [], error: undefined }))
      return own
    }
    if (what.counts) {
      this.requestsSent += child.requestsSent
      this.recordsCreated += child.recordsCreated
      if (child.transportFailed) this.transportFailed = true
      for (const status of child.#statuses) this.#statuses.add(status)
      for (const state of child.#checks.values()) mine(state).exchanges += state.exchanges
    }
    if (!what.findings) return
    for (const [key, observation] of child.#observations) {
      if (this.#observations.has(key)) continue
      if ([...this.#observations.values()].filter((o) => o.id === observation.id).length >= MAX_OBSERVATIONS_PER_CHECK) continue
      this.#observations.set(key, observation)
    }
    for (const state of child.#checks.values()) {
      const own = mine(state)
      if (state.error) own.error ??= state.error
      for (const finding of state.findings) this.#addFinding(own, replay ? { ...finding, ...replay } : finding)
    }
  }
}

/**
 * A conformance test: skipped when nothing it judges is selected; otherwise it runs `body` with a Recorder,
 * puts the record in `task.meta.conformance`, and fails when a `fail` check (or `advice` under --strict) found something.
 */
export function conformanceTest(name: string, plan: Plan & { area: Area }, body: (r: Recorder) => Promise<void>): void {
  test(name, async (context) => {
    const s = await session()
    if (!s.runs(plan)) context.skip()
    const r = new Recorder(s, plan, plan.area)
    try {
      if (s.stopped) throw new NotSent('the target stopped answering')
      await body(r)
    } catch (error) {
      if (!(error instanceof NotSent)) r.kitError(error)
    }
    context.task.meta.conformance = r.toRecord()
    const failures = r.failures()
    if (failures.length) {
      // The thrown message is what JUnit shows: each finding with its request and a curl line to replay it.
      const shown = failures.slice(0, 8).map((f) => `  - ${f.replace(/\n/g, '\n    ')}`)
      const more = failures.length > shown.length ? [`  ... and ${failures.length - shown.length} more`] : []
      throw new ConformanceFailure([`${failures.length} finding(s):`, ...shown, ...more].join('\n'))
    }
  })
}

/** The request a finding rests on and the curl line that replays it, for the failure message. */
function reproduction(finding: Finding): string[] {
  const exchange = finding.exchange
  if (!exchange) return []
  const outcome = exchange.response ? String(exchange.response.status) : (exchange.error ?? 'no answer')
  return [`${exchange.request.method} ${exchange.request.url} -> ${outcome}`, ...(finding.curl ? [finding.curl] : [])]
}

/** The test's verdict: the target broke a documented rule (or a check broke). */
export class ConformanceFailure extends Error {
  override name = 'ConformanceFailure'
}
