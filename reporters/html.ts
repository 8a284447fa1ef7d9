import {
  selectionText,
  standing,
  type CheckResult,
  type Finding,
  type RunResult,
  type Standing,
} from '../model/index.js'
import { CELL_LABEL, cellLabel, matrixOf, type CellOutcome, type MatrixCell } from './matrix.js'
import {
  basisLines,
  STANDING_LABEL,
  checksIn,
  exchangeText,
  findingCount,
  findingOperation,
  formatDuration,
  moreFindingsLine,
  replayCommand,
  replayNote,
  replayOf,
  requestLine,
  responseSummary,
  shortest,
  throttlingText,
  visible,
} from './text.js'

/** How many findings of one check the HTML report shows (every one the run kept), and how much of each body. */
const HTML_FINDINGS_SHOWN = 10
const HTML_BODY_LIMIT = { chars: 10_000, lines: 200 }

/** Text made safe for HTML element content and attribute values; control characters shown, not sent. */
export function escapeHtml(text: string): string {
  return visible(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  )
}

const esc = escapeHtml

/** Text of the kit's own (titles, messages) with its `code` spans shown as code and everything escaped. */
export function inlineHtml(text: string): string {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? `<code>${esc(part.slice(1, -1))}</code>` : esc(part)))
    .join('')
}
const slug = (id: string) => id.replace(/[^A-Za-z0-9_.-]/g, '-')

const CELL_MARK: Record<CellOutcome, string> = {
  passed: '✓',
  failed: '✗',
  warned: '!',
  'not-provoked': '○',
  'not-applicable': '',
}

const STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg-soft: #f6f8fa;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9; --warn: #9a6700; --warn-bg: #fff8c5; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 24px; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 4px; } h4 { font-size: 13px; margin: 12px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
pre { background: var(--bg-soft); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: 4px 0; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 6px 10px; text-align: left; vertical-align: top; }
thead th { background: var(--bg-soft); font-weight: 600; }
.verdict { border-radius: 8px; padding: 16px 20px; margin-bottom: 16px; border: 1px solid; }
.verdict.conformant { background: var(--pass-bg); border-color: var(--pass); }
.verdict.non-conformant { background: var(--fail-bg); border-color: var(--fail); }
.verdict.incomplete { background: var(--warn-bg); border-color: var(--warn); }
.verdict p { margin: 4px 0 0; }
.verdict-line { font-size: 18px; font-weight: 600; }
.notice { background: var(--warn-bg); border-left: 4px solid var(--warn); padding: 8px 12px; margin: 8px 0; }
.totals { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; padding: 0; list-style: none; }
.totals li { border: 1px solid var(--line); border-radius: 6px; padding: 6px 14px; min-width: 110px; }
.totals b { display: block; font-size: 20px; }
table.matrix { width: auto; }
table.matrix td, table.matrix th { text-align: center; min-width: 76px; white-space: nowrap; }
table.matrix td.check-counts { text-align: left; white-space: normal; }
table.matrix th[scope=row] { text-align: left; }
.cell-passed { background: var(--pass-bg); color: var(--pass); font-weight: 600; }
.cell-failed { background: var(--fail-bg); color: var(--fail); font-weight: 600; }
.cell-warned { background: var(--warn-bg); color: var(--warn); font-weight: 600; }
.cell-not-provoked { background: repeating-linear-gradient(135deg, #fff, #fff 6px, var(--bg-soft) 6px, var(--bg-soft) 12px); color: var(--muted); }
.cell-not-applicable { background: #fff; color: var(--muted); }
.legend { color: var(--muted); font-size: 13px; }
.legend span { display: inline-block; padding: 1px 8px; margin-right: 6px; border: 1px solid var(--line); border-radius: 4px; }
.outcome { font-weight: 600; white-space: nowrap; }
.outcome-passed { color: var(--pass); } .outcome-failed, .outcome-errors { color: var(--fail); }
.outcome-warned, .outcome-unjudged { color: var(--warn); } .outcome-skipped { color: var(--muted); }
.reason { display: block; font-weight: normal; color: var(--muted); white-space: normal; }
.check { border: 1px solid var(--line); border-left: 4px solid var(--fail); border-radius: 6px; padding: 4px 16px 12px; margin: 12px 0; }
.check.warned, .check.errors { border-left-color: var(--warn); }
.finding { border-top: 1px dashed var(--line); margin-top: 12px; padding-top: 4px; }
.message { font-weight: 600; }
.muted { color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
details { margin: 8px 0; } summary { cursor: pointer; color: var(--muted); font-size: 13px; }
nav#index { border: 1px solid var(--line); border-radius: 6px; padding: 8px 16px; margin: 12px 0; }
ol.index { margin: 4px 0; padding-left: 20px; } .sections { margin: 4px 0; font-size: 14px; }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; }
`

/** The HTML report: one self-contained page, no scripts, no network resources. */
export function toHtml(run: RunResult): string {
  const body = [
    verdictBlock(run),
    cannotRunBlock(run),
    ...run.notices.map((n) => `<p class="notice" role="note"><strong>Notice:</strong> ${inlineHtml(n)}</p>`),
    run.stopped !== undefined && !run.cannotRun
      ? `<p class="notice" role="note"><strong>Stopped early:</strong> ${esc(run.stopped)}</p>`
      : '',
    totalsBlock(run),
    indexBlock(run),
    // What needs reading first comes first: failures and the kit's errors, before the matrix and every passing check.
    findingsBlock(run, 'failures', 'Failures', checksIn(run, 'failed')),
    findingsBlock(run, 'errors', 'Errors: the kit broke, so these checks were not judged', checksIn(run, 'errors')),
    run.cannotRun ? '' : matrixBlock(run),
    checksBlock(run),
    findingsBlock(run, 'warnings', 'Warnings: good practice the interface does not require', checksIn(run, 'warned')),
    notJudgedBlock(run),
    observationsBlock(run),
    runErrorsBlock(run),
    factsBlock(run),
    `<footer>${esc(run.tool.name)} ${esc(run.tool.version)}</footer>`,
  ]
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing in this page may load anything: bodies shown here come from the target under test.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>Pet Store conformance: ${esc(run.verdictLine.toLowerCase())} (${esc(run.target.baseUrl)})</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    ...body.filter(Boolean),
    '</body>',
    '</html>',
    '',
  ].join('\n')
}

// Why the run could not be done, what it tried and what the user can do.
function cannotRunBlock(run: RunResult): string {
  const cannot = run.cannotRun
  if (!cannot) return ''
  return [
    '<section id="could-not-run" class="check errors">',
    '<h2>Could not run: no check was judged</h2>',
    `<p class="message">${esc(cannot.reason)}</p>`,
    ...(cannot.tried.length ? ['<h4>Tried</h4>', `<pre>${esc(cannot.tried.join('\n'))}</pre>`] : []),
    '<h4>What to do</h4>',
    `<p>${esc(cannot.advice)}</p>`,
    '</section>',
  ].join('\n')
}

function verdictBlock(run: RunResult): string {
  const subset = run.selection ? esc(selectionText(run)!) : ''
  // The verdict line says it all for a failing run; the others say why (what was not judged) or what was.
  const detail =
    run.verdict === 'conformant'
      ? `${subset ? `${subset}: ` : ''}every ${run.selection ? 'selected ' : ''}check judged, none failed`
      : run.verdict === 'incomplete'
        ? esc((run.incomplete ?? 'incomplete').replace(/^incomplete: /, ''))
        : subset
  const target = `${esc(run.target.baseUrl)}${run.target.embedded ? ' (the embedded stub)' : ''}${run.viaPrism ? ', through Prism' : ''}`
  return [
    `<header class="verdict ${run.verdict}">`,
    '<h1>Pet Store conformance report</h1>',
    `<p class="verdict-line" data-verdict="${run.verdict}">Verdict: ${esc(run.verdictLine)}</p>`,
    ...(detail ? [`<p>${detail}</p>`] : []),
    `<p>Target <code>${target}</code> · spec ${esc(run.specVersion)} · seed ${run.seed}</p>`,
    '</header>',
  ].join('\n')
}

function totalsBlock(run: RunResult): string {
  const t = run.totals
  const items: [string, number, string][] = [
    ['checks', t.checks, 'checks'],
    ['passed', t.passed, 'passed'],
    ['failed', t.failed, 'failed'],
    ['warned', t.warned, 'warnings'],
    ['skipped', t.skipped, 'not applicable'],
    ['unjudged', t.unjudged, 'not judged'],
    ['errors', t.errors, 'errors'],
  ]
  const li = items.map(([key, n, label]) => `<li data-total="${key}" class="outcome-${key}"><b>${n}</b>${label}</li>`)
  return `<ul class="totals">\n${li.join('\n')}\n</ul>`
}

// What to read, at the top: each failing check (and warning, and check the kit broke on) linked to its evidence, and
// the sections below.
function indexBlock(run: RunResult): string {
  const entry = (check: CheckResult) => {
    const s = standing(check, run.strict)
    const count = findingCount(check)
    const operation = check.operationId === 'all' ? 'all operations' : esc(check.operationId)
    return `<li><a href="#check-${esc(slug(check.id))}"><code>${esc(check.id)}</code></a> <span class="muted">· ${operation} · ${count} finding${count === 1 ? '' : 's'} ·</span> <span class="outcome outcome-${s}">${STANDING_LABEL[s]}</span></li>`
  }
  const listed = [...checksIn(run, 'failed'), ...checksIn(run, 'errors'), ...checksIn(run, 'warned')]
  const sections = [
    ...(run.cannotRun ? [] : [['matrix', 'Documented responses']]),
    ['checks', 'Every check'],
    ...(checksIn(run, 'unjudged').length ? [['not-judged', 'Not judged']] : []),
    ['observations', 'Observed behaviour'],
    ['run', 'Run'],
  ]
  return [
    '<nav id="index" aria-label="Contents">',
    ...(listed.length ? [`<ol class="index">\n${listed.map(entry).join('\n')}\n</ol>`] : []),
    `<p class="sections">${sections.map(([id, label]) => `<a href="#${id}">${label}</a>`).join(' · ')}</p>`,
    '</nav>',
  ].join('\n')
}

function matrixBlock(run: RunResult): string {
  const matrix = matrixOf(run)
  const hasUndocumented = matrix.rows.some((r) => r.undocumented.length)
  const head = [
    '<th scope="col">Operation</th>',
    ...matrix.columns.map((c) => `<th scope="col">${esc(c)}</th>`),
    ...(hasUndocumented ? ['<th scope="col">Undocumented</th>'] : []),
    '<th scope="col">Checks</th>',
  ]
  const rows = matrix.rows.map((row) => {
    const extra = hasUndocumented ? [`<td class="undocumented">${row.undocumented.map(cellSpan).join(' ')}</td>`] : []
    const cells = [...row.cells.map(cellTd), ...extra, checkCountsTd(run, row.operationId)]
    return `<tr data-op="${esc(row.operationId)}"><th scope="row">${esc(row.operationId)}</th>${cells.join('')}</tr>`
  })
  const legend = (['passed', 'failed', 'warned', 'not-provoked', 'not-applicable'] as const)
    .map((o) => `<span class="cell-${o}">${CELL_MARK[o] || '–'} ${CELL_LABEL[o]}</span>`)
    .join('')
  const unprovokable = run.coverage.filter((c) => !c.provokable)
  const note = unprovokable.length
    ? `<p class="muted">A conformant target may never give ${unprovokable.map((c) => `${esc(c.operationId)} ${esc(c.status)}`).join(', ')}: the interface does not describe that case, so it is not counted as missing.</p>`
    : ''
  return [
    '<section id="matrix">',
    '<h2>Documented responses</h2>',
    '<p class="muted">Each operation against the statuses the spec documents: provoked with every check passing, provoked with a failure, or never provoked by this run.</p>',
    `<table class="matrix"><thead><tr>${head.join('')}</tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody></table>`,
    `<p class="legend">${legend}</p>`,
    note,
    '</section>',
  ]
    .filter(Boolean)
    .join('\n')
}

// Failures without a status (a timeout, a dropped connection) show here, so no failing row looks clean.
function checkCountsTd(run: RunResult, operationId: string): string {
  const counts: Record<Standing, number> = { passed: 0, failed: 0, warned: 0, skipped: 0, unjudged: 0, errors: 0 }
  for (const check of run.checks) if (check.operationId === operationId) counts[standing(check, run.strict)] += 1
  const parts = (['failed', 'errors', 'warned', 'unjudged', 'passed'] as const)
    .filter((s) => counts[s])
    .map((s) => `<span class="outcome outcome-${s}">${counts[s]} ${STANDING_LABEL[s]}</span>`)
  const href =
    counts.failed + counts.errors + counts.warned + counts.unjudged
      ? ` <a href="#checks-${esc(slug(operationId))}">details</a>`
      : ''
  return `<td class="check-counts" data-failed="${counts.failed}">${parts.join(', ') || '–'}${href}</td>`
}

function cellTitle(cell: MatrixCell): string {
  if (cell.outcome === 'not-applicable') return `${cell.operationId} does not document ${cell.status}`
  if (cell.outcome === 'not-provoked')
    return `${cell.operationId} ${cell.status} was not provoked${cell.provokable ? '' : ' (not expected from a conformant target)'}`
  return `${cell.operationId} ${cell.status}: ${cellLabel(cell)}`
}

function cellAttributes(cell: MatrixCell): string {
  return `data-op="${esc(cell.operationId)}" data-status="${esc(cell.status)}" data-outcome="${cell.outcome}" data-provokable="${cell.provokable}" title="${esc(cellTitle(cell))}"`
}

function cellTd(cell: MatrixCell): string {
  const text = cell.outcome === 'not-applicable' ? '–' : `${CELL_MARK[cell.outcome]} ${esc(cellLabel(cell))}`
  return `<td class="cell-${cell.outcome}" ${cellAttributes(cell)}>${text}</td>`
}

function cellSpan(cell: MatrixCell): string {
  return `<span class="cell-${cell.outcome}" ${cellAttributes(cell)}>${esc(cell.status)} ${CELL_MARK[cell.outcome]}</span>`
}

function checksBlock(run: RunResult): string {
  const groups = new Map<string, CheckResult[]>()
  for (const check of run.checks) groups.set(check.operationId, [...(groups.get(check.operationId) ?? []), check])
  const tables = [...groups].map(([operationId, checks]) => {
    const rows = checks.map((check) => {
      const s = standing(check, run.strict)
      const count = findingCount(check)
      const findings =
        count && s !== 'passed' && s !== 'skipped' && s !== 'unjudged'
          ? `<a href="#check-${esc(slug(check.id))}">${count}</a>`
          : String(count)
      const reason =
        check.reason !== undefined && s !== 'passed' ? `<span class="reason">${esc(check.reason)}</span>` : ''
      return `<tr data-check="${esc(check.id)}" data-outcome="${s}"><td><code>${esc(check.id)}</code></td><td>${inlineHtml(check.title)}</td><td>${check.severity}${check.source === 'prism' ? ' (Prism)' : ''}</td><td class="outcome outcome-${s}">${STANDING_LABEL[s]}${reason}</td><td>${check.exchanges}</td><td>${findings}</td></tr>`
    })
    return [
      `<h3 id="checks-${esc(slug(operationId))}">${operationId === 'all' ? 'All operations' : esc(operationId)}</h3>`,
      '<table class="checks"><thead><tr><th>Check</th><th>Property</th><th>Severity</th><th>Outcome</th><th>Exchanges</th><th>Findings</th></tr></thead>',
      `<tbody>\n${rows.join('\n')}\n</tbody></table>`,
    ].join('\n')
  })
  return ['<section id="checks">', '<h2>Checks</h2>', ...tables, '</section>'].join('\n')
}

function findingsBlock(run: RunResult, id: string, heading: string, checks: CheckResult[]): string {
  if (!checks.length) return ''
  const articles = checks.map((check) => {
    const s = standing(check, run.strict)
    // The finding with the shortest exchange in full; the others folded behind one toggle.
    const first = shortest(check.findings)
    const others = check.findings.filter((f) => f !== first).slice(0, HTML_FINDINGS_SHOWN - 1)
    const shown = [
      ...(first ? [findingHtml(run, check, first, true)] : []),
      ...(others.length
        ? [
            `<details class="more-findings"><summary>${others.length} more finding${others.length === 1 ? '' : 's'}</summary>`,
            ...others.map((f) => findingHtml(run, check, f, false)),
            '</details>',
          ]
        : []),
    ]
    const moreLine = moreFindingsLine(check, HTML_FINDINGS_SHOWN)
    const more = moreLine ? [`<p class="muted">${esc(moreLine)}</p>`] : []
    const reason =
      check.reason !== undefined && !check.findings.length ? [`<p class="muted">${esc(check.reason)}</p>`] : []
    const operation = check.operationId === 'all' ? 'all operations' : esc(check.operationId)
    return [
      `<article class="check ${s}" id="check-${esc(slug(check.id))}" data-check="${esc(check.id)}">`,
      `<h3><code>${esc(check.id)}</code> <span class="muted">· ${operation} · ${check.severity} ·</span> <span class="outcome outcome-${s}">${STANDING_LABEL[s]}</span></h3>`,
      `<p>${inlineHtml(check.title)}</p>`,
      ...reason,
      ...shown,
      ...more,
      '</article>',
    ].join('\n')
  })
  return [`<section id="${id}">`, `<h2>${esc(heading)} (${checks.length})</h2>`, ...articles, '</section>'].join('\n')
}

// The first finding of a check shows its exchange; later ones fold it away (no script: <details> does it).
function findingHtml(run: RunResult, check: CheckResult, finding: Finding, first: boolean): string {
  const operation = findingOperation(check, finding)
  const facts: string[] = []
  if (operation) facts.push(`<dt>Operation</dt><dd>${esc(operation)}</dd>`)
  const basis = basisLines(check, finding)
  // One cell for every line: a second <dd> would fall into the grid's first column.
  if (basis.length) facts.push(`<dt>Basis</dt><dd class="basis">${basis.map(esc).join('<br>')}</dd>`)
  if (finding.source === 'prism') facts.push('<dt>Reported by</dt><dd>Prism</dd>')
  if (finding.counterexample !== undefined)
    facts.push(`<dt>Counterexample</dt><dd><code>${esc(finding.counterexample)}</code></dd>`)
  const replay = replayOf(run, finding)
  if (replay) facts.push(`<dt>Replays with</dt><dd><code>${esc(replay)}</code></dd>`)
  return [
    '<div class="finding">',
    `<p class="message">${inlineHtml(finding.message)}</p>`,
    facts.length ? `<dl class="facts">${facts.join('')}</dl>` : '',
    finding.exchange
      ? `<details${first ? ' open' : ''}><summary>Exchange: ${esc(requestLine(finding.exchange))} → ${esc(responseSummary(finding.exchange))}</summary>\n<pre class="exchange">${esc(exchangeText(finding.exchange, HTML_BODY_LIMIT))}</pre></details>`
      : '',
    finding.curl ? `<h4>Reproduce</h4>\n<pre class="curl">${esc(finding.curl)}</pre>` : '',
    '</div>',
  ]
    .filter(Boolean)
    .join('\n')
}

function notJudgedBlock(run: RunResult): string {
  const checks = checksIn(run, 'unjudged')
  if (!checks.length) return ''
  const rows = checks.map(
    (c) =>
      `<tr data-check="${esc(c.id)}"><td><code>${esc(c.id)}</code></td><td>${esc(c.operationId)}</td><td>${esc(c.reason ?? 'not judged')}</td></tr>`,
  )
  return [
    '<section id="not-judged">',
    `<h2>Not judged (${checks.length})</h2>`,
    '<p class="muted">These checks apply to the target but the run did not judge them, so it cannot say "conformant".</p>',
    `<table class="not-judged"><thead><tr><th>Check</th><th>Operation</th><th>Why</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody></table>`,
    '</section>',
  ].join('\n')
}

function runErrorsBlock(run: RunResult): string {
  if (!run.runErrors.length) return ''
  return [
    '<section id="run-errors">',
    `<h2>Errors outside any scenario (${run.runErrors.length})</h2>`,
    ...run.runErrors.map((e) => `<pre class="run-error">${esc(e)}</pre>`),
    '</section>',
  ].join('\n')
}

function observationsBlock(run: RunResult): string {
  const rows = run.observations.map(
    (o) =>
      `<tr data-observation="${esc(o.id)}"><td>${esc(o.operationId ?? '')}</td><td><code>${esc(o.subject)}</code></td><td>${esc(o.behaviour)}</td><td><code>${esc(o.id)}</code></td></tr>`,
  )
  const table = rows.length
    ? `<table class="observations"><thead><tr><th>Operation</th><th>Asked</th><th>The target chose</th><th>Observation</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody></table>`
    : '<p class="muted">Nothing was observed.</p>'
  return [
    '<section id="observations">',
    '<h2>Observed behaviour</h2>',
    '<p class="muted">Where the interface is silent, an implementation may choose. These choices are recorded, never failed.</p>',
    table,
    '</section>',
  ].join('\n')
}

function factsBlock(run: RunResult): string {
  const facts: [string, string][] = [
    ['Target', `${run.target.baseUrl}${run.target.embedded ? ' (the embedded stub)' : ''}`],
    ...(run.stopped !== undefined ? [['Stopped early', run.stopped] as [string, string]] : []),
    ['Through Prism', run.viaPrism ? 'yes' : 'no'],
    ['Run id', run.runId],
    ['Seed', `${run.seed} (${run.runs} runs per property)`],
    ['Spec version', run.specVersion],
    ['Started', run.startedAt],
    ['Duration', formatDuration(run.durationMs)],
    ['Requests sent', String(run.requestsSent)],
    ['Throttled', throttlingText(run)],
    ...(run.selection ? [['Selection', selectionText(run)!] as [string, string]] : []),
    ['Records created', `${run.recordsCreated} of a budget of ${run.recordBudget}`],
    ['Strict', run.strict ? 'yes: advice counts as failure' : 'no: advice only warns'],
    ['Replay', replayCommand(run)],
  ]
  const note = replayNote(run)
  const items = facts.map(
    ([k, v]) =>
      `<dt>${esc(k)}</dt><dd>${k === 'Replay' ? `<code>${esc(v)}</code>${note ? `<br><span class="muted">${esc(note)}</span>` : ''}` : esc(v)}</dd>`,
  )
  return ['<section id="run">', '<h2>Run</h2>', `<dl class="facts">${items.join('')}</dl>`, '</section>'].join('\n')
}
