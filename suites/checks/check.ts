/**
 * The shape of a check: one small pure function from what the suite saw to messages, and a declaration of
 * what it judges (scope, operation, statuses, the facts it needs), which the engine reads to call it
 * wherever it applies. `[]` means the property holds; for `observed` checks each message is what the target chose.
 * What the spec decides (a title naming its values, a basis pointing into it, the statuses it documents) is declared
 * as a function of the spec the check judges, and resolved once where the catalogue is built for that spec.
 */
import type { Credential, Exchange, RecordedResponse, Severity, StatusCoverage } from '../../model/index.js'
import type { Basis, JsonValue, OperationId, Spec } from '../../spec/index.js'

/** What is known about an exchange beyond the exchange itself: stated by a scenario, or derived by the engine. */
export interface Facts {
  // Stated by scenarios.
  /**
   * createPet: the body sent is a valid NewPet (this one, as the suite built it; fields the schema does not describe
   * make accepting it the target's choice). With `clientId` on getPet: the body of the create that carried that id.
   */
  sent?: JsonValue
  /** createPet: the body sent is invalid, for this reason: the answer must be 400. */
  invalid?: string
  /** getPet: the id identifies no pet. */
  unknown?: true
  /** createPet: whether a pet was found stored afterwards (`null`: looked, none was). */
  storedAfter?: JsonValue | null
  /** createPet or getPet: the id the client wrote into an earlier create's body, which the service must not use. */
  clientId?: string
  /**
   * getPet: the petId is written outside its documented form, a canonical int64 (`abc`, `1.5`, `007`, beyond int64):
   * what it is, and the integer it spells when it spells one (`007` spells 7), decimal text.
   */
  petIdForm?: { kind: string; spells?: string }
  /**
   * createPet: the body is valid JSON for a NewPet in a form the interface leaves open (a byte-order mark, an
   * integer written `1.0` or `1e2`, a duplicate key): accepting or refusing it is the target's choice. Says which.
   */
  leeway?: string
  /** A request with a method the spec documents on no operation of its path (PUT, TRACE, ...): which path, as a template. */
  otherMethod?: string
  /** A documented operation's request on another spelling of its path (a trailing slash, another letter case, ...): which. */
  pathVariant?: string
  // Derived by the engine from the request and from what the run has seen.
  /** listPets: the documented `limit` sent. */
  limit?: number
  /** listPets: the documented `status` filter sent. */
  status?: string
  /** listPets: the query parameters outside their documented range (`limit`, `status`), by name. */
  outOfRange?: readonly string[]
  /** listPets: pets known to exist (matching the filter) when the request was sent: the page holds min(limit, this). */
  atLeast?: number
  /** listPets: pets this run created, complete before the request was sent, as createPet returned them. */
  created?: readonly JsonValue[]
  /** createPet: ids (decimal text) already given to other pets of this run. */
  takenIds?: ReadonlySet<string>
  /** getPet: the pet as createPet returned it, when this run created the id asked for. */
  expected?: JsonValue
  /** getPet: the pet as first listed, when the target held it before the run created anything. */
  existing?: JsonValue
}

/** The name of one fact. */
export type Fact = keyof Facts

/** Facts with the needed ones present. */
export type With<N extends Fact> = Facts & { [K in N]-?: Exclude<Facts[K], undefined> }

/** What an exchange check judges: an answered exchange and the facts known about it. */
export interface ExchangeInput<N extends Fact = never> {
  exchange: Exchange
  response: RecordedResponse
  /** The operation the request called; set for every check but those declared on `any`. */
  operationId: OperationId
  facts: With<N>
}

/** Where a check applies, by operation: one, a list, every documented one (`all`), or every request (`any`). */
export type OnOperation = OperationId | readonly OperationId[] | 'all' | 'any'

/** The kinds of credential a request carries, as checks tell them apart. */
export type CredentialKind = 'valid' | 'invalid' | 'scheme-case'

/** The operations an `on` names: a list, or `all` / `any`. */
export function operationsOn(operation: OnOperation): readonly OperationId[] | 'all' | 'any' {
  return operation === 'all' || operation === 'any'
    ? operation
    : typeof operation === 'string'
      ? [operation]
      : operation
}

/** Whether an `on` covers a request's operation (undefined: a request that calls no documented operation). */
export function onOperation(operation: OnOperation, operationId: OperationId | undefined): boolean {
  const ops = operationsOn(operation)
  if (ops === 'any') return true
  if (operationId === undefined) return false
  return ops === 'all' || ops.includes(operationId)
}

/** The operation a check's result is listed under: its one operation, else `all`. */
export function listedOperation(operation: OnOperation): OperationId | 'all' {
  const ops = operationsOn(operation)
  return ops !== 'all' && ops !== 'any' && ops.length === 1 ? ops[0]! : 'all'
}

/** What a check says when the exchange lacks what it judges: it is not judged there, for this reason (never a pass). */
export interface NotJudged {
  readonly notJudged: string
}

/** A check's answer on one exchange: its messages (`[]`: the property holds), or why it could not judge it. */
export type Judgement = string[] | NotJudged

/** Says that the exchange lacks the premise of the check, and why: the check is not judged on it. */
export function notJudged(reason: string): NotJudged {
  return { notJudged: reason }
}

/** True when a check's answer is {@link notJudged}. */
export function isNotJudged(judgement: Judgement | undefined): judgement is NotJudged {
  return judgement !== undefined && !Array.isArray(judgement)
}

/**
 * A part of a check's declaration that the spec decides, written as a function of the spec the check judges (never
 * of the spec in use): `title: (spec) => ...`. A part the spec does not decide is written as it is.
 */
export type BySpec<T> = T | ((spec: Spec) => T)

/** The part for this spec: the value itself, or what the function makes of the spec. */
export function bySpec<T>(part: BySpec<T>, spec: Spec): T {
  return typeof part === 'function' ? (part as (spec: Spec) => T)(spec) : part
}

/** A check as declared (`'declared'`: parts may be {@link BySpec}) or resolved for one spec (plain values). */
export type Stage = 'declared' | 'resolved'

/** A part of a check at a stage. */
type Part<T, S extends Stage> = S extends 'declared' ? BySpec<T> : T

/** Which exchanges a check applies to. */
export interface Applies<N extends Fact, S extends Stage = 'resolved'> {
  /**
   * The operation, or the list of operations, `all` for every documented operation, or `any` for every exchange,
   * the requests that call no documented operation too (other methods, path variants); for those, `operationId` is
   * not set.
   */
  operation: OnOperation
  /** Response statuses it judges; omitted: every answered exchange. */
  statuses?: Part<readonly number[], S>
  /** Facts it needs: it applies only where all are known. */
  needs?: readonly N[]
  /**
   * `valid`: only requests with the real key; `invalid`: only requests without a valid credential; `scheme-case`:
   * only requests with the real key under the scheme written in another letter case.
   */
  credential?: CredentialKind
  /** A finer condition, read after the others hold. */
  when?: (input: ExchangeInput<N>, spec: Spec) => boolean
}

/**
 * A check's severity and what documents the behaviour it judges: a `fail` check names its basis (spec pointers or
 * RFC sections), so a check with none cannot fail a target; observed and advice checks may name one.
 */
export type Judging<S extends Stage = 'resolved'> =
  | { severity: Extract<Severity, 'fail'>; basis: Part<Basis, S> }
  | { severity: Exclude<Severity, 'fail'>; basis?: Part<Basis, S> }

interface ExchangeShape<Id extends string, N extends Fact, S extends Stage> {
  id: Id
  title: Part<string, S>
  scope: 'exchange'
  on: Applies<N, S>
  /**
   * Why the judged spec, or the run's operations (every one, or those selected with `--operation`), leave this check
   * nothing to judge, if they do (a revision that requires the property whose absence it observes): unless an
   * exchange judged it after all, it is then skipped for that reason.
   */
  inapplicable?: (spec: Spec, operations: readonly OperationId[]) => string | undefined
  /** For observed checks: what an observation is about; the request line by default. */
  subject?: (input: ExchangeInput<N>, spec: Spec) => string
  /** Messages (`[]`: the property holds), or {@link notJudged} when the exchange lacks what the check judges. */
  run: (input: ExchangeInput<N>, spec: Spec) => Judgement
}

/** A check judged on every exchange it applies to. */
export type ExchangeCheck<Id extends string = string, N extends Fact = Fact> = ExchangeShape<Id, N, 'resolved'> &
  Judging

/** An exchange check as declared. */
export type ExchangeDeclaration<Id extends string = string, N extends Fact = Fact> = ExchangeShape<Id, N, 'declared'> &
  Judging<'declared'>

interface TransportShape<Id extends string, S extends Stage> {
  id: Id
  title: Part<string, S>
  scope: 'transport'
  on: { operation: 'any' }
  run: (exchange: Exchange) => string[]
  /**
   * What was observed instead of a verdict, for an exchange the check leaves open because HTTP leaves the
   * target's conduct there to it; `run` finds nothing in such an exchange.
   */
  observedInstead?: (exchange: Exchange) => string | undefined
}

/** A check judged on every exchange, answered or not (the transport's own verdict). */
export type TransportCheck<Id extends string = string> = TransportShape<Id, 'resolved'> & Judging

/** A transport check as declared. */
export type TransportDeclaration<Id extends string = string> = TransportShape<Id, 'declared'> & Judging<'declared'>

/** What the run as a whole shows, computed once by the engine at its end. */
export interface RunInput {
  /** Which documented statuses the run provoked. */
  coverage: readonly StatusCoverage[]
  /** Ids (decimal text) of the pets the run created one at a time, in creation order. */
  idsInOrder: readonly string[]
}

interface RunShape<Id extends string, S extends Stage> {
  id: Id
  title: Part<string, S>
  scope: 'run'
  /**
   * Its operations, and which scenarios feed it: those that call every one of them (every one selected, for `all`),
   * with each credential kind listed, stating each fact listed, and, with `oneAtATime`, creating one pet at a time.
   */
  on: {
    operation: OperationId | 'all'
    credentials?: readonly CredentialKind[]
    states?: readonly Fact[]
    oneAtATime?: true
  }
  /** What its observation is about, for observed checks. */
  subject?: string
  /** False when the run gives it nothing to judge. */
  applies: (input: RunInput) => boolean
  run: (input: RunInput, spec: Spec) => string[]
}

/** A check judged once, on the run as a whole. */
export type RunCheck<Id extends string = string> = RunShape<Id, 'resolved'> & Judging

/** A run-level check as declared. */
export type RunDeclaration<Id extends string = string> = RunShape<Id, 'declared'> & Judging<'declared'>

/**
 * One entry of the catalogue, resolved for the spec it judges (over every fact: a check that needs fewer is handed
 * all, so each one fits).
 */
export type Check = ExchangeCheck | TransportCheck | RunCheck

/** A check as its file declares it; a resolved {@link Check} is one too. */
export type Declaration = ExchangeDeclaration | TransportDeclaration | RunDeclaration

/** The check a declaration resolves to, keeping its id's literal type and the facts it needs. */
export type Resolved<D> =
  D extends ExchangeDeclaration<infer Id, infer N>
    ? ExchangeCheck<Id, N>
    : D extends TransportDeclaration<infer Id>
      ? TransportCheck<Id>
      : D extends RunDeclaration<infer Id>
        ? RunCheck<Id>
        : never

/** Declares an exchange check, keeping its id's literal type and typing `facts` by what it needs. */
export function exchangeCheck<const Id extends string, const N extends Fact = never>(
  check: Omit<ExchangeShape<Id, N, 'declared'>, 'scope'> & Judging<'declared'>,
): ExchangeDeclaration<Id, N> {
  return { scope: 'exchange', ...check }
}

/** Declares a transport check. */
export function transportCheck<const Id extends string>(
  check: Omit<TransportShape<Id, 'declared'>, 'scope' | 'on'> & Judging<'declared'>,
): TransportDeclaration<Id> {
  return { scope: 'transport', on: { operation: 'any' }, ...check }
}

/** Declares a run-level check. */
export function runCheck<const Id extends string>(
  check: Omit<RunShape<Id, 'declared'>, 'scope'> & Judging<'declared'>,
): RunDeclaration<Id> {
  return { scope: 'run', ...check }
}

/** A check resolved for the spec it judges: its title, basis and statuses as that spec decides them. */
export function resolveCheck<D extends Declaration>(check: D, spec: Spec): Resolved<D> {
  const title = bySpec(check.title, spec)
  const basis = check.basis === undefined ? {} : { basis: bySpec(check.basis, spec) }
  const statuses = check.scope === 'exchange' ? check.on.statuses : undefined
  const on = statuses === undefined ? check.on : { ...check.on, statuses: bySpec(statuses, spec) }
  return { ...check, title, ...basis, on } as Resolved<D>
}

/** Whether a credential is one the interface accepts (`bearer` in lower case is the target's choice, not invalid). */
export function credentialKind(credential: Credential): CredentialKind {
  if (credential === 'key') return 'valid'
  if (credential === 'lowercase-scheme' || credential === 'uppercase-scheme') return 'scheme-case'
  return 'invalid'
}
