import type { OperationId, Spec } from '../spec/index.js'
import type { CheckResult, Observation, Outcome, RunResult, Severity, StatusCoverage, TestRecord } from '../suites/model.js'
import { scrubCheck, scrubText, scrubUrl } from './redact.js'

/** The state of one finished vitest test case. */
export type CaseState = 'passed' | 'failed' | 'skipped' | 'pending'

/** One vitest test case as the reporter sees it: plain data, so the builder needs no vitest. */
export interface CaseResult {
  /** Test file, relative to the project root. */
  module: string
  /** The test's own name, e.g. `list-within-limit`. */
  name: string
  /** Suite names and the test name, joined with ` > `. */
  fullName: string
  state: CaseState
  /** Messages of the errors the test threw, colour codes removed. */
  errors: string[]
  /** What the test recorded in `task.meta.conformance`, if it got that far. */
  record?: TestRecord
}

/** Facts about the run that the command passes to the reporter (never the API key). */
export type RunOptions = Pick<RunResult, 'tool' | 'target' | 'runId' | 'seed' | 'runs' | 'recordBudget' | 'viaPrism' | 'strict'> & {
  /** Notices the command wants said up front, e.g. about its own configuration. */
  notices?: string[]
}

/** Everything about the run besides its test cases. */
export interface RunFacts {
  options: RunOptions
  startedAt: string
  durationMs: number
  /** Errors outside any test case: files that failed to load, unhandled errors. */
  runErrors: string[]
  /** True when the run stopped before every test finished. */
  interrupted: boolean
}

/** The bucket of the totals a check falls in; also how writers label it. */
export type Standing = 'passed' | 'failed' | 'warned' | 'skipped' | 'errors'


/** Id of the result that stands for errors outside any test case. */
export const RUN_ERROR_ID = 'run-error'

const OUTCOME_RANK: Record<Outcome, number> = { skipped: 0, passed: 1, failed: 2, error: 3 }

/** Plain code-unit comparison: the same order on every machine, unlike `localeCompare`. */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Where a check or observation of an operation sorts: the spec's order, cross-cutting ones last. */
export function operationRank(spec: Spec, operationId: string | undefined): number {
  const index = Object.keys(spec.operations).indexOf(operationId ?? '')
  return index === -1 ? Number.MAX_SAFE_INTEGER : index
}

/** How a check counts: advice that failed only warns unless the run is strict; observed remarks never fail. */
export function standing(check: Pick<CheckResult, 'outcome' | 'severity'>, strict: boolean): Standing {
  if (check.outcome === 'error') return 'errors'
  if (check.outcome === 'skipped') return 'skipped'
  if (check.outcome === 'passed') return 'passed'
  if (check.severity === 'fail' || (check.severity === 'advice' && strict)) return 'failed'
  return 'warned'
}

/** True when the check makes the run non-conformant. */
export function breaksConformance(check: Pick<CheckResult, 'outcome' | 'severity'>, strict: boolean): boolean {
  return standing(check, strict) === 'failed' || (check.outcome === 'error' && check.severity === 'fail')
}

/** Merges results of the same check from several test cases: worst outcome, all findings, summed counts. */
export function mergeChecks(checks: readonly CheckResult[]): CheckResult[] {
  const byId = new Map<string, CheckResult>()
  for (const check of checks) {
    const seen = byId.get(check.id)
    if (!seen) {
      byId.set(check.id, inModelOrder(check))
      continue
    }
    byId.set(check.id, {
      ...seen,
      // The same check judged on several operations covers them all.
      operationId: seen.operationId === check.operationId ? seen.operationId : 'all',
      outcome: OUTCOME_RANK[check.outcome] > OUTCOME_RANK[seen.outcome] ? check.outcome : seen.outcome,
      findings: [...seen.findings, ...check.findings],
      exchanges: seen.exchanges + check.exchanges,
      durationMs: seen.durationMs + check.durationMs,
    })
  }
  return [...byId.values()]
}

// The JSON report lists a check's fields in the model's order, whatever order the test wrote them in.
const inModelOrder = (c: CheckResult): CheckResult => ({
  id: c.id,
  title: c.title,
  operationId: c.operationId,
  severity: c.severity,
  source: c.source,
  outcome: c.outcome,
  findings: [...c.findings],
  exchanges: c.exchanges,
  durationMs: c.durationMs,
})

/** Observations without repeats, in a stable order. */
export function uniqueObservations(spec: Spec, observations: readonly Observation[]): Observation[] {
  const byKey = new Map<string, Observation>()
  for (const o of observations) {
    const clean: Observation = { ...o, subject: scrubText(o.subject), behaviour: scrubText(o.behaviour) }
    byKey.set([clean.id, clean.operationId ?? '', clean.subject, clean.behaviour].join('\u0000'), clean)
  }
  return [...byKey.values()].sort(
    (a, b) =>
      operationRank(spec, a.operationId) - operationRank(spec, b.operationId) ||
      compareText(a.id, b.id) ||
      compareText(a.subject, b.subject) ||
      compareText(a.behaviour, b.behaviour),
  )
}

/** Which documented statuses of which operations the run provoked. */
export function coverageOf(spec: Spec, statusesSeen: ReadonlySet<string>): StatusCoverage[] {
  return (Object.keys(spec.operations) as OperationId[]).flatMap((operationId) =>
    spec.statuses(operationId).map((status) => ({
      operationId,
      status,
      seen: statusesSeen.has(`${operationId} ${status}`),
      provokable: !spec.operation(operationId).silentStatuses.includes(status), // a clamping target never gives listPets 400
    })),
  )
}

/** The operation a test name mentions, for results that carry none. */
function operationNamedIn(spec: Spec, text: string): OperationId | 'all' {
  const words = new Set(text.split(/[^A-Za-z0-9]+/))
  return (Object.keys(spec.operations) as OperationId[]).find((op) => words.has(op)) ?? 'all'
}

/** An `error` result for what went wrong outside the checks: a test that threw, a file that did not load. */
function errorResult(id: string, title: string, operationId: OperationId | 'all', messages: readonly string[]): CheckResult {
  const severity: Severity = 'fail' // unknown ground was not covered: the run cannot be called conformant
  return {
    id,
    title,
    operationId,
    severity,
    source: 'suite',
    outcome: 'error',
    findings: messages.map((message) => ({
      checkId: id,
      ...(operationId === 'all' ? {} : { operationId }),
      severity,
      source: 'suite' as const,
      message: scrubText(message),
    })),
    exchanges: 0,
    durationMs: 0,
  }
}

/** The checks one test case contributes: its record, plus an error result when it failed for another reason. */
function checksOfCase(spec: Spec, testCase: CaseResult, strict: boolean): CheckResult[] {
  const recorded = (testCase.record?.checks ?? []).map((check) => withErrorMessages(check, testCase.errors))
  if (testCase.state !== 'failed') return recorded
  const explained = recorded.some((check) => breaksConformance(check, strict) || check.outcome === 'error')
  if (explained) return recorded
  const messages = testCase.errors.length ? testCase.errors : ['the test failed without an error message']
  const title = testCase.record
    ? `Test "${testCase.fullName}" failed beyond what its checks recorded`
    : `Test "${testCase.fullName}" failed before recording any result`
  return [...recorded, errorResult(testCase.name, title, operationNamedIn(spec, testCase.fullName), messages)]
}

// A check that broke may carry no finding; the test's own error then says what happened, so no error is silent.
function withErrorMessages(check: CheckResult, errors: readonly string[]): CheckResult {
  if (check.outcome !== 'error' || check.findings.length) return check
  const mentioning = errors.filter((e) => e.includes(check.id))
  const messages = mentioning.length ? mentioning : errors.length ? errors : ['the check failed without a message']
  const finding = (message: string) => ({
    checkId: check.id,
    ...(check.operationId === 'all' ? {} : { operationId: check.operationId }),
    severity: check.severity,
    source: check.source,
    message,
  })
  return { ...check, findings: messages.map(finding) }
}

function noticesOf(run: Omit<RunResult, 'notices'>, facts: RunFacts, statusesSeen: ReadonlySet<string>): string[] {
  const notices = [...(facts.options.notices ?? [])]
  const statuses = new Set([...statusesSeen].map((pair) => pair.split(' ')[1]))
  const failing = run.totals.failed + run.totals.errors > 0
  if (facts.interrupted) notices.push('The run was interrupted before every check finished: the results are partial.')
  if (failing && statuses.size === 1 && statuses.has('401')) {
    notices.push('Every response was 401 Unauthorized: the target refused the API key. Check --api-key (or PETSTORE_API_KEY).')
  }
  if (failing && statuses.size > 0 && [...statuses].every((s) => s === '404' || s === '405')) {
    notices.push('Every response was 404 or 405: check that the base URL ends with the version prefix /v1.')
  }
  if (run.recordsCreated > run.recordBudget) {
    notices.push(`The run created ${run.recordsCreated} records, more than its budget of ${run.recordBudget}.`)
  }
  if (run.checks.length === 0) notices.push('No check ran: the selection matched no test.')
  return notices.map(scrubText)
}

/** Builds the one result model of a run from its finished test cases. Pure: same input, same bytes. */
export function buildRunResult(spec: Spec, cases: readonly CaseResult[], facts: RunFacts): RunResult {
  const { options } = facts
  const ordered = [...cases].sort((a, b) => compareText(a.module, b.module)) // stable: tests keep file order
  const records = ordered.flatMap((c) => (c.record ? [c.record] : []))
  const runErrors = facts.runErrors.length
    ? [errorResult(RUN_ERROR_ID, 'The run itself completed without errors', 'all', facts.runErrors)]
    : []
  const checks = mergeChecks([...ordered.flatMap((c) => checksOfCase(spec, c, options.strict)), ...runErrors])
    .map(scrubCheck)
    .sort((a, b) => operationRank(spec, a.operationId) - operationRank(spec, b.operationId) || compareText(a.id, b.id))
  const statusesSeen = new Set(records.flatMap((r) => r.statusesSeen))
  const totals = { checks: checks.length, passed: 0, failed: 0, warned: 0, skipped: 0, errors: 0 }
  for (const check of checks) totals[standing(check, options.strict)] += 1
  const run: Omit<RunResult, 'notices'> = {
    tool: { name: options.tool.name, version: options.tool.version },
    target: { baseUrl: scrubUrl(options.target.baseUrl), embedded: options.target.embedded },
    runId: options.runId,
    seed: options.seed,
    runs: options.runs,
    startedAt: facts.startedAt,
    durationMs: Math.round(facts.durationMs),
    specVersion: spec.version,
    recordsCreated: sum(records.map((r) => r.recordsCreated)),
    recordBudget: options.recordBudget,
    requestsSent: sum(records.map((r) => r.requestsSent)),
    viaPrism: options.viaPrism,
    strict: options.strict,
    verdict: checks.some((c) => breaksConformance(c, options.strict)) || facts.interrupted ? 'non-conformant' : 'conformant',
    totals,
    checks,
    observations: uniqueObservations(spec, records.flatMap((r) => r.observations)),
    coverage: coverageOf(spec, statusesSeen),
  }
  return { ...run, notices: noticesOf(run, facts, statusesSeen) }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0)
