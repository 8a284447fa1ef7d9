/**
 * The console report: failing checks first, each with its evidence; then warnings, then what could not be
 * judged, then the rest compactly; the verdict last. The lines while a run is under way are reporters/progress.ts's.
 */
import { stripVTControlCharacters } from 'node:util'
import {
  selectionText,
  standing,
  type CheckResult,
  type Finding,
  type RunResult,
  type Standing,
} from '../model/index.js'
import { markOf, palette, plain, type ConsoleOptions, type Paint, type Palette } from './palette.js'
import { CELL_LABEL, cellLabel, matrixOf, type CellOutcome } from './matrix.js'
import {
  basisLines,
  byteSize,
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
  requestLine,
  shortest,
  throttlingText,
  totalsLine,
  visible,
  wasThrottled,
} from './text.js'

/** `--verbose`: bodies whole, as the run kept them. */
const WHOLE = { chars: Number.MAX_SAFE_INTEGER, lines: Number.MAX_SAFE_INTEGER }

const firstLine = (text: string) => text.split('\n')[0] ?? ''

/** The widths the console keeps to: lines wrap within 80 columns, and no line is wider than 100. */
export const CONSOLE_WIDTH = { wrap: 80, max: 100 }

/** Lines a failing check takes at most in the console (its other findings are in the reports). */
export const CHECK_LINES = 20

/** The console report of a finished run: each failing check bounded, every line within 100 columns. */
export function toConsole(run: RunResult, { color, written = [], verbose = false }: ConsoleOptions): string {
  const p = palette(color)
  const out: string[] = ['']
  for (const notice of run.notices) out.push(...wrap(`Notice: ${visible(notice)}`, '', '  ').map(p.yellow))
  if (run.notices.length) out.push('')
  if (run.cannotRun) out.push(...cannotRunLines(run, p), '')

  const failing = checksIn(run, 'failed')
  const broken = checksIn(run, 'errors')
  const warned = checksIn(run, 'warned')
  const unjudged = checksIn(run, 'unjudged')
  const skipped = checksIn(run, 'skipped')
  const passed = checksIn(run, 'passed')
  const where = reportPointer(written)
  const details = (c: CheckResult) => checkDetails(run, c, p, verbose, where)
  section(out, failing, p.bold(p.red(`Failures (${failing.length}): the target breaks the interface`)), details)
  section(
    out,
    broken,
    p.bold(p.red(`Errors (${broken.length}): the kit broke, so these checks were not judged`)),
    details,
  )
  section(
    out,
    warned,
    p.bold(p.yellow(`Warnings (${warned.length}): good practice the interface does not require`)),
    details,
  )
  if (run.cannotRun && unjudged.length) out.push(p.yellow(`Not judged: all ${plural(unjudged.length, 'check')}`), '')
  else if (unjudged.length)
    out.push(p.bold(p.yellow(`Not judged (${unjudged.length})`)), ...reasonLines(unjudged, 'unjudged', p), '')
  if (skipped.length) out.push(p.bold(`Not applicable (${skipped.length})`), ...reasonLines(skipped, 'skipped', p), '')
  if (passed.length) out.push(...passedLines(passed, p, verbose), '')

  if (!run.cannotRun) out.push(...matrixLines(run, p))
  if (run.observations.length) out.push('', ...observationLines(run, p, verbose, where))
  if (run.runErrors.length) {
    out.push('', p.bold(p.red(`Errors outside any scenario (${run.runErrors.length})`)))
    for (const error of run.runErrors) out.push(...wrap(visible(error), '  ', '    ', 6))
  }

  out.push('', p.bold('Run'))
  const fact = (name: string, text: string, paint: Paint = plain) =>
    out.push(...wrap(text, `  ${name.padEnd(12)}`, ' '.repeat(14)).map(paint))
  fact(
    'target',
    `${visible(run.target.baseUrl)}${run.target.embedded ? ' (the embedded stub)' : ''}${run.viaPrism ? ', through Prism' : ''}`,
  )
  const selected = selectionText(run)
  if (selected) fact('selection', selected, p.yellow)
  fact('run id', visible(run.runId))
  fact('seed', `${run.seed} (${run.runs} runs per property)`)
  fact('records', `${run.recordsCreated} created of a budget of ${run.recordBudget}`)
  fact('requests', `${run.requestsSent} in ${formatDuration(run.durationMs)}`)
  fact('throttled', throttlingText(run), wasThrottled(run) ? p.yellow : plain)
  if (run.stopped !== undefined && !run.cannotRun) fact('stopped', visible(run.stopped), p.yellow)
  // A command to copy whole, on any platform: on the fact's line when it fits, else on a line of its own.
  const replay = replayCommand(run)
  out.push(...(14 + replay.length <= CONSOLE_WIDTH.max ? [`  replay      ${replay}`] : ['  replay', `  ${replay}`]))
  const note = replayNote(run)
  if (note) out.push(...wrap(`(${note})`, ' '.repeat(14), ' '.repeat(15)).map(p.dim))
  written.forEach((path, i) => out.push(`  ${i === 0 ? 'reports     ' : '            '}${visible(path)}`))
  out.push('', ...wrap(totalsLine(run), '', '  '), ...verdictLines(run, p))
  return out.join('\n') + '\n'
}

/** Why a run could not be done, what it tried and what the user can do: the first thing an exit 2 shows. */
function cannotRunLines(run: RunResult, p: Palette): string[] {
  const cannot = run.cannotRun!
  const lines = [p.bold(p.red('Could not run: no check was judged'))]
  lines.push(...wrap(visible(cannot.reason), '  ', '  ', 6))
  if (cannot.tried.length) {
    lines.push('', p.bold('  Tried'))
    for (const tried of cannot.tried) lines.push(...wrap(visible(tried), '    ', '      ', 3))
  }
  lines.push('', p.bold('  What to do'), ...wrap(visible(cannot.advice), '    ', '    ', 6))
  return lines
}

/** Where the rest of the evidence is, from the report files written: `report.html and report.json`. */
function reportPointer(written: readonly string[]): string {
  const names = written.map((path) => basename(path)).filter((name) => /\.(html|json|md)$/.test(name))
  return names.length ? names.join(' and ') : 'the JSON and HTML reports (--reporter html, json)'
}

const basename = (path: string) => path.split(/[\\/]/).at(-1) ?? path

// Passed checks: a count per operation, or (--verbose) every id, wrapped.
function passedLines(checks: readonly CheckResult[], p: Palette, verbose: boolean): string[] {
  const groups = new Map<string, string[]>()
  for (const check of checks)
    groups.set(check.operationId, [...(groups.get(check.operationId) ?? []), visible(check.id)])
  if (!verbose) {
    const counts = [...groups].map(([operationId, ids]) => `${operationId} ${ids.length}`).join(', ')
    return wrap(`${p.bold(`Passed (${checks.length})`)}: ${counts} (--verbose lists them)`, '', '  ')
  }
  const width = Math.max(...[...groups.keys()].map((k) => k.length))
  const lines = [p.bold(`Passed (${checks.length})`)]
  for (const [operationId, ids] of groups)
    lines.push(
      ...wrap(ids.join(', '), `  ${markOf('passed', p)} ${operationId.padEnd(width)}  `, ' '.repeat(width + 6)),
    )
  return lines
}

/** `Application/JSON -> 201 Pet`: the part of a behaviour that repeats the end of its subject, left out. */
export function withoutSubject(subject: string, behaviour: string): string {
  const arrow = behaviour.indexOf(' -> ')
  if (arrow <= 0) return behaviour
  return subject.endsWith(behaviour.slice(0, arrow)) ? behaviour.slice(arrow + 4) : behaviour
}

// What the target chose where the interface is silent: a count and where they are; every one with --verbose.
function observationLines(run: RunResult, p: Palette, verbose: boolean, where: string): string[] {
  const count = run.observations.length
  if (!verbose)
    return wrap(
      `${p.bold('Where the interface is silent')}, the target made ${plural(count, 'choice')}, recorded and never failed: see ${where}, or --verbose`,
      '',
      '  ',
    )
  const lines = [p.bold(`Where the interface is silent, the target chose (${count})`)]
  for (const o of run.observations) {
    const subject = visible(o.subject)
    lines.push(...wrap(`${subject}  →  ${visible(withoutSubject(o.subject, o.behaviour))}`, '  ', '      '))
  }
  return lines
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
  const line = `Verdict: ${visible(run.verdictLine)}`
  if (run.verdict === 'conformant') return wrap(line, '', '  ').map((l) => p.bold(p.green(l)))
  if (run.verdict === 'incomplete')
    return [line, ...wrap(visible(run.incomplete ?? 'incomplete'), '', '  ', 4)].map((l) => p.bold(p.yellow(l)))
  return wrap(line, '', '  ').map((l) => p.bold(p.red(l)))
}

function reasonLines(checks: readonly CheckResult[], s: Standing, p: Palette): string[] {
  return checks.flatMap((c) => [
    `  ${markOf(s, p)} ${visible(c.id)}`,
    ...wrap(visible(c.reason ?? STANDING_LABEL[s]), '      ', '      ', 2).map(p.dim),
  ])
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
  for (const cell of matrix.rows.flatMap((r) => r.cells).filter((c) => c.got?.length))
    lines.push(...wrap(`${cell.operationId} ${cellLabel(cell)}`, '  ✗ ', '    ').map(p.red))
  const unprovokable = run.coverage.filter((c) => !c.seen && !c.provokable)
  if (unprovokable.length) {
    const names = unprovokable.map((c) => `${c.operationId} ${c.status}`).join(', ')
    lines.push(p.dim(`  not expected from a conformant target, so not counted as missing: ${names}`))
  }
  return lines
}

function checkDetails(run: RunResult, check: CheckResult, p: Palette, verbose: boolean, where: string): string[] {
  const s = standing(check, run.strict)
  const operation = check.operationId === 'all' ? 'all operations' : check.operationId
  const lines = [
    ...wrap(
      `${markOf(s, p)} ${p.bold(visible(check.id))} · ${operation} · ${check.severity} · ${STANDING_LABEL[s]}`,
      '',
      '  ',
    ),
    ...wrap(visible(check.title), '  ', '  '),
  ]
  if (check.reason !== undefined && !check.findings.length) lines.push(...wrap(visible(check.reason), '  ', '  ', 3))
  if (verbose) {
    for (const finding of check.findings.slice(0, FINDINGS_SHOWN))
      lines.push('', ...findingLines(run, check, finding, p, true))
    const more = moreFindingsLine(check, FINDINGS_SHOWN)
    if (more) lines.push('', p.dim(`  ${more}`))
    return lines
  }
  // One finding in full, the one with the shortest exchange; the others by their message alone.
  const shown = shortest(check.findings)
  if (shown) lines.push(...findingLines(run, check, shown, p, false))
  const others = check.findings.filter((f) => f !== shown)
  for (const other of others.slice(0, 2))
    lines.push(...wrap(`also: ${firstLine(visible(other.message))}`, '  ', '    ', 1))
  const more = Math.max(0, others.length - 2) + (check.findingsLeftOut ?? 0)
  if (more) lines.push(p.dim(`  … ${plural(more, 'more finding')}: ${where}`))
  else if (others.length && shown?.exchange) lines.push(p.dim(`  their exchanges: ${where}`))
  return lines
}

function findingLines(run: RunResult, check: CheckResult, finding: Finding, p: Palette, verbose: boolean): string[] {
  const operation = findingOperation(check, finding)
  const message = `${operation && operation !== check.operationId ? `${operation}: ` : ''}${visible(finding.message)}`
  const lines = verbose ? indent(message, '  ') : wrap(message, '  ', '  ', 4)
  const basis = basisLines(check, finding)
  for (const line of verbose ? basis : basis.slice(0, 2)) lines.push(...wrap(visible(line), '    basis: ', '      ', 3))
  if (!verbose && basis.length > 2) lines.push(p.dim(`      (${basis.length - 2} more basis lines in the reports)`))
  if (finding.source === 'prism') lines.push(p.dim('    (reported by Prism)'))
  if (finding.counterexample !== undefined)
    lines.push(...wrap(visible(finding.counterexample), '    counterexample: ', '      ', 2))
  const replay = replayOf(run, finding)
  // The run's replay line (under Run) with the finding's seed: said as that, so no second long command is printed.
  if (replay && finding.seed !== undefined)
    lines.push(...wrap(`replays with --seed=${finding.seed} in the replay line below`, '    ', '      ').map(p.dim))
  if (finding.exchange)
    lines.push(
      ...(verbose
        ? indent(exchangeText(finding.exchange, WHOLE, { brief: true }), '    ')
        : briefExchange(finding.exchange)
      ).map(p.dim),
    )
  if (finding.curl) lines.push(...shellLines(visible(finding.curl), '    reproduce: ', '      '))
  return lines
}

/**
 * An exchange in a few lines: the request line and the start of its body, the status with its content type, and the
 * start of the response body; every line cut to the console's width (whole in the reports, or with --verbose).
 */
function briefExchange(exchange: Finding['exchange'] & object): string[] {
  const cut = (line: string) => cutLine(`    ${line}`, CONSOLE_WIDTH.max)
  const body = (mark: string, text: string, lines: number) => {
    const all = visible(text).split('\n')
    const shown = all.slice(0, lines).map((l) => cut(`${mark} ${l}`))
    if (all.length > lines)
      shown.push(
        `    ${mark} … ${all.length - lines} more lines, ${byteSize(Buffer.byteLength(text))} in all (--verbose prints it)`,
      )
    return shown
  }
  const out = [cut(`> ${visible(requestLine(exchange))}`)]
  if (exchange.request.body) out.push(...body('>', exchange.request.body, 2))
  if (!exchange.response) return [...out, cut(`! no response: ${visible(exchange.error ?? 'unknown transport error')}`)]
  const type = exchange.response.headers['content-type']
  out.push(cut(`< ${exchange.response.status} (${exchange.durationMs} ms)${type ? ` ${visible(type)}` : ''}`))
  if (exchange.response.rawBody !== '') out.push(...body('<', exchange.response.rawBody, 3))
  return out
}

/** A line no wider than `max` columns, `…` where it was cut. */
function cutLine(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`
}

/**
 * Text wrapped at spaces within 80 columns: the first line after `first`, the others after `rest`; a word too long
 * for the line gets one of its own, cut at 100 columns. At most `maxLines` lines, the last ending in `…`.
 */
export function wrap(text: string, first: string, rest: string, maxLines = Infinity): string[] {
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    let line = lines.length ? rest : first
    let empty = true
    for (const word of paragraph.split(' ')) {
      const width = visibleLength(line) + (empty ? 0 : 1) + visibleLength(word)
      if (!empty && width > CONSOLE_WIDTH.wrap) {
        lines.push(line)
        line = rest + word
      } else line += (empty ? '' : ' ') + word
      empty = false
    }
    lines.push(line)
  }
  const cut = lines.map((l) => (visibleLength(l) > CONSOLE_WIDTH.max ? cutLine(l, CONSOLE_WIDTH.max) : l))
  if (cut.length <= maxLines) return cut
  return [...cut.slice(0, maxLines - 1), `${cutLine(cut[maxLines - 1]!, CONSOLE_WIDTH.max - 2)} …`]
}

// Columns a line takes on a terminal: its colour codes take none.
const visibleLength = (text: string) => stripVTControlCharacters(text).length

/**
 * A shell command in lines of at most 80 columns (100 for one long word), continued with ` \`: still one command
 * when pasted. Words are split at spaces outside quotes; an option keeps its argument on its line.
 */
export function shellLines(command: string, first: string, rest: string): string[] {
  const words = command.match(/(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [command]
  const pieces: string[] = []
  for (const word of words) {
    const last = pieces.at(-1)
    // An option and its argument stay together (`-H 'Content-Type: ...'`, `--data-raw '{...}'`).
    if (last !== undefined && /^--?[A-Za-z][\w-]*$/.test(last) && !word.startsWith('-'))
      pieces[pieces.length - 1] = `${last} ${word}`
    else pieces.push(word)
  }
  const lines: string[] = []
  let line = first
  let empty = true
  for (const piece of pieces) {
    if (!empty && visibleLength(line) + 1 + piece.length + 2 > CONSOLE_WIDTH.wrap) {
      lines.push(`${line} \\`)
      line = rest + piece
    } else line += (empty ? '' : ' ') + piece
    empty = false
  }
  lines.push(line)
  if (lines.every((l) => visibleLength(l) <= CONSOLE_WIDTH.max)) return lines
  // One word wider than a line (a long body): the command is in the reports whole.
  return [
    `${first}${cutLine(command, CONSOLE_WIDTH.max - first.length - 1)}`,
    `${rest}(whole in report.md and report.json)`,
  ]
}

const indent = (text: string, by: string) => text.split('\n').map((l) => `${by}${l}`)
