/**
 * The one place that judges outcomes: how each check counts, the run's verdict and its exit code.
 * The console, every report, JUnit and the command's exit code read these; nothing else decides.
 */
import type { CheckResult, RunResult, Verdict } from './result.js'

/** The bucket of the totals a check falls in; also how writers label it. */
export type Standing = 'passed' | 'failed' | 'warned' | 'skipped' | 'unjudged' | 'errors'

/** How a check counts: failed advice only warns unless the run is strict; observed remarks never fail. */
export function standing(check: Pick<CheckResult, 'outcome' | 'severity'>, strict: boolean): Standing {
  switch (check.outcome) {
    case 'error':
      return 'errors'
    case 'skipped':
    case 'unjudged':
    case 'passed':
      return check.outcome
    case 'failed':
      return check.severity === 'fail' || (check.severity === 'advice' && strict) ? 'failed' : 'warned'
  }
}

/** True when the check makes the run non-conformant. */
export function breaksConformance(check: Pick<CheckResult, 'outcome' | 'severity'>, strict: boolean): boolean {
  return standing(check, strict) === 'failed'
}

/** True when the check leaves the run unable to say "conformant": never judged, or the kit broke on it. */
export function leavesUnjudged(check: Pick<CheckResult, 'outcome'>): boolean {
  return check.outcome === 'unjudged' || check.outcome === 'error'
}

/**
 * The run's verdict. A failing check makes it non-conformant (what was found stands, even if the rest could
 * not be judged); otherwise any check left unjudged makes it incomplete; only then is it conformant.
 */
export function verdictOf(
  checks: readonly Pick<CheckResult, 'outcome' | 'severity'>[],
  strict: boolean,
  stopped?: string,
): Verdict {
  if (checks.some((c) => breaksConformance(c, strict))) return 'non-conformant'
  if (stopped !== undefined || checks.some(leavesUnjudged)) return 'incomplete'
  return 'conformant'
}

/** The command's exit code for a verdict: 0 conformant, 1 non-conformant, 2 could not finish. */
export function exitCodeOf(verdict: Verdict): 0 | 1 | 2 {
  return verdict === 'conformant' ? 0 : verdict === 'non-conformant' ? 1 : 2
}

/** The exit code of a finished run. */
export function exitCode(run: Pick<RunResult, 'verdict'>): 0 | 1 | 2 {
  return exitCodeOf(run.verdict)
}
