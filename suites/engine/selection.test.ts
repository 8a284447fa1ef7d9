/**
 * The one selection rule: for every `--operation` value, every `--check` id and no filter, the catalogue a run
 * reports is exactly the set of checks its judges judge (or say why they could not). One run against the stub is
 * recorded; each selection then runs the scenarios it wants over that record, through the real judge.
 */
import { describe, expect, it } from 'vitest'
import type { RunInput } from '../checks/check.js'
import type { CheckId } from '../checks/index.js'
import type { Exchange } from '../../model/index.js'
import { spec as specInUse, type OperationId } from '../../spec/index.js'
import { createStub } from '../../stub/index.js'
import { CHECKS, runAll, transportFor } from '../index.js'
import { SCENARIOS } from '../scenarios/index.js'
import type { Fact, Facts } from '../checks/check.js'
import { recordAllowances, type Area, type RunConfig } from './config.js'
import { Judge } from './judge.js'
import { Recorder } from './recorder.js'
import { Run, RUN_LEVEL } from './run.js'
import { catalogue, selectedChecks, Selection, type Choice } from './selection.js'

const KEY = 'selection-test-key-61b3'

/** What a judge was told, in order, to be told again to another selection's judge. */
type Told = (judge: Judge, selection: Selection) => void

/** A judge that keeps what it is told on a tape, by scenario. */
class Taping extends Judge {
  constructor(
    run: Run,
    readonly tape: Told[],
  ) {
    super(run.selection, run.spec, run.redactor)
  }
  override exchange(exchange: Exchange, facts: Facts): void {
    this.tape.push((judge) => judge.exchange(exchange, facts))
    super.exchange(exchange, facts)
  }
  override learned(exchange: Exchange, facts: Facts, added: readonly Fact[]): void {
    this.tape.push((judge) => judge.learned(exchange, facts, added))
    super.learned(exchange, facts, added)
  }
  override premiseMissing(ids: readonly CheckId[], reason: string): void {
    this.tape.push((judge) => judge.premiseMissing(ids, reason))
    super.premiseMissing(ids, reason)
  }
  override wholeRun(input: RunInput, stopped: boolean): void {
    // The coverage a selection's run computes: the documented statuses of its operations.
    this.tape.push((judge, selection) =>
      judge.wholeRun(
        { ...input, coverage: input.coverage.filter((c) => selection.operations.includes(c.operationId)) },
        stopped,
      ),
    )
    super.wholeRun(input, stopped)
  }
}

/** A run whose scenarios' judges keep a tape each (a property's runs share their scenario's). */
class Taped extends Run {
  readonly tapes = new Map<string, Told[]>()
  override recorder(scenario: string, area: Area): Recorder {
    const tape = this.tapes.get(scenario) ?? []
    this.tapes.set(scenario, tape)
    return new Recorder({ name: scenario, area }, new Taping(this, tape), this.factsOf)
  }
}

/** The checks a selection's run judges: those its judges name, over the scenarios it runs and the run as a whole. */
function judged(taped: Taped, choice: Choice): string[] {
  const selection = new Selection(choice, taped.spec)
  const names = [...SCENARIOS.filter((s) => selection.wants(s)).map((s) => s.name), RUN_LEVEL]
  const ids = names.flatMap((name) => {
    const judge = new Judge(selection, taped.spec, taped.redactor)
    for (const told of taped.tapes.get(name) ?? []) told(judge, selection)
    return judge.verdicts().checks.map((c) => c.id)
  })
  return [...new Set(ids)].sort()
}

const listed = (choice: Choice) =>
  catalogue({ ...choice, viaPrism: false }, specInUse())
    .map((entry) => entry.id)
    .sort()

describe('the selection', () => {
  it('lists in the catalogue exactly the checks the run judges, for every --operation, every --check and none', async () => {
    const spec = specInUse()
    const config: RunConfig = {
      baseUrl: 'http://selection.invalid/v1',
      apiKey: KEY,
      seed: 20301205,
      runs: 1,
      timeoutMs: 1000,
      concurrency: 8,
      checks: [],
      operations: [],
      strict: false,
      viaPrism: false,
      runId: 'selectiontest',
      allowances: recordAllowances(1),
    }
    const taped = new Taped(config, transportFor(config, createStub({ apiKeys: [KEY] }).fetch), spec)
    await runAll(taped)
    const operations = Object.keys(spec.operations) as OperationId[]
    const choices: Choice[] = [
      { checks: [], operations: [] },
      ...operations.map((op): Choice => ({ checks: [], operations: [op] })),
      ...CHECKS.map((c): Choice => ({ checks: [c.id], operations: [] })),
    ]
    const differences = choices.flatMap((choice) => {
      const [want, got] = [listed(choice), judged(taped, choice)]
      if (want.join() === got.join()) return []
      const name = choice.operations.length
        ? `--operation ${choice.operations}`
        : choice.checks.length
          ? `--check ${choice.checks}`
          : 'no filter'
      const missing = want.filter((id) => !got.includes(id))
      return [
        `${name}: listed, not judged [${missing}]; judged, not listed [${got.filter((id) => !want.includes(id))}]`,
      ]
    })
    expect(differences).toEqual([])
    // Not a vacuous agreement: the whole catalogue without a filter, a strict part of it for each operation.
    expect(listed(choices[0]!)).toEqual(CHECKS.map((c) => c.id).sort())
    for (const op of operations)
      expect(selectedChecks({ checks: [], operations: [op] }, specInUse()).length).toBeLessThan(CHECKS.length)
  }, 30_000)
})
