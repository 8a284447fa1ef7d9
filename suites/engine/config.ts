/** What a run is told: one serialisable object, resolved by the command and handed to the tests and the reporter. */
import { spec as specInUse, type OperationId, type Spec } from '../../spec/index.js'
import { bodyEdges } from '../values/index.js'

/** The part of the run a scenario belongs to; each has its own allowance of pets to create. */
export type Area = 'create' | 'list' | 'get' | 'auth' | 'stateful' | 'coverage' | 'probe'

/** Pets each area may create; their sum is the run's record budget. */
export type Allowances = Record<Area, number>

/** The run's configuration, plain JSON (it crosses into vitest's worker). The key stays in memory only. */
export interface RunConfig {
  /** The target as reports show it, `/v1` included. */
  baseUrl: string
  /** Where requests really go when Prism's proxy sits in between. */
  sendBaseUrl?: string
  apiKey: string
  seed: number
  /** fast-check runs per property. */
  runs: number
  timeoutMs: number
  /** Requests in flight at most. */
  concurrency: number
  /** Selected check ids; empty selects every check. */
  checks: string[]
  /** Selected operations; empty selects every operation. */
  operations: OperationId[]
  strict: boolean
  viaPrism: boolean
  /** Names every pet this run creates (`pcs-<runId>-...`), so they can be recognised on a shared target. */
  runId: string
  allowances: Allowances
  /** Epoch ms after which no request is sent (`--max-time`); none by default. */
  deadline?: number
  /** The spec file the run judges by (a revision of the interface); the bundled spec when absent. */
  specPath?: string
}

/** Sequences of commands the model-based run tries, for a given `--runs`. */
export function statefulRuns(runs: number): number {
  return Math.max(2, Math.ceil(runs / 3))
}

/** Commands in one model-based sequence, at most. */
export const MAX_COMMANDS = 8

/**
 * How long the run's event loop may stay blocked before the run is taken for hung and stopped: far beyond anything
 * the run's own work takes (a whole response is checked in milliseconds), so only a loop that never ends reaches it.
 */
export const STALLED_MS = 60_000

/** Pets created one at a time between listings of the same query, so that a list served from a stale cache shows. */
export const ONE_AT_A_TIME = 5

/** How many pets each area may create with `runs` fast-check runs per property, by the bounds of `spec`. */
export function recordAllowances(runs: number, spec: Spec = specInUse()): Allowances {
  const limit = spec.parameter('listPets', 'limit')
  const pageMaximum = Number(limit.maximum ?? limit.default ?? 0)
  const statuses = spec.parameter('listPets', 'status').enum?.length ?? 0
  return {
    // 11 valid fixtures, probes, 20 concurrent creates, 4 sentinels, one pet per valid-payload run, and
    // a margin of 22 for shrinking a failure and for a target that stores what it should refuse.
    create: 60 + runs,
    // Enough to hold a full page (limit's maximum) plus three pets of each status, and five created one at a time
    // between listings of the same query.
    list: pageMaximum + 3 * statuses + ONE_AT_A_TIME,
    get: 2,
    // 2 sentinels; nothing else on a conformant target, room for a target that stores unauthenticated creates.
    auth: 10,
    // Creates are about a sixth of the commands; the model stops creating when this runs out.
    stateful: Math.min(60, statefulRuns(runs) * 3),
    coverage: 3,
    // Bodies at the edges of the schema, each created once; media types and large bodies, with their sentinels;
    // and one NewPet per value at the edge of a keyword of its schema (the coverage phase).
    probe: 50 + bodyEdges(spec).filter((edge) => edge.expect === 'ok').length,
  }
}

/** The run's record budget: the sum of the allowances. */
export function recordBudget(allowances: Allowances): number {
  return Object.values(allowances).reduce((a, b) => a + b, 0)
}
