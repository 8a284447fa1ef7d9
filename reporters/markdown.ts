import { selectionText, standing, type CheckResult, type Finding, type RunResult } from '../model/index.js'
import { cellLabel, matrixOf, type CellOutcome } from './matrix.js'
import {
  basisLines,
  BODY_LIMIT,
  FINDINGS_SHOWN,
  STANDING_LABEL,
  checksIn,
  exchangeText,
  findingOperation,
  formatDuration,
  moreFindingsLine,
  replayCommand,
  replayNote,
  replayOf,
  throttlingText,
  visible,
  wasThrottled,
} from './text.js'

/** Markdown text with every character that could format, link or open HTML escaped; one line. */
export function markdownText(text: string): string {
  return visible(text)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`) // CommonMark lets any ASCII punctuation be escaped
    .replace(/:\/\//g, '\\://') // GitHub links bare URLs, `www.` names and e-mail addresses: the summary stays link-free
    .replace(/\bwww\./gi, (w) => `${w.slice(0, -1)}\\.`)
    .replace(/@/g, '\\@')
}

/** Text of the kit's own (titles, messages) with its `code` spans kept as code and the rest escaped. */
export function markdownInline(text: string): string {
  return visible(text)
    .split(/(`[^`\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? markdownCode(part.slice(1, -1)) : markdownText(part)))
    .join('')
}

/** An inline code span that holds any text, `|` escaped for table cells. */
export function markdownCode(text: string): string {
  const flat = visible(text).replace(/\s*\n\s*/g, ' ')
  const longestRun = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(longestRun + 1)
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat.startsWith(' ') ? ' ' : ''
  return `${fence}${pad}${flat}${pad}${fence}`.replace(/\|/g, '\\|')
}

/** A fenced block whose fence is longer than any backtick run inside it. */
export function markdownBlock(text: string, info = ''): string {
  const body = visible(text)
  const longestRun = Math.max(0, ...(body.match(/`{3,}/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(Math.max(3, longestRun + 1))
  return `${fence}${info}\n${body}\n${fence}`
}

const CELL_ICON: Record<CellOutcome, string> = {
  passed: '✅',
  failed: '❌',
  warned: '⚠️',
  'not-provoked': '⚪',
  'not-applicable': '',
}

/** The Markdown report, for a CI job summary: verdict, counts, matrix, failures with curl, observations. */
export function toMarkdown(run: RunResult): string {
  const failing = checksIn(run, 'failed')
  const broken = checksIn(run, 'errors')
  const warned = checksIn(run, 'warned')
  const unjudged = checksIn(run, 'unjudged')
  const icon = run.verdict === 'conformant' ? '✅' : run.verdict === 'incomplete' ? '⚠️' : '❌'
  const out: string[] = [
    `## ${icon} Pet Store conformance: ${markdownText(run.verdictLine)}`,
    '',
    ...(run.cannotRun ? cannotRunSection(run) : []),
    ...(run.incomplete !== undefined && !run.cannotRun ? [`**${markdownText(run.incomplete)}**`, ''] : []),
    ...(run.stopped !== undefined && run.verdict !== 'incomplete'
      ? [`**The run stopped early:** ${markdownText(run.stopped)}`, '']
      : []),
    ...(run.selection ? [`**A subset:** ${markdownText(selectionText(run)!)}`, ''] : []),
    `Target ${markdownCode(run.target.baseUrl)}${run.target.embedded ? ' (the embedded stub)' : ''}${run.viaPrism ? ', through Prism' : ''} · spec ${markdownText(run.specVersion)} · seed ${run.seed} · ${run.requestsSent} requests in ${formatDuration(run.durationMs)} · records created ${run.recordsCreated} of ${run.recordBudget}`,
    '',
    `${wasThrottled(run) ? '**Rate limited:**' : 'Rate limiting:'} ${markdownText(throttlingText(run))}`,
    '',
  ]
  for (const notice of run.notices) out.push(`> **Notice:** ${markdownInline(notice)}`, '')
  const t = run.totals
  out.push(
    '| Checks | Passed | Failed | Warnings | Not applicable | Not judged | Errors |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${t.checks} | ${t.passed} | ${t.failed} | ${t.warned} | ${t.skipped} | ${t.unjudged} | ${t.errors} |`,
    '',
    ...(run.cannotRun ? [] : matrixTable(run)),
  )
  if (failing.length) {
    out.push('', `### Failing checks`, '')
    for (const check of failing) out.push(...checkSection(run, check))
  }
  if (broken.length) {
    if (out.at(-1) !== '') out.push('')
    out.push('### Errors: the kit broke, so these checks were not judged', '')
    for (const check of broken) out.push(...checkSection(run, check))
  }
  if (warned.length) {
    if (out.at(-1) !== '') out.push('')
    out.push('### Warnings: good practice the interface does not require', '')
    for (const check of warned) out.push(...checkSection(run, check))
  }
  if (unjudged.length && !run.cannotRun) {
    if (out.at(-1) !== '') out.push('')
    out.push('### Not judged', '', '| Check | Operation | Why |', '| --- | --- | --- |')
    for (const c of unjudged)
      out.push(`| ${markdownCode(c.id)} | ${markdownText(c.operationId)} | ${markdownText(c.reason ?? 'not judged')} |`)
  }
  if (run.runErrors.length) {
    if (out.at(-1) !== '') out.push('')
    out.push('### Errors outside any scenario', '')
    for (const error of run.runErrors) out.push(markdownBlock(error), '')
  }
  if (run.observations.length) {
    if (out.at(-1) !== '') out.push('')
    out.push(
      '### Where the interface is silent, the target chose',
      '',
      '| Operation | Asked | The target chose |',
      '| --- | --- | --- |',
    )
    for (const o of run.observations) {
      out.push(
        `| ${o.operationId ? markdownText(o.operationId) : ''} | ${markdownCode(o.subject)} | ${markdownText(o.behaviour)} |`,
      )
    }
  }
  if (out.at(-1) !== '') out.push('')
  const note = replayNote(run)
  out.push(
    `Replay: ${markdownCode(replayCommand(run))}${note ? ` (${markdownText(note)})` : ''} · run ${markdownCode(run.runId)}`,
    '',
  )
  return out.join('\n')
}

// Why the run could not be done, what it tried and what the user can do: what a CI job summary shows for an exit 2.
function cannotRunSection(run: RunResult): string[] {
  const cannot = run.cannotRun!
  return [
    `**Could not run:** ${markdownText(cannot.reason)}`,
    '',
    ...(cannot.tried.length ? ['**Tried:**', '', ...cannot.tried.map((t) => `- ${markdownCode(t)}`), ''] : []),
    `**What to do:** ${markdownText(cannot.advice)}`,
    '',
    `No check was judged (${run.totals.checks} selected); the exit code is 2.`,
    '',
  ]
}

function matrixTable(run: RunResult): string[] {
  const matrix = matrixOf(run)
  const hasUndocumented = matrix.rows.some((r) => r.undocumented.length)
  const head = ['Operation', ...matrix.columns, ...(hasUndocumented ? ['Undocumented'] : [])]
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`]
  for (const row of matrix.rows) {
    const cells = row.cells.map((c) =>
      c.outcome === 'not-applicable' ? '–' : `${CELL_ICON[c.outcome]} ${cellLabel(c)}`,
    )
    const extra = hasUndocumented ? [row.undocumented.map((c) => `${CELL_ICON[c.outcome]} ${c.status}`).join(', ')] : []
    lines.push(`| ${markdownText(row.operationId)} | ${[...cells, ...extra].join(' | ')} |`)
  }
  return lines
}

function checkSection(run: RunResult, check: CheckResult): string[] {
  const s = standing(check, run.strict)
  const icon = s === 'warned' || s === 'errors' ? '⚠️' : '❌'
  const operation = check.operationId === 'all' ? 'all operations' : check.operationId
  const out = [
    `#### ${icon} ${markdownCode(check.id)} · ${markdownText(operation)} · ${check.severity} · ${STANDING_LABEL[s]}`,
    '',
    markdownInline(check.title),
    '',
  ]
  if (check.reason !== undefined && !check.findings.length) out.push(markdownText(check.reason), '')
  for (const finding of check.findings.slice(0, FINDINGS_SHOWN)) out.push(...findingLines(run, check, finding))
  const more = moreFindingsLine(check, FINDINGS_SHOWN)
  if (more) out.push(markdownText(more), '')
  return out
}

function findingLines(run: RunResult, check: CheckResult, finding: Finding): string[] {
  const operation = findingOperation(check, finding)
  const prefix = operation && operation !== check.operationId ? `${markdownText(operation)}: ` : ''
  const out = [`- ${prefix}${markdownInline(finding.message)}`]
  for (const line of basisLines(check, finding)) out.push(`  basis: ${markdownText(line)}`)
  if (finding.counterexample !== undefined) out.push(`  counterexample ${markdownCode(finding.counterexample)}`)
  const replay = replayOf(run, finding)
  if (replay) out.push(`  replays with ${markdownCode(replay)}`)
  out.push('')
  if (finding.curl) out.push(markdownBlock(finding.curl, 'sh'), '')
  if (finding.exchange) out.push(markdownBlock(exchangeText(finding.exchange, BODY_LIMIT, { brief: true })), '')
  return out
}
