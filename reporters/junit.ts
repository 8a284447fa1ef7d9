/**
 * The JUnit report: one `<testcase>` per check (never per scenario), so one bug is one red line in CI.
 * A failure only when the check breaks conformance (`standing`), `<skipped>` for checks not applicable or not
 * judged, `<error>` where the kit broke, warnings as `<system-out>`. Pure, byte-stable, valid XML 1.0.
 */
import { standing, type CheckResult, type Finding, type RunResult, type Standing } from '../model/index.js'
import {
  basisLines,
  findingOperation,
  plural,
  replayCommand,
  replayNote,
  requestLine,
  responseSummary,
  visible,
} from './text.js'

/** Name of the one test suite, and of the whole file. */
export const JUNIT_SUITE = 'petstore-conformance'

// XML 1.0 cannot hold these even as character references: they are shown as `\uXXXX` text instead.
const XML_FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
const shown = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/** Text made safe for XML element content: markup escaped, characters XML 1.0 forbids shown as `\uXXXX`. */
export function xmlText(text: string): string {
  return visible(text)
    .replace(XML_FORBIDDEN, shown)
    .replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'))
}

/** Text made safe for a double-quoted attribute; line breaks and tabs kept as character references. */
export function xmlAttribute(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;')
}

const attributes = (pairs: [string, string | number][]) =>
  pairs.map(([k, v]) => ` ${k}="${xmlAttribute(String(v))}"`).join('')
const property = (name: string, value: string | number | boolean) =>
  `<property${attributes([
    ['name', name],
    ['value', String(value)],
  ])}/>`

// An attribute shows the first line of a message, briefly; the element's text holds the whole evidence.
const MESSAGE_ATTRIBUTE = 300
function brief(text: string): string {
  const line = text.split('\n')[0] ?? ''
  return line.length > MESSAGE_ATTRIBUTE ? `${line.slice(0, MESSAGE_ATTRIBUTE)}…` : line
}

/** The JUnit XML of a run. */
export function toJunit(run: RunResult): string {
  const counts: Record<Standing, number> = { passed: 0, failed: 0, warned: 0, skipped: 0, unjudged: 0, errors: 0 }
  for (const check of run.checks) counts[standing(check, run.strict)] += 1
  const totals = {
    tests: run.checks.length,
    failures: counts.failed,
    errors: counts.errors,
    skipped: counts.skipped + counts.unjudged,
    time: (run.durationMs / 1000).toFixed(3),
  }
  const totalAttributes: [string, string | number][] = [
    ['tests', totals.tests],
    ['failures', totals.failures],
    ['errors', totals.errors],
    ['skipped', totals.skipped],
    ['time', totals.time],
  ]
  const note = replayNote(run)
  const properties: [string, string | number | boolean][] = [
    ['verdict', run.verdict],
    ['verdict-line', run.verdictLine],
    ...(run.selection
      ? ([
          ['checks-selected', run.selection.selected],
          ['checks-not-run', run.selection.catalogue - run.selection.selected],
        ] as [string, number][])
      : []),
    ...(run.cannotRun
      ? ([
          ['could-not-run', run.cannotRun.reason],
          ['tried', run.cannotRun.tried.join('\n')],
          ['what-to-do', run.cannotRun.advice],
        ] as [string, string][])
      : []),
    ...(run.incomplete !== undefined ? [['incomplete', run.incomplete] as [string, string]] : []),
    ...(run.stopped !== undefined ? [['stopped', run.stopped] as [string, string]] : []),
    ['target', run.target.baseUrl],
    ['embedded', run.target.embedded],
    ['via-prism', run.viaPrism],
    ['run-id', run.runId],
    ['seed', run.seed],
    ['runs', run.runs],
    ['strict', run.strict],
    ['spec-version', run.specVersion],
    ['requests-sent', run.requestsSent],
    ['records-created', run.recordsCreated],
    ['throttled-429', run.throttling.status429],
    ['throttled-503', run.throttling.status503],
    ['waited-ms', run.throttling.waitedMs],
    ['longest-wait-ms', run.throttling.longestWaitMs],
    ['record-budget', run.recordBudget],
    ['replay', replayCommand(run)],
    ...(note ? [['replay-note', note] as [string, string]] : []),
  ]
  const systemErr = [
    ...(run.cannotRun
      ? [
          `could not run: ${run.cannotRun.reason}`,
          ...run.cannotRun.tried.map((t) => `tried: ${t}`),
          `what to do: ${run.cannotRun.advice}`,
        ]
      : run.incomplete !== undefined
        ? [run.incomplete]
        : []),
    ...(run.stopped !== undefined && run.verdict !== 'incomplete' ? [`stopped early: ${run.stopped}`] : []),
    ...run.runErrors.map((e) => `error outside any scenario: ${e}`),
  ]
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes([['name', JUNIT_SUITE], ...totalAttributes])}>`,
    `  <testsuite${attributes([['name', JUNIT_SUITE], ...totalAttributes, ['timestamp', run.startedAt]])}>`,
    '    <properties>',
    ...properties.map(([name, value]) => `      ${property(name, value)}`),
    '    </properties>',
    ...run.checks.flatMap((check) => testcase(run, check)),
    ...(systemErr.length ? [`    <system-err>${xmlText(systemErr.join('\n'))}</system-err>`] : []),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}

function testcase(run: RunResult, check: CheckResult): string[] {
  const s = standing(check, run.strict)
  const head = `    <testcase${attributes([
    ['classname', check.operationId],
    ['name', check.id],
  ])}>`
  const properties = [
    '      <properties>',
    ...(
      [
        ['id', check.id],
        ['operation', check.operationId],
        ['severity', check.severity],
        ['source', check.source],
        // A warning is no failure: its outcome says so, as its standing does.
        ['outcome', s === 'warned' ? 'warned' : check.outcome],
      ] as const
    ).map(([name, value]) => `        ${property(name, value)}`),
    '      </properties>',
  ]
  const body: string[] = []
  const first = check.findings[0]?.message ?? check.reason ?? check.title
  const summary = `${plural(findingCount(check), 'finding')}: ${brief(first)}`
  if (s === 'failed') {
    body.push(
      `      <failure${attributes([
        ['message', summary],
        ['type', check.severity],
      ])}>${xmlText(evidence(check))}</failure>`,
    )
  } else if (s === 'errors') {
    body.push(
      `      <error${attributes([
        ['message', brief(check.reason ?? first)],
        ['type', 'error'],
      ])}>${xmlText(evidence(check))}</error>`,
    )
  } else if (s === 'skipped' || s === 'unjudged') {
    body.push(
      `      <skipped${attributes([['message', check.reason ?? (s === 'skipped' ? 'not applicable' : 'not judged')]])}/>`,
    )
  } else if (s === 'warned') {
    body.push(
      `      <system-out>${xmlText(`warning (${check.severity}, not required by the interface): ${evidence(check)}`)}</system-out>`,
    )
  }
  return [head, ...properties, ...body, '    </testcase>']
}

const findingCount = (check: CheckResult) => check.findings.length + (check.findingsLeftOut ?? 0)

/** Each finding's message, request line, response and curl line: what a CI page shows of a failure. */
function evidence(check: CheckResult): string {
  const lines = [check.title]
  if (check.reason !== undefined) lines.push(check.reason)
  check.findings.forEach((finding, i) => lines.push('', ...findingText(check, finding, i + 1)))
  if (check.findingsLeftOut)
    lines.push('', `… ${plural(check.findingsLeftOut, 'more distinct finding')} not kept (evidence is bounded)`)
  return lines.join('\n')
}

function findingText(check: CheckResult, finding: Finding, n: number): string[] {
  const operation = findingOperation(check, finding)
  const lines = [`${n}. ${operation && operation !== check.operationId ? `${operation}: ` : ''}${finding.message}`]
  for (const line of basisLines(check, finding)) lines.push(`   basis: ${line}`)
  if (finding.source === 'prism') lines.push('   (reported by Prism)')
  if (finding.counterexample !== undefined) lines.push(`   counterexample: ${finding.counterexample}`)
  if (finding.seed !== undefined)
    lines.push(`   seed: ${finding.seed}${finding.path !== undefined ? `, path: ${finding.path}` : ''}`)
  if (finding.exchange)
    lines.push(`   request: ${requestLine(finding.exchange)}`, `   response: ${responseSummary(finding.exchange)}`)
  if (finding.curl) lines.push(`   reproduce: ${finding.curl}`)
  return lines
}
