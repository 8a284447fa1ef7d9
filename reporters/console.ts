/**
 * The console report: failing checks first, each with its evidence; then warnings, then what could not be
 * judged, then the rest compactly; the verdict last. Also the run's header and the progress lines.
 */
import {
  breaksConformance,
  standing,
  type CheckResult,
  type Finding,
  type RunFacts,
  type RunResult,
  type ScenarioRecord,
  type Standing,
} from '../model/index.js'
import { CELL_LABEL, matrixOf, type CellOutcome } from './matrix.js'
import {
  basisLines,
  FINDINGS_SHOWN,
  STANDING_LABEL,
  checksIn,
  exchangeText,
  findingOperation,
  formatDuration,
  moreFindingsLine,
  plural,
  replayCommand,
  replayNote,
  replayOf,
  totalsLine,
  visible,
} from './text.js'

/** Options of the console writer. */
export interface ConsoleOptions {
  /** ANSI colours; off for NO_COLOR and for output that is not a terminal. */
  color: boolean
  /** Report files written before the console report, listed in its run facts. */
  written?: readonly string[]
  /** Bodies of exchanges whole (`--verbose`), rather than cut to a few lines with their size. */
  verbose?: boolean
}

/** How much of a body the console shows: a few lines, or (`--verbose`) all the run kept. */
export const CONSOLE_BODY_LIMIT = { chars: 600, lines: 6 }
const WHOLE = { chars: Number.MAX_SAFE_INTEGER, lines: Number.MAX_SAFE_INTEGER }

type Paint = (text: string) => string
type BodyLimit = { chars: number; lines: number }
interface Palette {
  red: Paint
  green: Paint
  yellow: Paint
  dim: Paint
  bold: Paint
}

const ansi =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`
const plain: Paint = (text) => text

function palette(color: boolean): Palette {
  if (!color) return { red: plain, green: plain, yellow: plain, dim: plain, bold: plain }
  return { red: ansi(31, 39), green: ansi(32, 39), yellow: ansi(33, 39), dim: ansi(2, 22), bold: ansi(1, 22) }
}

const MARK: Record<Standing, string> = {
  passed: '✓',
  failed: '✗',
  warned: '!',
  skipped: '-',
  unjudged: '?',
  errors: '✗',
}

function markOf(s: Standing, p: Palette): string {
  if (s === 'passed') return p.green(MARK[s])
  if (s === 'failed' || s === 'errors') return p.red(MARK[s])
  if (s === 'warned' || s === 'unjudged') return p.yellow(MARK[s])
  return p.dim(MARK[s])
}

/** The first lines of a run: what is tested, with which seed. */
export function runHeader(
  facts: Pick<RunFacts, 'target' | 'viaPrism' | 'runId' | 'seed' | 'runs'>,
  { color }: ConsoleOptions,
): string {
  const p = palette(color)
  const target = facts.target.embedded ? `${facts.target.baseUrl} (the embedded stub)` : facts.target.baseUrl
  const prism = facts.viaPrism ? ', through Prism' : ''
  const line = `run ${facts.runId} · seed ${facts.seed} · ${facts.runs} runs per property`
  return `${p.bold('Pet Store conformance')} against ${visible(target)}${prism}\n${p.dim(line)}\n`
}

/** A finished scenario as the progress line sees it. */
export interface ScenarioProgress {
  /** The scenario's name (its record's, or the test's). */
  name: string
  /** What it recorded; undefined when it did not finish. */
  record?: ScenarioRecord
  /** The test's own state: a scenario that did not record is `failed` (it broke) or `skipped`. */
  state: 'passed' | 'failed' | 'skipped' | 'pending'
  /** Its first error, when it broke. */
  error?: string
}

interface Counts {
  judged: number
  failing: number
  warned: number
  broke: number
}

function countChecks(records: readonly ScenarioRecord[], strict: boolean): Counts {
  const counts = { judged: 0, failing: 0, warned: 0, broke: 0 }
  for (const check of records.flatMap((r) => r.checks ?? [])) {
    if (check.outcome === 'passed' || check.outcome === 'failed') counts.judged += 1
    if (breaksConformance(check, strict)) counts.failing += 1
    else if (standing(check, strict) === 'warned') counts.warned += 1
    if (check.outcome === 'error') counts.broke += 1
  }
  return counts
}

// `✓` all judged checks hold, `•` some fail or warn, `!` stopped early.
function summary(counts: Counts, stopped: string | undefined, p: Palette): { mark: string; parts: string[] } {
  const parts = [plural(counts.judged, 'check') + ' judged']
  if (counts.failing) parts.push(p.red(`${counts.failing} failing`))
  if (counts.warned) parts.push(p.yellow(plural(counts.warned, 'warning')))
  if (counts.broke) parts.push(p.red(`${counts.broke} broke`))
  const mark = stopped
    ? p.yellow('!')
    : counts.failing || counts.broke
      ? p.red('•')
      : counts.warned
        ? p.yellow('•')
        : p.green('✓')
  return { mark, parts }
}

/**
 * One line per finished scenario: how many checks it judged and how many of them fail. A scenario never
 * "fails" because a check failed; only one that broke or stopped says so.
 */
export function progressLine(scenario: ScenarioProgress, strict: boolean, { color }: ConsoleOptions): string {
  const p = palette(color)
  const name = visible(scenario.name)
  const record = scenario.record
  if (!record) {
    if (scenario.state === 'failed')
      return `${p.red('✗')} ${name}  ${p.red(`did not finish: ${visible(firstLine(scenario.error ?? 'no record'))}`)}\n`
    return `${p.dim('-')} ${name}  ${p.dim('skipped')}\n`
  }
  const { mark, parts } = summary(countChecks([record], strict), record.stopped, p)
  const stopped = record.stopped ? ` ${p.yellow(`stopped: ${visible(firstLine(record.stopped))}`)}` : ''
  return `${mark} ${name}  ${p.dim(`${parts.join(', ')} · ${plural(record.requestsSent ?? 0, 'request')}`)}${stopped}\n`
}

/**
 * One line per finished area of the run (list, create, get, auth, ...), for logs without a terminal: its
 * scenarios, the checks they judged and how many fail, its requests, and the run's time when it finished.
 */
export function areaLine(
  area: string,
  scenarios: readonly ScenarioProgress[],
  elapsedMs: number,
  strict: boolean,
  { color }: ConsoleOptions,
): string {
  const p = palette(color)
  const records = scenarios.flatMap((s) => (s.record ? [s.record] : []))
  const counts = countChecks(records, strict)
  counts.broke += scenarios.filter((s) => !s.record && s.state === 'failed').length
  const stopped = records.find((r) => r.stopped)?.stopped
  const { mark, parts } = summary(counts, stopped, p)
  const requests = records.reduce((n, r) => n + (Number(r.requestsSent) || 0), 0)
  const what = `${plural(scenarios.length, 'scenario')} · ${parts.join(', ')} · ${plural(requests, 'request')} · ${Math.round(elapsedMs / 1000)} s`
  const stop = stopped ? ` ${p.yellow(`stopped: ${visible(firstLine(stopped))}`)}` : ''
  return `${mark} ${visible(area)}  ${p.dim(what)}${stop}\n`
}

const firstLine = (text: string) => text.split('\n')[0] ?? ''

/** The console report of a finished run. */
export function toConsole(run: RunResult, { color, written = [], verbose = false }: ConsoleOptions): string {
  const p = palette(color)
  const limit = verbose ? WHOLE : CONSOLE_BODY_LIMIT
  const out: string[] = ['']
  for (const notice of run.notices) out.push(p.yellow(`Notice: ${visible(notice)}`))
  if (run.notices.length) out.push('')

  const failing = checksIn(run, 'failed')
  const broken = checksIn(run, 'errors')
  const warned = checksIn(run, 'warned')
  const unjudged = checksIn(run, 'unjudged')
  const skipped = checksIn(run, 'skipped')
  const passed = checksIn(run, 'passed')
  section(out, failing, p.bold(p.red(`Failures (${failing.length}): the target breaks the interface`)), (c) =>
    checkDetails(run, c, p, limit),
  )
  section(
    out,
    broken,
    p.bold(p.red(`Errors (${broken.length}): the kit broke, so these checks were not judged`)),
    (c) => checkDetails(run, c, p, limit),
  )
  section(
    out,
    warned,
    p.bold(p.yellow(`Warnings (${warned.length}): good practice the interface does not require`)),
    (c) => checkDetails(run, c, p, limit),
  )
  if (unjudged.length)
    out.push(p.bold(p.yellow(`Not judged (${unjudged.length})`)), ...reasonLines(unjudged, 'unjudged', p), '')
  if (skipped.length) out.push(p.bold(`Not applicable (${skipped.length})`), ...reasonLines(skipped, 'skipped', p), '')
  if (passed.length) out.push(p.bold(`Passed (${passed.length})`), ...compactLines(passed, p), '')

  out.push(...matrixLines(run, p))
  if (run.observations.length) {
    out.push('', p.bold(`Where the interface is silent, the target chose (${run.observations.length})`))
    const width = Math.min(60, Math.max(...run.observations.map((o) => visible(o.subject).length)))
    for (const o of run.observations) out.push(`  ${visible(o.subject).padEnd(width)}  →  ${visible(o.behaviour)}`)
  }
  if (run.runErrors.length) {
    out.push('', p.bold(p.red(`Errors outside any scenario (${run.runErrors.length})`)))
    for (const error of run.runErrors) out.push(...indent(visible(error), '  '))
  }

  out.push('', p.bold('Run'))
  out.push(
    `  target      ${visible(run.target.baseUrl)}${run.target.embedded ? ' (the embedded stub)' : ''}${run.viaPrism ? ', through Prism' : ''}`,
  )
  out.push(`  run id      ${visible(run.runId)}`)
  out.push(`  seed        ${run.seed} (${run.runs} runs per property)`)
  out.push(`  records     ${run.recordsCreated} created of a budget of ${run.recordBudget}`)
  out.push(`  requests    ${run.requestsSent} in ${formatDuration(run.durationMs)}`)
  if (run.stopped !== undefined) out.push(`  stopped     ${p.yellow(visible(run.stopped))}`)
  out.push(`  replay      ${replayCommand(run)}`)
  const note = replayNote(run)
  if (note) out.push(p.dim(`              (${note})`))
  written.forEach((path, i) => out.push(`  ${i === 0 ? 'reports     ' : '            '}${visible(path)}`))
  out.push('', totalsLine(run), ...verdictLines(run, p))
  return out.join('\n') + '\n'
}

function section(
  out: string[],
  checks: readonly CheckResult[],
  heading: string,
  details: (c: CheckResult) => string[],
): void {
  if (!checks.length) return
  out.push(heading)
  for (const check of checks) out.push('', ...details(check))
  out.push('')
}

/** What the live progress line shows: the run's counters, and the scenario that started last. */
export interface LiveProgress {
  scenario: string
  requests: number
  /** Checks of the catalogue judged (passed or failed) so far, and how many the run selected. */
  judged: number
  total: number
  /** Checks of the catalogue failing so far. */
  failing: number
  elapsedS: number
}

/**
 * The live progress line within `width` columns: the counters first, always whole (requests, checks judged of
 * the total, failing checks, elapsed time), then the scenario's title shortened to what is left.
 */
export function liveLine(live: LiveProgress, width: number): string {
  const counters = `› ${live.requests} requests · ${live.judged}/${live.total} checks judged · ${live.failing} failing · ${live.elapsedS} s`
  if (counters.length >= width) return counters.slice(0, width)
  const room = width - counters.length - 3
  const title = visible(live.scenario || 'starting')
  if (room < 6) return counters
  return `${counters} · ${title.length > room ? `${title.slice(0, room - 1)}…` : title}`
}

/**
 * The verdict alone, with the totals and where the reports went: what a run without the console's report
 * (`--quiet`) still prints.
 */
export function verdictOnly(run: RunResult, { color, written = [] }: ConsoleOptions): string {
  const p = palette(color)
  const reports = written.length ? [p.dim(`Reports: ${written.map(visible).join(', ')}`)] : []
  return [...reports, totalsLine(run), ...verdictLines(run, p)].join('\n') + '\n'
}

// The verdict is the last line; an incomplete run ends with the line that says what was not judged.
function verdictLines(run: RunResult, p: Palette): string[] {
  if (run.verdict === 'conformant') {
    return [
      p.bold(p.green(`Verdict: conformant${run.totals.warned ? ` (${plural(run.totals.warned, 'warning')})` : ''}`)),
    ]
  }
  if (run.verdict === 'incomplete')
    return [p.bold(p.yellow('Verdict: INCOMPLETE')), p.bold(p.yellow(visible(run.incomplete ?? 'incomplete')))]
  const reasons = [`${run.totals.failed} failed`]
  if (run.stopped !== undefined) reasons.push(`the run stopped early: ${visible(run.stopped)}`)
  return [p.bold(p.red(`Verdict: NON-CONFORMANT (${reasons.join('; ')})`))]
}

function reasonLines(checks: readonly CheckResult[], s: Standing, p: Palette): string[] {
  const width = Math.max(...checks.map((c) => c.id.length))
  return checks.map(
    (c) => `  ${markOf(s, p)} ${visible(c.id).padEnd(width)}  ${p.dim(visible(c.reason ?? STANDING_LABEL[s]))}`,
  )
}

// Passed checks, one line per operation, ids wrapped.
function compactLines(checks: readonly CheckResult[], p: Palette): string[] {
  const groups = new Map<string, string[]>()
  for (const check of checks)
    groups.set(check.operationId, [...(groups.get(check.operationId) ?? []), visible(check.id)])
  const width = Math.max(...[...groups.keys()].map((k) => k.length))
  const lines: string[] = []
  for (const [operationId, ids] of groups) {
    const label = operationId.padEnd(width)
    let line = `  ${markOf('passed', p)} ${label}  `
    const continuation = ' '.repeat(4 + width + 2)
    let empty = true
    for (const id of ids) {
      const piece = empty ? id : `, ${id}`
      if (!empty && line.length + piece.length > 110) {
        lines.push(`${line},`)
        line = `${continuation}${id}`
      } else {
        line += piece
      }
      empty = false
    }
    lines.push(line)
  }
  return lines
}

const CELL_MARK: Record<CellOutcome, string> = {
  passed: '✓',
  failed: '✗',
  warned: '!',
  'not-provoked': '·',
  'not-applicable': ' ',
}

function matrixLines(run: RunResult, p: Palette): string[] {
  const matrix = matrixOf(run)
  if (!matrix.rows.length)
    return [p.bold('Documented responses provoked'), p.dim('  (the run did not get as far as measuring them)')]
  const width = Math.max(...matrix.rows.map((r) => r.operationId.length), 9)
  const paintCell = (outcome: CellOutcome, text: string) =>
    outcome === 'passed'
      ? p.green(text)
      : outcome === 'failed'
        ? p.red(text)
        : outcome === 'warned'
          ? p.yellow(text)
          : p.dim(text)
  const lines = [
    p.bold('Documented responses provoked'),
    `  ${''.padEnd(width)}  ${matrix.columns.map((c) => c.padEnd(4)).join(' ')}`.trimEnd(),
  ]
  for (const row of matrix.rows) {
    const cells = row.cells.map((cell) => paintCell(cell.outcome, CELL_MARK[cell.outcome].padEnd(4)))
    const extra = row.undocumented.map((cell) => paintCell(cell.outcome, `${cell.status} (undocumented)`)).join(' ')
    lines.push(`  ${row.operationId.padEnd(width)}  ${cells.join(' ')}${extra ? ` ${extra}` : ''}`.trimEnd())
  }
  const legend = (['passed', 'failed', 'warned', 'not-provoked'] as const).map(
    (o) => `${CELL_MARK[o]} ${CELL_LABEL[o]}`,
  )
  lines.push(p.dim(`  ${legend.join('  ')}`))
  const unprovokable = run.coverage.filter((c) => !c.seen && !c.provokable)
  if (unprovokable.length) {
    const names = unprovokable.map((c) => `${c.operationId} ${c.status}`).join(', ')
    lines.push(p.dim(`  not expected from a conformant target, so not counted as missing: ${names}`))
  }
  return lines
}

function checkDetails(run: RunResult, check: CheckResult, p: Palette, limit: BodyLimit): string[] {
  const s = standing(check, run.strict)
  const operation = check.operationId === 'all' ? 'all operations' : check.operationId
  const lines = [
    `${markOf(s, p)} ${p.bold(visible(check.id))} · ${operation} · ${check.severity} · ${STANDING_LABEL[s]}`,
    `  ${visible(check.title)}`,
  ]
  if (check.reason !== undefined && !check.findings.length) lines.push(`  ${visible(check.reason)}`)
  for (const finding of check.findings.slice(0, FINDINGS_SHOWN))
    lines.push('', ...findingLines(run, check, finding, p, limit))
  const more = moreFindingsLine(check, FINDINGS_SHOWN)
  if (more) lines.push('', p.dim(`  ${more}`))
  return lines
}

function findingLines(run: RunResult, check: CheckResult, finding: Finding, p: Palette, limit: BodyLimit): string[] {
  const operation = findingOperation(check, finding)
  const lines = indent(
    `${operation && operation !== check.operationId ? `${operation}: ` : ''}${visible(finding.message)}`,
    '  ',
  )
  for (const line of basisLines(check, finding)) lines.push(`    basis: ${visible(line)}`)
  if (finding.source === 'prism') lines.push(p.dim('    (reported by Prism)'))
  if (finding.counterexample !== undefined) lines.push(`    counterexample: ${visible(finding.counterexample)}`)
  const replay = replayOf(run, finding)
  if (replay) lines.push(p.dim(`    replays with ${visible(replay)}`))
  if (finding.exchange) lines.push(...indent(exchangeText(finding.exchange, limit, { brief: true }), '    ').map(p.dim))
  if (finding.curl) lines.push(`    reproduce: ${visible(finding.curl)}`)
  return lines
}

const indent = (text: string, by: string) => text.split('\n').map((l) => `${by}${l}`)
