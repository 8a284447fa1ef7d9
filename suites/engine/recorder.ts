/**
 * The recorder of one scenario (or one property run): what it sent and what came back (requests, statuses seen,
 * pets created, the facts known about each exchange, why it stopped). Each exchange it records goes to its judge,
 * which dispatches the checks; a record holds both.
 */
import type { Exchange, ScenarioRecord } from '../../model/index.js'
import type { Fact, Facts } from '../checks/check.js'
import type { Area } from './config.js'
import type { Judge, Replay } from './judge.js'

/** Records what one scenario (or one property run) sent and saw, and hands each exchange to its judge. */
export class Recorder {
  readonly scenario: string
  readonly area: Area
  /** Judges what this recorder records. */
  readonly judge: Judge
  requestsSent = 0
  recordsCreated = 0
  /** A request of this recorder got no HTTP answer. */
  transportFailed = false
  /** Why the scenario stopped early, if it did. */
  stopped: string | undefined
  readonly #statuses = new Set<string>()
  readonly #factsOf: WeakMap<Exchange, Facts>

  /** `factsOf` is the run's: what is known about each exchange, whichever recorder sent it. */
  constructor(scenario: { name: string; area: Area }, judge: Judge, factsOf: WeakMap<Exchange, Facts>) {
    this.scenario = scenario.name
    this.area = scenario.area
    this.judge = judge
    this.#factsOf = factsOf
  }

  /** Records an exchange sent and what was known as it was sent; the judge judges it. */
  sent(exchange: Exchange, facts: Facts): void {
    this.requestsSent += exchange.attempts
    if (exchange.error) this.transportFailed = true
    const status = exchange.response?.status
    if (status !== undefined && exchange.operationId) this.#statuses.add(`${exchange.operationId} ${status}`)
    if (exchange.operationId === 'createPet' && status !== undefined && status >= 200 && status < 300)
      this.recordsCreated++
    this.#factsOf.set(exchange, facts)
    this.judge.exchange(exchange, facts)
  }

  /** Records what a scenario learned later about an exchange; the judge judges it with the checks that needed it. */
  know(exchange: Exchange, more: Facts): void {
    const facts = { ...this.#factsOf.get(exchange), ...more }
    this.#factsOf.set(exchange, facts)
    this.judge.learned(exchange, facts, Object.keys(more) as Fact[])
  }

  /**
   * Merges a property run's recorder: its counts always; its judge's findings and observations when asked (a passing
   * run's observations, or the final counterexample's findings, with how to replay it).
   */
  absorb(child: Recorder, what: { counts: boolean; findings: boolean }, replay?: Replay): void {
    if (what.counts) {
      this.requestsSent += child.requestsSent
      this.recordsCreated += child.recordsCreated
      if (child.transportFailed) this.transportFailed = true
      for (const status of child.#statuses) this.#statuses.add(status)
    }
    this.judge.absorb(child.judge, what, replay)
  }

  /** The record the reporter reads: plain JSON. */
  record(): ScenarioRecord {
    return {
      scenario: this.scenario,
      ...this.judge.verdicts(),
      statusesSeen: [...this.#statuses].sort(),
      requestsSent: this.requestsSent,
      recordsCreated: this.recordsCreated,
      ...(this.stopped ? { stopped: this.stopped } : {}),
    }
  }
}
