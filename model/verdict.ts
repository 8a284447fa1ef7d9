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

/** How many checks, with the noun: `1 check`, `4 checks`. */
const checksWord = (count: number) => `${count} check${count === 1 ? '' : 's'}`

/**
 * The verdict as every report says it, after `Verdict: `: `conformant`, `conformant (2 warnings)`,
 * `conformant for the 4 selected checks (51 not run)`, `NON-CONFORMANT (1 failed)`, `INCOMPLETE`, `COULD NOT RUN`.
 * A run narrowed to some checks says so, whatever its verdict: its exit code speaks for those checks only.
 */
export function verdictText(
  run: Pick<RunResult, 'verdict' | 'totals' | 'stopped' | 'selection' | 'cannotRun'>,
): string {
  const subset = run.selection
    ? ` for the ${run.selection.selected === 1 ? 'one selected check' : `${run.selection.selected} selected checks`} (${run.selection.catalogue - run.selection.selected} not run)`
    : ''
  if (run.cannotRun) return 'COULD NOT RUN'
  if (run.verdict === 'conformant') {
    const warned = run.totals.warned ? ` (${run.totals.warned} warning${run.totals.warned === 1 ? '' : 's'})` : ''
    return `conformant${subset}${warned}`
  }
  if (run.verdict === 'incomplete') return `INCOMPLETE${subset}`
  const reasons = [`${run.totals.failed} failed`]
  if (run.stopped !== undefined) reasons.push(`the run stopped early: ${run.stopped}`)
  return `NON-CONFORMANT (${reasons.join('; ')})${subset}`
}

/** `4 of 55 checks selected`: a narrowed run's selection in words, or undefined for a whole run. */
export function selectionText(run: Pick<RunResult, 'selection'>): string | undefined {
  if (!run.selection) return undefined
  const { selected, catalogue } = run.selection
  return `${selected} of ${checksWord(catalogue)} selected (--check, --operation); ${catalogue - selected} not run`
}
