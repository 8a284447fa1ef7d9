/**
 * The result model of a conformance run: what the suite records and every reporter reads.
 * Everything here is plain JSON (no bigint, no Date): it travels from vitest workers to the reporters
 * as task meta and is written as the JSON report. `reporters/result.schema.json` describes it.
 */
import type { OperationId } from '../spec/index.js'

export type { OperationId }

/** fail: the interface documents it; observed: the interface is silent; advice: good practice only. */
export type Severity = 'fail' | 'observed' | 'advice'

/** passed: held on every exchange; failed: at least one finding; skipped: not applicable; error: the kit broke. */
export type Outcome = 'passed' | 'failed' | 'skipped' | 'error'

/** Who reported a finding: the suite's own checks, or Prism's validating proxy. */
export type Source = 'suite' | 'prism'

/** One HTTP request as sent, `Authorization` redacted. */
export interface RecordedRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: string
}

/** One HTTP response as received; `rawBody` is the exact text, so int64 digits survive. */
export interface RecordedResponse {
  status: number
  headers: Record<string, string>
  rawBody: string
}

/** A request and what came of it: a response, or a transport error (timeout, reset, garbage). */
export interface RecordedExchange {
  operationId?: OperationId
  request: RecordedRequest
  response?: RecordedResponse
  /** Why no response came, e.g. `timeout after 5000 ms`. */
  error?: string
  durationMs: number
}

/** One violation (or, for observed and advice, one remark) with what shows it and how to replay it. */
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
}

/** What the target chose where the interface is silent, e.g. `limit=0 -> 400 Error`. */
export interface Observation {
  /** Stable id, e.g. `listPets.limit.below-minimum`. */
  id: string
  operationId?: OperationId
  /** What was asked, e.g. `GET /pets?limit=0`. */
  subject: string
  /** What the target did, e.g. `400 Error (code "invalid_limit")`. */
  behaviour: string
}

/** The outcome of one check of the catalogue. */
export interface CheckResult {
  id: string
  title: string
  /** The operation it covers, or `all` for cross-cutting checks. */
  operationId: OperationId | 'all'
  severity: Severity
  source: Source
  outcome: Outcome
  findings: Finding[]
  /** Exchanges the check judged. */
  exchanges: number
  durationMs: number
}

/** Whether the run provoked one documented status of one operation. */
export interface StatusCoverage {
  operationId: OperationId
  status: string
  seen: boolean
  /** False when the suite has no way to provoke it against a conformant target. */
  provokable: boolean
}

/** What one vitest test case records in `task.meta.conformance`; the reporter merges them. */
export interface TestRecord {
  checks: CheckResult[]
  observations: Observation[]
  /** `operationId status` pairs seen, e.g. `createPet 201`. */
  statusesSeen: string[]
  requestsSent: number
  recordsCreated: number
}

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
  verdict: 'conformant' | 'non-conformant'
  totals: { checks: number; passed: number; failed: number; warned: number; skipped: number; errors: number }
  checks: CheckResult[]
  observations: Observation[]
  coverage: StatusCoverage[]
  /** Said up front when the run looks misdirected, e.g. every request got 401. */
  notices: string[]
}

declare module 'vitest' {
  interface TaskMeta {
    conformance?: TestRecord
  }
}
