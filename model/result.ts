/**
 * The result model of a conformance run: what the engine records and every reporter reads.
 * Everything here is plain JSON (no bigint, no Date): it travels from the vitest worker to the reporter as
 * task meta and is written as the JSON report. `reporters/result.schema.json` describes it.
 */
import type { BasisLine, OperationId } from '../spec/index.js'
import type { Credential, RecordedExchange } from './exchange.js'

export type { BasisLine, OperationId }

/** fail: the interface documents it; observed: the interface is silent; advice: good practice only. */
export type Severity = 'fail' | 'observed' | 'advice'

/**
 * passed: held on every exchange it judged; failed: at least one finding; skipped: not applicable, because the
 * target's own answers removed its premise (`reason` says which); unjudged: it applied but was never judged
 * (the run could not finish it); error: the kit itself broke.
 */
export type Outcome = 'passed' | 'failed' | 'skipped' | 'unjudged' | 'error'

/** Who reported a finding: the suite's own checks, or Prism's validating proxy. */
export type Source = 'suite' | 'prism'

/** One violation (or, for advice, one remark) with what shows it and how to replay it. */
export interface Finding {
  checkId: string
  operationId?: OperationId
  severity: Severity
  source: Source
  /** Names what was received and what was documented. */
  message: string
  exchange?: RecordedExchange
  /** A `curl` command that sends the same request, key replaced by `$PETSTORE_API_KEY`. */
  curl?: string
  /** The shrunk fast-check counterexample, when a property found it. */
  counterexample?: string
  /** fast-check seed and path that replay it. */
  seed?: number
  path?: string
  /** What `--replay` needs to send the request again and judge it the same way. */
  replay?: Replayable
}

/** A finding's request as `--replay` sends it again: the credential it carried, and the facts it was judged on. */
export interface Replayable {
  credential: Credential
  /** The facts the check was given, as lossless JSON text (int64 digits kept); absent when there were none. */
  facts?: string
}

/** What the target chose where the interface is silent, e.g. `limit=0 -> 400 Error`. */
export interface Observation {
  /** The observed check's id, e.g. `listPets.limit.out-of-range`. */
  id: string
  operationId?: OperationId
  /** What was asked, e.g. `GET /pets?limit=0`. */
  subject: string
  /** What the target did, e.g. `400 Error (code "invalid_limit")`. */
  behaviour: string
}

/** The outcome of one check of the catalogue over the whole run. */
export interface CheckResult {
  id: string
  title: string
  /** The operation it covers, or `all` for cross-cutting checks. */
  operationId: OperationId | 'all'
  severity: Severity
  source: Source
  /**
   * What documents the behaviour it enforces, in the spec's words (a JSON pointer into it) or an RFC section's;
   * every `fail` check has one.
   */
  basis?: BasisLine[]
  outcome: Outcome
  /** Why a check was skipped, unjudged or broke. */
  reason?: string
  findings: Finding[]
  /** Distinct findings beyond those kept: evidence is bounded (`LIMITS.findingsPerCheck`). */
  findingsLeftOut?: number
  /** Exchanges (or run-level facts) the check judged. */
  exchanges: number
}

/** Whether the run provoked one documented status of one operation. */
export interface StatusCoverage {
  operationId: OperationId
  status: string
  seen: boolean
  /** False when the suite has no way to provoke it against a conformant target. */
  provokable: boolean
}

/** What one scenario recorded: the reporter merges them into the run's result. Plain JSON. */
export interface ScenarioRecord {
  scenario: string
  checks: CheckResult[]
  observations: Observation[]
  /** `operationId status` pairs seen, e.g. `createPet 201`. */
  statusesSeen: string[]
  requestsSent: number
  recordsCreated: number
  /** Set when the scenario could not finish: what stopped it. */
  stopped?: string
  /** The run-level record only: which documented statuses the whole run provoked, computed once by the engine. */
  coverage?: StatusCoverage[]
  /** The rate limiting the run's transport met so far (cumulative over the run, not this scenario alone). */
  throttling?: Throttling
}

/** Rate limiting the target applied and the run waited out: never a finding, but it explains a slow run. */
export interface Throttling {
  /** Answers 429 Too Many Requests. */
  status429: number
  /** Answers 503 with a `Retry-After` (a proxy's rate limit or a short overload). */
  status503: number
  /** Time requests spent waiting to be sent again, added up (waits side by side each count), in ms. */
  waitedMs: number
  /** The longest single wait, in ms. */
  longestWaitMs: number
}

/** One wait for a throttling answer, as it starts: how long, for which status, and throttling answers so far. */
export interface WaitNotice {
  waitMs: number
  status: number
  times: number
}

/** How a wait notice travels from the run's worker to the reporter: a console line of this prefix and JSON. */
export const WAIT_LOG_PREFIX = 'petstore-conformance:wait '

/** A run that could not be done at all (exit 2 before any check): why, what was tried, what the user can do. */
export interface CannotRun {
  /** One line: why, e.g. `the target refused the API key: ...`. */
  reason: string
  /** What the command sent or attempted, one line each, e.g. `GET https://host/v1/pets?limit=1 -> 401 (12 ms)`. */
  tried: string[]
  /** What the user can do about it. */
  advice: string
}

/** A run narrowed by `--check` or `--operation`: how many checks it selected of the whole catalogue. */
export interface Selection {
  selected: number
  catalogue: number
}

/** One check of the catalogue as a run selected it. */
export interface CatalogueEntry {
  id: string
  title: string
  operationId: OperationId | 'all'
  severity: Severity
  source: Source
  /** What documents the behaviour it enforces (see {@link CheckResult.basis}). */
  basis?: BasisLine[]
}

/** conformant: every applicable check judged, none failing; non-conformant: one failed; incomplete: not all judged. */
export type Verdict = 'conformant' | 'non-conformant' | 'incomplete'

/** One whole run: the JSON report is exactly this. */
export interface RunResult {
  tool: { name: string; version: string }
  target: { baseUrl: string; embedded: boolean }
  runId: string
  seed: number
  runs: number
  /** ISO 8601; the only clock value, blanked by golden tests. */
  startedAt: string
  durationMs: number
  specVersion: string
  /** Pets the run created, and the most it allows itself. */
  recordsCreated: number
  recordBudget: number
  requestsSent: number
  /** Whether Prism's proxy sat between the suite and the target. */
  viaPrism: boolean
  strict: boolean
  verdict: Verdict
  /** The verdict as every report says it (`verdictText`), e.g. `conformant for the 4 selected checks (51 not run)`. */
  verdictLine: string
  /** When the verdict is `incomplete`: one line saying why, e.g. `incomplete: 3 checks not judged (a, b, c)`. */
  incomplete?: string
  /** Why the run ended early, e.g. `--max-time 30 s reached`; what was found before still stands. */
  stopped?: string
  /** Errors of the kit outside any scenario (a file that did not load, an unhandled error). */
  runErrors: string[]
  totals: {
    checks: number
    passed: number
    failed: number
    warned: number
    skipped: number
    unjudged: number
    errors: number
  }
  checks: CheckResult[]
  observations: Observation[]
  coverage: StatusCoverage[]
  /** Said up front when the run looks misdirected or partial. */
  notices: string[]
  /** The rate limiting the run met: zeros when the target never throttled. */
  throttling: Throttling
  /** Set when the run judged only some checks of the catalogue (`--check`, `--operation`). */
  selection?: Selection
  /** Set when the run could not be done at all: every check is unjudged, and this says why. */
  cannotRun?: CannotRun
}
