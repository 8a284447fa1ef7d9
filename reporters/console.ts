import type { CheckResult, Finding, RunResult } from '../suites/model.js'
import { breaksConformance, standing, type CaseResult, type RunOptions, type Standing } from './build-run-result.js'
import { CELL_LABEL, matrixOf, type CellOutcome } from './matrix.js'
import {
  BODY_LIMIT,
  FINDINGS_SHOWN,
  STANDING_LABEL,
  checksIn,
  exchangeText,
  findingOperation,
  formatDuration,
  moreFindings,
  plural,
  replayCommand,
  replayOf,
  totalsLine,
  visible,
} from './text.js'

/** Options of the console writer. */
export interface ConsoleOptions {
  /** ANSI colours; off for NO_COLOR and for output that is not a terminal. */
  color: boolean
}

type Paint = (text: string) => string
interface Palette {
  red: Paint
  green: Paint
  yellow: Paint
  dim: Paint
  bold: Paint
}

const ansi = (open: number, close: number): Paint => (text) => `\u001b[${open}m${text}\u001b[${close}m`
const plain: Paint = (text) => text

function palette(color: boolean): Palette {
  if (!color) return { red: plain, green: plain, yellow: plain, dim: plain, bold: plain }
  return { red: ansi(31, 39), green: ansi(32, 39), yellow: ansi(33, 39), dim: ansi(2, 22), bold: ansi(1, 22) }
}

const MARK: Record<Standing, string> = { passed: '✓', failed: '✗', warned: '!', skipped: '-', errors: '✗' }

function markOf(s: Standing, p: Palette): string {
  if (s === 'passed') return p.green(MARK[s])
  if (s === 'failed' || s === 'errors') return p.red(MARK[s])
  if (s === 'warned') return p.yellow(MARK[s])
  return p.dim(MARK[s])
}

/** The first line of a run: what is tested, with which seed. */
export function runHeader(options: RunOptions, { color }: ConsoleOptions): string {
  const p = palette(color)
  const target = options.target.embedded ? `${options.target.baseUrl} (the embedded stub)` : options.target.baseUrl
  const prism = options.viaPrism ? ', through Prism' : ''
  return `${p.bold('Pet Store conformance')} against ${target}${prism}\n${p.dim(`run ${options.runId} · seed ${options.seed} · ${options.runs} runs per property`)}\n`
}

/** One line per finished test case: its mark, its name, and how its checks went. */
export function progressLine(testCase: CaseResult, strict: boolean, { color }: ConsoleOptions): string {
  const p = palette(color)
  const checks = testCase.record?.checks ?? []
  const counts = { passed: 0, failed: 0, warned: 0, skipped: 0, errors: 0 }
  for (const check of checks) counts[standing(check, strict)] += 1
  let mark: Standing = counts.errors ? 'errors' : counts.failed ? 'failed' : counts.warned ? 'warned' : 'passed'
  if (testCase.state === 'failed' && mark !== 'failed') mark = 'errors'
  if (testCase.state === 'skipped' && checks.length === 0) mark = 'skipped'
  const parts = [plural(checks.length, 'check')]
  if (counts.failed) parts.push(p.red(`${counts.failed} failed`))
  if (counts.errors) parts.push(p.red(plural(counts.errors, 'error')))
  if (counts.warned) parts.push(p.yellow(plural(counts.warned, 'warning')))
  if (testCase.record) parts.push(plural(testCase.record.requestsSent, 'request'))
  const crash = testCase.state === 'failed' && !checks.length ? ` ${p.red(visible(firstLine(testCase.errors[0] ?? 'failed')))}` : ''
  const skipped = testCase.state === 'skipped' ? ' skipped' : ''
  return `${markOf(mark, p)} ${visible(testCase.fullName)}${skipped} ${p.dim(`(${parts.join(', ')})`)}${crash}\n`
}

const firstLine = (text: string) => text.split('\n')[0] ?? ''

/** The console report: summary per operation and check, failures with reproduction, observations, verdict. */
export function toConsole(run: RunResult, { color }: ConsoleOptions): string {
  const p = palette(color)
  const out: string[] = ['']
  for (const notice of run.notices) out.push(p.yellow(`Notice: ${visible(notice)}`))
  if (run.notices.length) out.push('')

  out.push(p.bold('Checks'))
  for (const [operationId, checks] of groupByOperation(run.checks)) {
    out.push(`  ${p.bold(operationId === 'all' ? 'all operations' : operationId)}`)
    const width = Math.max(...checks.map((c) => c.id.length))
    for (const check of checks) {
      const s = standing(check, run.strict)
      const label = STANDING_LABEL[s].padEnd(15)
      const exchanges = p.dim(plural(check.exchanges, 'exchange'))
      out.push(`    ${markOf(s, p)} ${visible(check.id).padEnd(width)}  ${check.severity.padEnd(8)} ${label} ${exchanges}`)
    }
  }
  out.push('', ...matrixLines(run, p))

  const failing = checksIn(run, 'failed', 'errors')
  if (failing.length) {
    out.push('', p.bold(p.red(`Failures (${failing.length})`)))
    for (const check of failing) out.push('', ...checkDetails(run, check, p))
  }
  const warned = checksIn(run, 'warned')
  if (warned.length) {
    out.push('', p.bold(p.yellow(`Warnings (${warned.length}): good practice the interface does not require`)))
    for (const check of warned) out.push('', ...checkDetails(run, check, p))
  }
  if (run.observations.length) {
    out.push('', p.bold(`Where the interface is silent, the target chose (${run.observations.length})`))
    const width = Math.max(...run.observations.map((o) => visible(o.subject).length))
    for (const o of run.observations) out.push(`  ${visible(o.subject).padEnd(width)}  →  ${visible(o.behaviour)}`)
  }

  out.push('', p.bold('Run'))
  out.push(`  target      ${run.target.baseUrl}${run.target.embedded ? ' (the embedded stub)' : ''}${run.viaPrism ? ', through Prism' : ''}`)
  out.push(`  run id      ${run.runId}`)
  out.push(`  seed        ${run.seed} (${run.runs} runs per property)`)
  out.push(`  records     ${run.recordsCreated} created of a budget of ${run.recordBudget}`)
  out.push(`  requests    ${run.requestsSent} in ${formatDuration(run.durationMs)}`)
  out.push(`  replay      ${replayCommand(run)}`)
  out.push('', totalsLine(run))
  out.push(
    run.verdict === 'conformant'
      ? p.bold(p.green(`Verdict: conformant${run.totals.warned ? ` (${plural(run.totals.warned, 'warning')})` : ''}`))
      : p.bold(p.red(`Verdict: NON-CONFORMANT (${verdictReason(run)})`)),
  )
  return out.join('\n') + '\n'
}

function verdictReason(run: RunResult): string {
  const failing = run.checks.filter((c) => breaksConformance(c, run.strict))
  const errors = failing.filter((c) => c.outcome === 'error').length
  const reasons = [`${failing.length - errors} failed`, ...(errors ? [plural(errors, 'error')] : [])]
  return run.notices.some((n) => n.includes('interrupted')) ? [...reasons, 'interrupted'].join(', ') : reasons.join(', ')
}

function groupByOperation(checks: readonly CheckResult[]): Map<string, CheckResult[]> {
  const groups = new Map<string, CheckResult[]>()
  for (const check of checks) groups.set(check.operationId, [...(groups.get(check.operationId) ?? []), check])
  return groups
}

const CELL_MARK: Record<CellOutcome, string> = { passed: '✓', failed: '✗', warned: '!', 'not-provoked': '·', 'not-applicable': ' ' }

function matrixLines(run: RunResult, p: Palette): string[] {
  const matrix = matrixOf(run)
  const width = Math.max(...matrix.rows.map((r) => r.operationId.length), 9)
  const paintCell = (outcome: CellOutcome, text: string) =>
    outcome === 'passed' ? p.green(text) : outcome === 'failed' ? p.red(text) : outcome === 'warned' ? p.yellow(text) : p.dim(text)
  const lines = [p.bold('Documented responses provoked'), `  ${''.padEnd(width)}  ${matrix.columns.map((c) => c.padEnd(4)).join(' ')}`.trimEnd()]
  for (const row of matrix.rows) {
    const cells = row.cells.map((cell) => paintCell(cell.outcome, CELL_MARK[cell.outcome].padEnd(4)))
    const extra = row.undocumented.map((cell) => paintCell(cell.outcome, `${cell.status} (undocumented)`)).join(' ')
    lines.push(`  ${row.operationId.padEnd(width)}  ${cells.join(' ')}${extra ? ` ${extra}` : ''}`.trimEnd())
  }
  const legend = (['passed', 'failed', 'warned', 'not-provoked'] as const).map((o) => `${CELL_MARK[o]} ${CELL_LABEL[o]}`)
  lines.push(p.dim(`  ${legend.join('  ')}`))
  const unprovokable = run.coverage.filter((c) => !c.seen && !c.provokable)
  if (unprovokable.length) {
    const names = unprovokable.map((c) => `${c.operationId} ${c.status}`).join(', ')
    lines.push(p.dim(`  not expected from a conformant target, so not counted as missing: ${names}`))
  }
  return lines
}

function checkDetails(run: RunResult, check: CheckResult, p: Palette): string[] {
  const s = standing(check, run.strict)
  const operation = check.operationId === 'all' ? 'all operations' : check.operationId
  const lines = [`${markOf(s, p)} ${p.bold(visible(check.id))} · ${operation} · ${check.severity} · ${STANDING_LABEL[s]}`, `  ${visible(check.title)}`]
  for (const finding of check.findings.slice(0, FINDINGS_SHOWN)) lines.push('', ...findingLines(check, finding, p))
  if (check.findings.length > FINDINGS_SHOWN) {
    lines.push('', p.dim(`  … ${moreFindings(check.findings.length - FINDINGS_SHOWN)} in the JSON and HTML reports`))
  }
  return lines
}

function findingLines(check: CheckResult, finding: Finding, p: Palette): string[] {
  const indent = (text: string) => text.split('\n').map((l) => `    ${l}`)
  const operation = findingOperation(check, finding)
  const lines = [`  ${operation && operation !== check.operationId ? `${operation}: ` : ''}${visible(finding.message)}`]
  if (finding.source === 'prism') lines.push(p.dim('    (reported by Prism)'))
  if (finding.counterexample !== undefined) lines.push(`    counterexample: ${visible(finding.counterexample)}`)
  const replay = replayOf(finding)
  if (replay) lines.push(p.dim(`    replays with ${replay}`))
  if (finding.exchange) lines.push(...indent(p.dim(exchangeText(finding.exchange, BODY_LIMIT, { brief: true }))))
  if (finding.curl) lines.push(`    reproduce: ${visible(finding.curl)}`)
  return lines
}
