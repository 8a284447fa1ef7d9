/**
 * Where a check applies: its `on` declaration read against one exchange and its facts. The engine and the
 * checks' unit tests both call these, so a check is tested exactly as it is run.
 */
import type { Exchange } from '../../model/index.js'
import type { Spec } from '../../spec/index.js'
import {
  bySpec,
  credentialKind,
  type ExchangeCheck,
  type ExchangeDeclaration,
  type ExchangeInput,
  type Fact,
  type Facts,
  type Judgement,
  onOperation,
  type TransportCheck,
  type TransportDeclaration,
} from './check.js'
import { requestLine } from './util.js'

/** A check the engine judges exchange by exchange. */
export type PerExchangeCheck = ExchangeCheck | TransportCheck

/** Such a check as declared, or resolved: what is read here takes either (the spec to judge by is handed in). */
export type PerExchangeDeclaration = ExchangeDeclaration | TransportDeclaration

/**
 * What an exchange check is handed: the answered exchange, its facts, and the operation it called (left unset
 * for checks declared on `any`, which must not rely on one).
 */
export function exchangeInput(check: ExchangeDeclaration, exchange: Exchange, facts: Facts): ExchangeInput<Fact> {
  const { operationId, response } = exchange
  if (!response) throw new Error(`${check.id} was handed an exchange without a response`)
  // `With<N>` is only a promise that the needed facts are there; `appliesTo` keeps it.
  const input = { exchange, response, facts, ...(check.on.operation !== 'any' && operationId ? { operationId } : {}) }
  return input as ExchangeInput<Fact>
}

/**
 * Whether a check judges this exchange. Transport checks judge every exchange. Exchange checks judge answered
 * exchanges whose operation matches (one, one of a list, `all`: any documented operation; `any`: every request, undocumented ones
 * too), whose status is listed, whose credential is of the kind asked, whose needed facts are all known, and
 * for which `when` holds, read last.
 */
export function appliesTo(check: PerExchangeDeclaration, exchange: Exchange, facts: Facts, spec: Spec): boolean {
  if (check.scope === 'transport') return true
  const { on } = check
  const { operationId, response } = exchange
  if (!response) return false
  if (!onOperation(on.operation, operationId)) return false
  if (on.statuses && !bySpec(on.statuses, spec).includes(response.status)) return false
  if (on.credential && credentialKind(exchange.credential) !== on.credential) return false
  if (on.needs && on.needs.some((fact: Fact) => facts[fact] === undefined)) return false
  return !on.when || on.when(exchangeInput(check, exchange, facts), spec)
}

/** The check's messages for this exchange (or why it is not judged there), or undefined when it does not apply. */
export function judgeExchange(
  check: PerExchangeDeclaration,
  exchange: Exchange,
  facts: Facts,
  spec: Spec,
): Judgement | undefined {
  if (!appliesTo(check, exchange, facts, spec)) return undefined
  return check.scope === 'transport' ? check.run(exchange) : check.run(exchangeInput(check, exchange, facts), spec)
}

/** What an observation of an observed exchange check is about: its `subject`, or the request line. */
export function subjectOf(check: ExchangeDeclaration, exchange: Exchange, facts: Facts, spec: Spec): string {
  return check.subject ? check.subject(exchangeInput(check, exchange, facts), spec) : requestLine(exchange)
}
