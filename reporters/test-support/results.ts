/** Builders of result-model values, and the sample run of fixtures/reports, for the reporters' tests. */
import { readFileSync } from 'node:fs'
import {
  Redactor,
  buildRunResult,
  type CheckResult,
  type RunFacts,
  type RunResult,
  type ScenarioRecord,
} from '../../model/index.js'

/** A passing fail-severity listPets check named `id`, with `over` applied. */
export const check = (id: string, over: Partial<CheckResult> = {}): CheckResult => ({
  id,
  title: `${id} holds`,
  operationId: 'listPets',
  severity: 'fail',
  source: 'suite',
  outcome: 'passed',
  findings: [],
  exchanges: 1,
  ...over,
})

/** The sample of fixtures/reports/sample-run.json: records of a made-up run against a hostile, faulty target. */
export interface Sample {
  /** The API key the target echoes everywhere; no output may hold it. */
  secret: string
  facts: RunFacts
  records: ScenarioRecord[]
}

/** The sample, read fresh (tests may change their copy). */
export function sample(): Sample {
  return JSON.parse(readFileSync(new URL('../../fixtures/reports/sample-run.json', import.meta.url), 'utf8')) as Sample
}

/** The redactor the command would build for the sample's key. */
export const sampleRedactor = (): Redactor => new Redactor([sample().secret])

/** The sample run's result: non-conformant, with warnings, checks not applicable, a run error and cut evidence. */
export function sampleRun(over: Partial<RunFacts> = {}): RunResult {
  const { facts, records } = sample()
  return buildRunResult(records, { ...facts, ...over }, sampleRedactor())
}

/** A run that stopped at --max-time after a few scenarios: incomplete, with checks not judged. */
export function incompleteRun(): RunResult {
  const { facts, records } = sample()
  const kept = records.filter(
    (r) => r.scenario.startsWith('listPets: limit') || r.scenario.startsWith('getPet') || r.coverage,
  )
  return buildRunResult(kept, { ...facts, runErrors: [], stopped: '--max-time 30 s reached' }, sampleRedactor())
}

/** The run with its one clock value blanked, as golden files hold it. */
export const blanked = (run: RunResult): RunResult => ({ ...run, startedAt: '' })
