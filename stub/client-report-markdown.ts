/** The client report as Markdown, for a person (`Accept: text/markdown`, `--client-report FILE.md`). */
import type { ClientReport } from './client-report.js'

/**
 * The client's `text` as one inline code span, inert whatever it holds: a fence of one backtick more than its longest
 * run of them, and its line breaks made spaces (a blank line would end the span's list item, and what follows would be
 * read as Markdown or HTML: a request could put a heading, a link or a `<script>` in the report).
 */
export function codeSpan(text: string): string {
  const flat = text.replace(/[\r\n\u2028\u2029]/g, ' ')
  let longest = 0
  for (const run of flat.match(/`+/g) ?? []) longest = Math.max(longest, run.length)
  const fence = '`'.repeat(longest + 1)
  // A span that begins or ends with a backtick needs a space between it and the fence, which Markdown takes off again.
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : ''
  return fence + pad + flat + pad + fence
}

/** The report as Markdown, for a person. */
export function clientReportMarkdown(report: ClientReport): string {
  const lines = [
    '# Client report',
    '',
    `${report.requests} requests since ${report.since}; ${report.findings.length === 0 ? 'no finding' : `${report.findings.length} finding${report.findings.length === 1 ? '' : 's'}`}.`,
    '',
  ]
  if (report.findings.length) {
    lines.push('## Findings', '')
    for (const f of report.findings) {
      lines.push(
        `### ${f.operationId ? `${f.operationId}: ` : ''}${f.title}`,
        '',
        `- ${f.count} time${f.count === 1 ? '' : 's'}, first at ${f.firstSeen}`,
        `- example: ${codeSpan(`${f.example.method} ${f.example.target}`)}${Object.entries(f.example.headers)
          .map(([k, v]) => ` ${codeSpan(`${k}: ${v}`)}`)
          .join('')}${f.example.body ? ` body ${codeSpan(f.example.body)}` : ''}`,
        ...f.basis.map((b) => `- basis: ${b.text} (\`${b.ref}\`)`),
        '',
      )
    }
  }
  if (report.notExercised.length) {
    lines.push(
      '## Never exercised',
      '',
      'Documented answers the client never received (is the code that handles them tested?):',
      '',
    )
    for (const n of report.notExercised) lines.push(`- ${n.operationId} ${n.status}: ${n.hint}`)
    lines.push('')
  }
  return lines.join('\n')
}
