/**
 * Which checks a run judges, and where: the one rule behind `--check` and `--operation`. The catalogue the command
 * and the library report, the checks the judge dispatches and the scenarios the run sends all read it from here, so
 * a check is listed exactly when the run judges it (or says why it could not).
 */
import type { CatalogueEntry } from '../../model/index.js'
import { renderBasis, type OperationId, type Spec } from '../../spec/index.js'
import {
  bySpec,
  listedOperation,
  onOperation,
  operationsOn,
  type Check,
  type CredentialKind,
  type Fact,
} from '../checks/check.js'
import { catalogueFor, CHECKS } from '../checks/index.js'
import { PRISM_CHECKS } from '../prism/violations.js'

/** What a run is asked to judge: check ids (a group already expanded) and operations; empty lists select all. */
export interface Choice {
  readonly checks: readonly string[]
  readonly operations: readonly OperationId[]
}

/**
 * The checks a run judges, in the table's order: each chosen one (every one when none is), and of those, when
 * operations are chosen, each that applies to one of them (`all` and `any` apply to every operation).
 */
export function selectedChecks(choice: Choice, spec: Spec): readonly Check[] {
  return catalogueFor(spec).filter(
    (check) =>
      (!choice.checks.length || choice.checks.includes(check.id)) &&
      (!choice.operations.length || choice.operations.some((op) => onOperation(check.on.operation, op))),
  )
}

/** A run's selection: its checks, the operations it judges, and where each check is judged. */
export class Selection {
  /** The selected checks, in the table's order. */
  readonly checks: readonly Check[]
  /** The operations the run judges: those chosen, else every one the spec documents, in the spec's order. */
  readonly operations: readonly OperationId[]
  readonly #chosen: readonly OperationId[]
  readonly #ids: ReadonlySet<string>

  constructor(choice: Choice, spec: Spec) {
    this.checks = selectedChecks(choice, spec)
    this.#ids = new Set(this.checks.map((check) => check.id))
    this.#chosen = choice.operations
    this.operations = (Object.keys(spec.operations) as OperationId[]).filter(
      (op) => !choice.operations.length || choice.operations.includes(op),
    )
  }

  /** The selected checks of one scope. */
  of<S extends Check['scope']>(scope: S): Extract<Check, { scope: S }>[] {
    return this.checks.filter((c): c is Extract<Check, { scope: S }> => c.scope === scope)
  }

  /** Whether a check is selected at all. */
  has(check: Pick<Check, 'id'>): boolean {
    return this.#ids.has(check.id)
  }

  /**
   * Whether a selected check is judged on an exchange of this operation (undefined: the run as a whole, or a request
   * that calls no documented operation). Under `--operation`, a check on every operation judges only the chosen
   * ones' exchanges; a check naming its operations judges each of them.
   */
  judgesOn(check: Check, operationId: OperationId | undefined): boolean {
    if (!this.has(check)) return false
    if (!this.#chosen.length) return true
    const on = operationsOn(check.on.operation)
    if (typeof on === 'string') return operationId === undefined || this.#chosen.includes(operationId)
    return operationId === undefined ? on.some((op) => this.#chosen.includes(op)) : on.includes(operationId)
  }

  /** Whether a scenario sends what a selected check needs: it runs only then. */
  wants(scenario: Sends): boolean {
    return needed(scenario, this.checks, this.operations)
  }
}

/**
 * The selected checks as reports list them: each must be judged, or the run is incomplete. Through Prism, its checks
 * too, whatever the selection: Prism judges every answer it relays. Each carries its basis, in the words of `spec`.
 */
export function catalogue(choice: Choice & { readonly viaPrism: boolean }, spec: Spec): CatalogueEntry[] {
  const suite = selectedChecks(choice, spec).map((c): CatalogueEntry => ({
    id: c.id,
    title: c.title,
    operationId: listedOperation(c.on.operation),
    severity: c.severity,
    source: 'suite',
    ...(c.basis ? { basis: renderBasis(spec, c.basis) } : {}),
  }))
  const prism = PRISM_CHECKS.map(({ id, title, basis }): CatalogueEntry => ({
    id,
    title,
    operationId: 'all',
    severity: 'fail',
    source: 'prism',
    ...(basis ? { basis: renderBasis(spec, bySpec(basis, spec)) } : {}),
  }))
  return choice.viaPrism ? [...suite, ...prism] : suite
}

/** How many checks the whole catalogue holds (Prism's too, through Prism): what a subset is counted against. */
export function catalogueSize(viaPrism: boolean): number {
  return CHECKS.length + (viaPrism ? PRISM_CHECKS.length : 0)
}

/**
 * What a scenario declares it sends: the operations it exercises and those it only uses, the facts it states, the
 * kinds of credential it sends, and whether its creates go one at a time.
 */
export interface Sends {
  operations: readonly OperationId[]
  uses?: readonly OperationId[]
  states?: readonly Fact[]
  credentials?: readonly CredentialKind[]
  oneAtATime?: true
}

/**
 * Facts the engine derives (from the request and what the run has seen), and the operations a scenario calls for
 * it to have them: `expected` (the pet a getPet should return) is known for pets the run created, `existing` for
 * pets a listing showed before the run created them.
 */
const DERIVED: Partial<Record<Fact, readonly OperationId[]>> = {
  limit: ['listPets'],
  status: ['listPets'],
  outOfRange: ['listPets'],
  atLeast: ['listPets'],
  created: ['listPets', 'createPet'],
  takenIds: ['createPet'],
  expected: ['createPet', 'getPet'],
  existing: ['listPets', 'getPet'],
}

/**
 * Whether a scenario can feed a check, read from the check's `on` and what the scenario declares it sends, within
 * the selected operations. A check of one exchange: the scenario exercises one of its operations (any, for `all`
 * and `any`), with its kind of credential, and its needed facts are stated by the scenario or derived by the
 * engine from the operations it calls. A check of the run as a whole: the scenario calls every one of its
 * operations (every selected one, for `all`), with every credential kind and fact it lists, one create at a time
 * if it says so. Operations a scenario only uses (to set up, or to look) select it for no check of theirs.
 */
export function feeds(scenario: Sends, check: Check, selected: readonly OperationId[]): boolean {
  const ops = scenario.operations.filter((op) => selected.includes(op))
  if (!ops.length) return false
  if (check.scope === 'transport') return true
  const calls = [...scenario.operations, ...(scenario.uses ?? [])]
  const credentials = scenario.credentials ?? ['valid']
  const derived = (Object.keys(DERIVED) as Fact[]).filter((fact) => DERIVED[fact]!.every((op) => calls.includes(op)))
  const states = new Set<Fact>([...(scenario.states ?? []), ...derived])
  if (check.scope === 'run') {
    const { on } = check
    const wanted = on.operation === 'all' ? selected : [on.operation]
    return (
      wanted.every((op) => calls.includes(op)) &&
      (on.credentials ?? []).every((c) => credentials.includes(c)) &&
      (on.states ?? []).every((fact) => states.has(fact)) &&
      (!on.oneAtATime || scenario.oneAtATime === true)
    )
  }
  const { on } = check
  return (
    ops.some((op) => onOperation(on.operation, op)) &&
    (!on.credential || credentials.includes(on.credential)) &&
    (on.needs ?? []).every((fact: Fact) => states.has(fact))
  )
}

/** Whether a selection (its checks, its operations) needs a scenario: one of the checks is fed by it. */
export function needed(scenario: Sends, checks: readonly Check[], operations: readonly OperationId[]): boolean {
  return checks.some((check) => feeds(scenario, check, operations))
}
