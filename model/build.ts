/**
 * One run's result from what its scenarios recorded: merged, bounded and redacted, and judged only through
 * `verdict.ts`. The vitest reporter calls it with the records of every test case, an in-process runner with the
 * records it collected. Pure and byte-stable: the same records in any order give the same result.
 */
import { LIMITS, boundExchange, boundText, cutText } from './bound.js'
import { type Redactor, withoutUserinfo } from './redact.js'
import type {
  BasisLine,
  CannotRun,
  Throttling,
  Replayable,
  CatalogueEntry,
  CheckResult,
  Finding,
  Observation,
  Outcome,
  RunResult,
  ScenarioRecord,
  Severity,
  Source,
  StatusCoverage,
} from './result.js'
import { leavesUnjudged, standing, verdictOf, verdictText } from './verdict.js'

/** Everything about a run besides its scenarios' records: from the command, and from whoever ran the scenarios. */
export interface RunFacts {
  tool: { name: string; version: string }
  /** The target as reports show it (never the key). */
  target: { baseUrl: string; embedded: boolean }
  runId: string
  seed: number
  runs: number
  recordBudget: number
  viaPrism: boolean
  strict: boolean
  specVersion: string
  /** The spec's operations in document order: checks and observations sort by it, cross-cutting ones last. */
  operationOrder: readonly string[]
  /** Said up front, e.g. about the command's own configuration. */
  notices: readonly string[]
  /** ISO 8601. */
  startedAt: string
  durationMs: number
  /** Every check the run selected, so a check no record mentions is known (and left unjudged, never passed). */
  catalogue: readonly CatalogueEntry[]
  /** Errors outside any scenario: a file that did not load, an unhandled error, a scenario that did not finish. */
  runErrors: readonly string[]
  /** Why the run ended early, e.g. `--max-time 30 s reached` or `the target stopped answering`. */
  stopped?: string
  /** How many checks the whole catalogue holds; a run that selected fewer says it judged a subset. */
  catalogueSize?: number
  /** Rate limiting met outside the scenarios (the preflight's requests), added to theirs. */
  throttling?: Throttling
  /** Set when the run could not be done at all (exit 2 before any check): why, what was tried, what to do. */
  cannotRun?: CannotRun
}

/** Plain code-unit comparison: the same order on every machine, unlike `localeCompare`. */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

// Merging keeps a check's worst outcome; a failure outranks all, since what was found stands.
const OUTCOME_RANK: Record<Outcome, number> = { skipped: 0, passed: 1, unjudged: 2, error: 3, failed: 4 }

interface Merged {
  entry: CatalogueEntry
  outcome?: Outcome
  reason?: string
  findings: Finding[]
  messages: Set<string>
  exchanges: number
}

/** Builds the one result of a run. Every string is redacted, then bounded; nothing is judged outside `verdict.ts`. */
export function buildRunResult(records: readonly ScenarioRecord[], facts: RunFacts, redactor: Redactor): RunResult {
  const text = (value: unknown, max: number = LIMITS.text) => boundText(String(value ?? ''), max, redactor)
  const url = (value: unknown, max: number = LIMITS.url) =>
    boundText(String(value ?? ''), max, redactor, withoutUserinfo)
  // Stable: records of one scenario keep their order, so findings keep theirs.
  const ordered = [...records].filter(isRecord).sort((a, b) => compareText(String(a.scenario), String(b.scenario)))

  const merged = new Map<string, Merged>()
  for (const entry of facts.catalogue) merged.set(entry.id, { entry, findings: [], messages: new Set(), exchanges: 0 })
  for (const record of ordered) {
    for (const check of list<CheckResult>(record.checks)) mergeCheck(merged, check)
  }

  const stops = unique(ordered.flatMap((r) => (typeof r.stopped === 'string' && r.stopped ? [r.stopped] : [])))
  const cannotRun = facts.cannotRun ? boundCannotRun(facts.cannotRun, url) : undefined
  const stopped = cannotRun
    ? `could not run: ${cannotRun.reason}`
    : (facts.stopped ?? (stops.length ? stops.join('; ') : undefined))
  const runErrors = boundList(
    facts.runErrors.map((e) => url(e, LIMITS.message)),
    LIMITS.runErrors,
    'error',
  )
  const failingFail = [...merged.values()]
    .filter((m) => m.outcome === 'failed' && m.entry.severity === 'fail')
    .map((m) => m.entry.id)

  const rank = (operationId: string) => {
    const index = facts.operationOrder.indexOf(operationId)
    return index === -1 ? facts.operationOrder.length : index
  }
  const checks = [...merged.values()]
    .map((m) => resolved(m, { stopped, runErrors, failingFail: failingFail.sort(compareText) }))
    .map((check) => boundCheck(check, text, url, redactor))
    .sort((a, b) => rank(a.operationId) - rank(b.operationId) || compareText(a.id, b.id))

  const totals = { checks: checks.length, passed: 0, failed: 0, warned: 0, skipped: 0, unjudged: 0, errors: 0 }
  for (const check of checks) totals[standing(check, facts.strict)] += 1
  const stoppedLine = stopped === undefined ? undefined : text(stopped)
  const couldNotFinish =
    stoppedLine ?? (runErrors.length ? `${plural(runErrors.length, 'error')} outside any scenario` : undefined)
  const verdict = verdictOf(checks, facts.strict, couldNotFinish)

  const selection =
    facts.catalogueSize !== undefined && checks.length < facts.catalogueSize && !cannotRun
      ? { selected: checks.length, catalogue: facts.catalogueSize }
      : undefined
  return {
    tool: { name: text(facts.tool.name), version: text(facts.tool.version) },
    target: { baseUrl: url(facts.target.baseUrl), embedded: facts.target.embedded === true },
    runId: text(facts.runId),
    seed: facts.seed,
    runs: facts.runs,
    startedAt: text(facts.startedAt),
    durationMs: Math.max(0, Math.round(facts.durationMs)),
    specVersion: text(facts.specVersion),
    recordsCreated: sum(ordered.map((r) => r.recordsCreated)),
    recordBudget: facts.recordBudget,
    requestsSent: sum(ordered.map((r) => r.requestsSent)),
    viaPrism: facts.viaPrism === true,
    strict: facts.strict === true,
    verdict,
    verdictLine: verdictText({
      verdict,
      totals,
      ...(stoppedLine !== undefined ? { stopped: stoppedLine } : {}),
      ...(selection ? { selection } : {}),
      ...(cannotRun ? { cannotRun } : {}),
    }),
    ...(verdict === 'incomplete'
      ? {
          incomplete: cannotRun
            ? `incomplete: could not run: ${cannotRun.reason}`
            : incompleteLine(checks, stoppedLine, runErrors),
        }
      : {}),
    ...(stoppedLine !== undefined ? { stopped: stoppedLine } : {}),
    totals,
    checks,
    observations: observationsOf(ordered, text, rank),
    coverage: coverageOf(ordered),
    notices: unique(facts.notices.map((n) => url(n))),
    runErrors,
    throttling: throttlingOf(ordered, facts.throttling),
    ...(selection ? { selection } : {}),
    ...(cannotRun ? { cannotRun } : {}),
  }
}

const NO_THROTTLING: Throttling = { status429: 0, status503: 0, waitedMs: 0, longestWaitMs: 0 }

// Each record carries the transport's counts so far (the run's transport is shared): the largest of each is the run's.
function throttlingOf(records: readonly ScenarioRecord[], outside: Throttling | undefined): Throttling {
  const count = (value: unknown) => (Number.isFinite(Number(value)) ? Math.max(0, Math.round(Number(value))) : 0)
  const seen = records.map((r) => r.throttling).filter((t): t is Throttling => t !== null && typeof t === 'object')
  const most = (key: keyof Throttling) => Math.max(0, ...seen.map((t) => count(t[key])))
  const before = outside ?? NO_THROTTLING
  return {
    status429: most('status429') + count(before.status429),
    status503: most('status503') + count(before.status503),
    waitedMs: most('waitedMs') + count(before.waitedMs),
    longestWaitMs: Math.max(most('longestWaitMs'), count(before.longestWaitMs)),
  }
}

function boundCannotRun(cannot: CannotRun, url: Text): CannotRun {
  return {
    reason: url(cannot.reason, LIMITS.message),
    tried: list<string>(cannot.tried)
      .slice(0, 10)
      .map((line) => url(line, LIMITS.message)),
    advice: url(cannot.advice, LIMITS.message),
  }
}

/** A finding's identity when merging: what a report can show of its message (hashing megabytes would not be bounded). */
function keyOf(finding: Finding | undefined): string {
  const message = String(finding?.message ?? '')
  return message.length <= LIMITS.message ? message : `${message.length}\u0000${cutText(message, LIMITS.message)}`
}

function mergeCheck(merged: Map<string, Merged>, check: CheckResult): void {
  if (!check || typeof check.id !== 'string') return
  let into = merged.get(check.id)
  if (!into) {
    // A check outside the catalogue (Prism's, the kit's own errors): the record describes it.
    const entry: CatalogueEntry = {
      id: check.id,
      title: String(check.title ?? check.id),
      operationId: check.operationId ?? 'all',
      severity: check.severity ?? 'fail',
      source: check.source ?? 'suite',
      ...(Array.isArray(check.basis) ? { basis: check.basis } : {}),
    }
    merged.set(check.id, (into = { entry, findings: [], messages: new Set(), exchanges: 0 }))
  } else if (into.entry.basis === undefined && Array.isArray(check.basis)) {
    into.entry = { ...into.entry, basis: check.basis }
  }
  into.exchanges += Number(check.exchanges) || 0
  // `skipped` without a reason says only that the scenario knew the check, not that its premise was missing.
  const judged = check.outcome in OUTCOME_RANK && !(check.outcome === 'skipped' && !check.reason)
  if (judged) {
    if (into.outcome === undefined || OUTCOME_RANK[check.outcome] > OUTCOME_RANK[into.outcome]) {
      into.outcome = check.outcome
      into.reason = check.reason
    } else if (check.outcome === into.outcome && (into.reason === undefined || byExchange(into.reason))) {
      // A premise a scenario found missing says more than one exchange that lacked it.
      if (check.reason !== undefined && !byExchange(check.reason)) into.reason = check.reason
      else into.reason ??= check.reason
    }
  }
  for (const finding of list<Finding>(check.findings)) {
    const key = keyOf(finding)
    const shrunk = finding?.counterexample !== undefined
    if (into.messages.has(key)) {
      // The same failure found again by a property: its shrunk counterexample is the better evidence to keep.
      const plain = shrunk ? into.findings.findIndex((f) => f.counterexample === undefined && keyOf(f) === key) : -1
      if (plain !== -1) into.findings[plain] = finding
      continue
    }
    into.messages.add(key)
    if (into.findings.length < LIMITS.findingsPerCheck) into.findings.push(finding)
    else if (shrunk) {
      // Findings beyond the bound are only counted; a property's minimal case takes the place of a plain one.
      const plain = into.findings.findLastIndex((f) => f.counterexample === undefined)
      if (plain !== -1) {
        into.findings.splice(plain, 1)
        into.findings.push(finding)
      }
    }
  }
}

/** True for a reason a check gave on one exchange that lacked its premise (`not judged: GET /pets ...`). */
const byExchange = (reason: string): boolean => reason.startsWith('not judged: ')

interface Context {
  stopped: string | undefined
  runErrors: readonly string[]
  failingFail: readonly string[]
}

// A check no record judged: unjudged when the run stopped or a scenario broke; else not applicable when a
// fail-severity check failed (the target's answers removed its premise); else unjudged.
function resolved(m: Merged, context: Context): CheckResult & { messages: number } {
  let outcome = m.outcome
  let reason = m.reason
  if (outcome === undefined) {
    if (context.stopped !== undefined) {
      outcome = 'unjudged'
      reason = `not judged: ${context.stopped}`
    } else if (context.runErrors.length) {
      outcome = 'unjudged'
      reason = 'not judged: a scenario did not finish (see the errors outside any scenario)'
    } else if (context.failingFail.length) {
      outcome = 'skipped'
      reason = `not applicable: the target's answers removed its premise (failing: ${listed(context.failingFail, 3)})`
    } else {
      outcome = 'unjudged'
      reason = 'not judged: no scenario of this run judged it'
    }
  }
  return {
    ...m.entry,
    outcome,
    ...(reason !== undefined ? { reason } : {}),
    findings: m.findings,
    exchanges: m.exchanges,
    messages: m.messages.size,
  }
}

type Text = (value: unknown, max?: number) => string

function boundCheck(check: CheckResult & { messages: number }, text: Text, url: Text, redactor: Redactor): CheckResult {
  const findings = check.findings.map((f) => boundFinding(f, check, text, url, redactor))
  const leftOut = check.messages - findings.length
  return {
    id: text(check.id, 256),
    title: text(check.title),
    operationId: check.operationId,
    severity: check.severity,
    source: check.source,
    ...(check.basis?.length ? { basis: boundBasis(check.basis, text) } : {}),
    outcome: check.outcome,
    ...(check.reason !== undefined ? { reason: text(check.reason, LIMITS.message) } : {}),
    findings,
    ...(leftOut > 0 ? { findingsLeftOut: leftOut } : {}),
    exchanges: check.exchanges,
  }
}

function boundFinding(finding: Finding, check: CheckResult, text: Text, url: Text, redactor: Redactor): Finding {
  const operationId = finding.operationId
  const exchange = finding.exchange && typeof finding.exchange === 'object' ? finding.exchange : undefined
  const replay = boundReplay(finding.replay, text)
  return {
    checkId: text(finding.checkId ?? check.id, 256),
    ...(operationId ? { operationId } : {}),
    severity: (finding.severity ?? check.severity) as Severity,
    source: (finding.source ?? check.source) as Source,
    message: url(finding.message, LIMITS.message),
    ...(exchange ? { exchange: boundExchange(exchange, redactor) } : {}),
    ...(finding.curl !== undefined ? { curl: url(finding.curl, LIMITS.curl) } : {}),
    ...(finding.counterexample !== undefined
      ? { counterexample: text(finding.counterexample, LIMITS.counterexample) }
      : {}),
    ...(Number.isInteger(finding.seed) ? { seed: finding.seed } : {}),
    ...(finding.path !== undefined ? { path: text(finding.path) } : {}),
    ...(replay ? { replay } : {}),
  }
}

/** A basis as reports show it: a few lines, each bounded. */
function boundBasis(basis: readonly BasisLine[], text: Text): BasisLine[] {
  return list<BasisLine>(basis)
    .filter((line) => line && typeof line.ref === 'string' && typeof line.text === 'string')
    .slice(0, LIMITS.basisLines)
    .map((line) => ({
      ref: text(line.ref, 512),
      text: text(line.text, LIMITS.message),
      ...(typeof line.operationId === 'string' ? { operationId: line.operationId } : {}),
      ...(typeof line.status === 'string' ? { status: text(line.status, 16) } : {}),
    }))
}

/** What `--replay` needs, redacted; facts cut short would not parse, so facts too long are left out instead. */
function boundReplay(replay: Finding['replay'], text: Text): Finding['replay'] | undefined {
  if (!replay || typeof replay !== 'object' || typeof replay.credential !== 'string') return undefined
  const credential = text(replay.credential, 64) as Replayable['credential']
  const facts =
    typeof replay.facts === 'string' && replay.facts.length <= LIMITS.replayFacts
      ? text(replay.facts, Infinity)
      : undefined
  return { credential, ...(facts !== undefined ? { facts } : {}) }
}

function incompleteLine(
  checks: readonly CheckResult[],
  stopped: string | undefined,
  runErrors: readonly string[],
): string {
  const unjudged = checks.filter((c) => c.outcome === 'unjudged').map((c) => c.id)
  const broken = checks.filter((c) => leavesUnjudged(c) && c.outcome === 'error').map((c) => c.id)
  const parts = [
    ...(stopped !== undefined ? [stopped] : []),
    ...(runErrors.length ? [`${plural(runErrors.length, 'error')} outside any scenario`] : []),
    ...(unjudged.length ? [`${plural(unjudged.length, 'check')} not judged (${unjudged.join(', ')})`] : []),
    ...(broken.length ? [`${plural(broken.length, 'check')} could not run (${broken.join(', ')})`] : []),
  ]
  return `incomplete: ${parts.length ? parts.join('; ') : 'the run could not finish'}`
}

function observationsOf(
  records: readonly ScenarioRecord[],
  text: Text,
  rank: (operationId: string) => number,
): Observation[] {
  const byKey = new Map<string, Observation>()
  for (const o of records.flatMap((r) => list<Observation>(r.observations))) {
    if (!o || typeof o.id !== 'string') continue
    const clean: Observation = {
      id: text(o.id, 256),
      ...(o.operationId ? { operationId: o.operationId } : {}),
      subject: text(o.subject),
      behaviour: text(o.behaviour),
    }
    byKey.set([clean.id, clean.operationId ?? '', clean.subject, clean.behaviour].join('\u0000'), clean)
  }
  const sorted = [...byKey.values()].sort(
    (a, b) =>
      rank(a.operationId ?? '') - rank(b.operationId ?? '') ||
      compareText(a.id, b.id) ||
      compareText(a.subject, b.subject) ||
      compareText(a.behaviour, b.behaviour),
  )
  // Each observed check keeps a few of what the target chose, and says how many more there were.
  const kept: Observation[] = []
  const perId = new Map<string, number>()
  for (const o of sorted) {
    const seen = (perId.get(o.id) ?? 0) + 1
    perId.set(o.id, seen)
    if (seen <= LIMITS.observationsPerCheck) kept.push(o)
  }
  for (const [id, count] of perId) {
    if (count <= LIMITS.observationsPerCheck) continue
    const last = kept.findLastIndex((o) => o.id === id)
    const more = { id, ...(kept[last]!.operationId ? { operationId: kept[last]!.operationId } : {}), subject: '…' }
    kept.splice(last + 1, 0, { ...more, behaviour: `[truncated: ${count} observations in all]` })
  }
  return kept
}

// Computed once, by the engine, in the run-level record: taken as it is, never recomputed here.
function coverageOf(records: readonly ScenarioRecord[]): StatusCoverage[] {
  const runLevel = records.filter((r) => Array.isArray(r.coverage)).at(-1)
  return list<StatusCoverage>(runLevel?.coverage).map((c) => ({
    operationId: c.operationId,
    status: String(c.status),
    seen: c.seen === true,
    provokable: c.provokable !== false,
  }))
}

function boundList(items: readonly string[], max: number, noun: string): string[] {
  const distinct = unique(items)
  if (distinct.length <= max) return distinct
  return [...distinct.slice(0, max), `… [truncated: ${plural(distinct.length, noun)} in all]`]
}

function isRecord(record: ScenarioRecord): boolean {
  return record !== null && typeof record === 'object'
}

const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : [])
const unique = (items: readonly string[]): string[] => [...new Set(items)]
const sum = (values: readonly unknown[]) => values.reduce<number>((a, b) => a + (Number(b) || 0), 0)
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`
const listed = (ids: readonly string[], max: number) =>
  ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} and ${ids.length - max} more`
