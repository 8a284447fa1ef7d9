/** Builders of result-model values for the reporters' tests. */
import type { CheckResult } from '../../suites/model.js'

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
  durationMs: 1,
  ...over,
})
