/**
 * The judge of one scenario (or one property run): it dispatches every selected check that applies to what the
 * scenario sent (through `appliesTo`, the same rule the checks' tests use), and keeps findings and observations per
 * check; a check that throws is reported as broken, never hides others. What was sent is the recorder's.
 */
import {
  LIMITS,
  boundExchange,
  boundText,
  recorded,
  type CheckResult,
  type Exchange,
  type Finding,
  type Observation,
  type Redactor,
  type ScenarioRecord,
  type Severity,
} from '../../model/index.js'
import { stringifyJson, type JsonValue, type Spec } from '../../spec/index.js'
import { appliesTo, exchangeInput, subjectOf } from '../checks/applies.js'
import { requestLine } from '../checks/util.js'
import {
  isNotJudged,
  listedOperation,
  type Check,
  type Judgement,
  type ExchangeCheck,
  type Fact,
  type Facts,
  type OnOperation,
  type RunCheck,
  type RunInput,
} from '../checks/check.js'
import type { CheckId } from '../checks/index.js'
import { openOutsideDocumentedInput } from '../prism/violations.js'
import type { Selection } from './selection.js'

const MAX_FINDINGS_PER_CHECK = 5
const MAX_OBSERVATIONS_PER_CHECK = 8

/** Where a finding came from, when a property found it. */
export interface Replay {
  counterexample: string
  seed: number
  path?: string
}

interface CheckState {
  result: CheckResult
  error?: string
}

/** Judges what one scenario (or one property run) sent with the run's selected checks. */
export class Judge {
  readonly selection: Selection
  readonly spec: Spec
  readonly #redactor: Redactor
  readonly #checks = new Map<string, CheckState>()
  readonly #observations = new Map<string, Observation>()

  constructor(selection: Selection, spec: Spec, redactor: Redactor) {
    this.selection = selection
    this.spec = spec
    this.#redactor = redactor
  }

  /** Judges an exchange with every selected check that applies to it, and takes Prism's opinion of it. */
  exchange(exchange: Exchange, facts: Facts): void {
    for (const check of this.selection.of('transport')) {
      if (!this.selection.judgesOn(check, exchange.operationId)) continue
      const instead = check.observedInstead?.(exchange)
      if (instead === undefined) this.#verdict(check, () => check.run(exchange), exchange)
      else this.#observation(check, exchange, requestLine(exchange), instead)
    }
    for (const check of this.selection.of('exchange')) this.#judgeOne(check, exchange, facts)
    for (const opinion of exchange.secondOpinion ?? []) this.#secondOpinion(exchange, opinion, facts)
  }

  /** Judges an exchange again with the checks that needed a fact learned later (`added`), now in `facts`. */
  learned(exchange: Exchange, facts: Facts, added: readonly Fact[]): void {
    for (const check of this.selection.of('exchange')) {
      if ((check.on.needs ?? []).some((need: Fact) => added.includes(need))) this.#judgeOne(check, exchange, facts)
    }
  }

  /**
   * Judges the run as a whole, once at its end: its run-level checks on what it showed, and the exchange checks the
   * judged spec or the selected operations leave nothing to judge, said so.
   */
  wholeRun(input: RunInput, stopped: boolean): void {
    for (const check of this.selection.of('run')) {
      // A run that stopped early did not send all it meant to: a property of the whole run (every documented status
      // provoked) cannot fail on it. Left unmentioned, the check counts as unjudged and the run as incomplete.
      if (stopped && check.severity === 'fail') continue
      this.#judgeRun(check, input)
    }
    for (const check of this.selection.of('exchange')) {
      const why = check.inapplicable?.(this.spec, this.selection.operations)
      if (why !== undefined) this.premiseMissing([check.id as CheckId], `not applicable: ${why}`)
    }
  }

  /** Says why these checks could not be judged on this target (its answers leave no way to), unless judged elsewhere. */
  premiseMissing(ids: readonly CheckId[], reason: string): void {
    for (const check of this.selection.of('exchange').filter((c) => ids.includes(c.id as CheckId))) {
      const state = this.#state(check)
      if (state.result.exchanges === 0) state.result = { ...state.result, outcome: 'skipped', reason }
    }
  }

  /** Records a failure of the suite's own code. */
  kitError(error: unknown): void {
    const message = `the suite itself failed: ${(error as Error)?.stack ?? String(error)}`
    const state = this.#state({
      id: 'suite.ran',
      title: 'The suite ran without errors of its own',
      severity: 'fail',
      on: { operation: 'all' },
    } as never)
    state.error ??= message
  }

  /** Findings that fail (fail severity; advice too when strict). */
  failing(strict: boolean): Finding[] {
    return [...this.#checks.values()].flatMap((s) =>
      s.result.findings.filter((f) => f.severity === 'fail' || (strict && f.severity === 'advice')),
    )
  }

  /** True when a check of this judge broke. */
  get broken(): boolean {
    return [...this.#checks.values()].some((s) => s.error !== undefined)
  }

  /**
   * Merges a property run's judge: which checks it judged and on how many exchanges, always; its findings and
   * observations when asked (a passing run's observations, or the final counterexample's findings, with how to
   * replay it).
   */
  absorb(child: Judge, what: { counts: boolean; findings: boolean }, replay?: Replay): void {
    if (what.counts) {
      for (const [id, state] of child.#checks) {
        const own = this.#adopt(id, state)
        own.result = { ...own.result, exchanges: own.result.exchanges + state.result.exchanges }
        if (own.result.outcome === 'skipped' && own.result.exchanges > 0)
          own.result = { ...own.result, outcome: 'passed' }
      }
    }
    if (!what.findings) return
    for (const [key, observation] of child.#observations) this.#observe(key, observation)
    for (const [id, state] of child.#checks) {
      const own = this.#adopt(id, state)
      if (state.error) own.error ??= state.error
      for (const finding of state.result.findings)
        this.#addFinding(own, replay ? { ...finding, ...this.#bounded(replay) } : finding)
    }
  }

  /** What the judge found, as a record holds it: plain JSON. */
  verdicts(): Pick<ScenarioRecord, 'checks' | 'observations'> {
    return {
      checks: [...this.#checks.values()].map(({ result, error }) =>
        error !== undefined && !result.findings.length
          ? { ...result, outcome: 'error', reason: boundText(error, 4096, this.#redactor) }
          : result,
      ),
      observations: [...this.#observations.values()],
    }
  }

  #judgeRun(check: RunCheck, input: RunInput): void {
    if (!check.applies(input)) {
      const state = this.#state(check)
      state.result = { ...state.result, outcome: 'skipped', reason: 'the run gave it nothing to judge' }
      return
    }
    this.#verdict(
      check,
      () => check.run(input, this.spec),
      undefined,
      () => check.subject ?? check.title,
    )
  }

  #judgeOne(check: ExchangeCheck, exchange: Exchange, facts: Facts): void {
    if (!this.selection.judgesOn(check, exchange.operationId)) return
    if (!appliesTo(check, exchange, facts, this.spec)) return
    const input = exchangeInput(check, exchange, facts)
    this.#verdict(
      check,
      () => check.run(input, this.spec),
      exchange,
      () => subjectOf(check, exchange, facts, this.spec),
      facts,
    )
  }

  #verdict(
    check: Check,
    run: () => Judgement,
    exchange: Exchange | undefined,
    subject?: () => string,
    facts?: Facts,
  ): void {
    const state = this.#state(check)
    let messages: Judgement
    try {
      messages = run()
    } catch (error) {
      // A broken check is reported as such; it must not hide the other checks' results.
      state.error ??= `the check itself failed: ${(error as Error)?.stack ?? String(error)}`
      return
    }
    if (isNotJudged(messages)) {
      // Not a pass: the check stays skipped, saying why, unless an exchange judged it after all.
      if (state.result.exchanges === 0 && state.result.reason === undefined)
        state.result = { ...state.result, outcome: 'skipped', reason: `not judged: ${messages.notJudged}` }
      return
    }
    state.result = {
      ...state.result,
      exchanges: state.result.exchanges + 1,
      outcome: state.result.outcome === 'failed' ? 'failed' : 'passed',
    }
    delete state.result.reason
    if (check.severity === 'observed') {
      const about = subject?.() ?? check.title
      for (const behaviour of messages) this.#observation(check, exchange, about, behaviour)
      return
    }
    for (const message of messages) this.#addFinding(state, this.#finding(check, message, exchange, facts))
  }

  /** Records what a target did where a check observes rather than judges. */
  #observation(check: Check, exchange: Exchange | undefined, subject: string, behaviour: string): void {
    const about = boundText(subject, 300, this.#redactor)
    const listed = listedOperation(check.on.operation)
    const operationId = listed === 'all' ? exchange?.operationId : listed
    const observation = {
      id: check.id,
      ...(operationId ? { operationId } : {}),
      subject: about,
      behaviour: boundText(behaviour, 500, this.#redactor),
    }
    this.#observe(`${check.id}\u0000${about}\u0000${observation.behaviour}`, observation)
  }

  #finding(
    check: { id: string; severity: Severity; on: { operation: OnOperation; needs?: readonly Fact[] } },
    message: string,
    exchange: Exchange | undefined,
    facts?: Facts,
  ): Finding {
    const listed = listedOperation(check.on.operation)
    const operationId = exchange?.operationId ?? (listed === 'all' ? undefined : listed)
    return {
      checkId: check.id,
      ...(operationId ? { operationId } : {}),
      severity: check.severity,
      source: 'suite',
      message: boundText(message, 2048, this.#redactor),
      ...(exchange
        ? {
            exchange: boundExchange(recorded(exchange), this.#redactor),
            curl: boundText(exchange.curl, 2048, this.#redactor),
            replay: replayable(exchange, facts, check.on.needs ?? []),
          }
        : {}),
    }
  }

  #secondOpinion(
    exchange: Exchange,
    opinion: { checkId: string; title: string; message?: string },
    facts: Facts,
  ): void {
    const state = this.#adopt(opinion.checkId, {
      result: {
        id: opinion.checkId,
        title: opinion.title,
        operationId: 'all',
        severity: 'fail',
        source: 'prism',
        outcome: 'passed',
        findings: [],
        exchanges: 0,
      },
    })
    // Prism judged this exchange: the check is judged (passed) unless a finding fails it.
    const outcome = state.result.outcome === 'skipped' ? 'passed' : state.result.outcome
    state.result = { ...state.result, outcome, exchanges: state.result.exchanges + 1 }
    // Outside the documented input on purpose, Prism is judged with the suite's own leeway.
    if (opinion.message !== undefined && !openOutsideDocumentedInput(opinion.checkId, exchange, facts)) {
      this.#addFinding(state, {
        ...this.#finding(
          { id: opinion.checkId, severity: 'fail', on: { operation: 'all' } },
          opinion.message,
          exchange,
        ),
        source: 'prism',
      })
    }
  }

  #state(check: Pick<Check, 'id' | 'title' | 'severity' | 'on'>): CheckState {
    let state = this.#checks.get(check.id)
    if (!state) {
      const operationId = listedOperation(check.on.operation)
      state = {
        result: {
          id: check.id,
          title: check.title,
          operationId,
          severity: check.severity,
          source: 'suite',
          outcome: 'skipped',
          findings: [],
          exchanges: 0,
        },
      }
      this.#checks.set(check.id, state)
    }
    return state
  }

  #adopt(id: string, other: CheckState): CheckState {
    let own = this.#checks.get(id)
    if (!own)
      this.#checks.set(id, (own = { result: { ...other.result, findings: [], exchanges: 0, outcome: 'skipped' } }))
    return own
  }

  #addFinding(state: CheckState, finding: Finding): void {
    state.result = { ...state.result, outcome: 'failed' }
    if (state.result.findings.length >= MAX_FINDINGS_PER_CHECK) return
    if (state.result.findings.some((f) => f.message === finding.message)) return
    state.result.findings = [...state.result.findings, finding]
  }

  #bounded(replay: Replay): Replay {
    return { ...replay, counterexample: boundText(replay.counterexample, 2048, this.#redactor) }
  }

  #observe(key: string, observation: Observation): void {
    if (this.#observations.has(key)) return
    if ([...this.#observations.values()].filter((o) => o.id === observation.id).length >= MAX_OBSERVATIONS_PER_CHECK)
      return
    this.#observations.set(key, observation)
  }
}

/**
 * What `--replay` needs to send a finding's request again and judge it the same way: the credential, and the facts
 * the check was given. Facts the check does not need go first when they are too long to keep (a run's whole list of
 * created pets can be); when even what it needs is too long, none are kept and the finding cannot be replayed.
 */
function replayable(exchange: Exchange, facts: Facts | undefined, needs: readonly Fact[]): Finding['replay'] {
  const entries = Object.entries(facts ?? {}).map(
    ([k, v]) => [k, stringifyJson((v instanceof Set ? [...v] : v) as JsonValue)] as const,
  )
  const size = () => entries.reduce((n, [k, v]) => n + k.length + v.length + 4, 2)
  const optional = entries
    .filter(([k]) => !needs.includes(k as Fact))
    .sort((a, b) => b[1].length - a[1].length)
    .map(([k]) => k)
  for (const drop of optional) {
    if (size() <= LIMITS.replayFacts) break
    entries.splice(
      entries.findIndex(([k]) => k === drop),
      1,
    )
  }
  if (!entries.length || size() > LIMITS.replayFacts) return { credential: exchange.credential }
  return {
    credential: exchange.credential,
    facts: `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`,
  }
}
