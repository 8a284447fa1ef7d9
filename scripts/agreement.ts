/**
 * The agreement table: for each fault of the stub, which of the suite's own checks caught it and which
 * violations Prism's validating proxy reported. Pure functions from run results to Markdown.
 */
import type { Finding, RunResult } from '../model/index.js'
import { violationIn } from '../suites/prism/index.js'

/** What one run against one stub (faulty or correct) showed. */
export interface AgreementRow {
  /** The fault's name, or `none` for the correct stub. */
  fault: string
  description: string
  /** Failing checks of the suite's own (severity fail), by id. */
  suite: string[]
  /** Advice checks of the suite's own that warned. */
  advice: string[]
  /** Prism's violations, as `code at location` with array indices generalised to `*`. */
  prism: string[]
  /** Why the run gave no result, when it did not. */
  error?: string
}

/** Plain code-unit order, the same on every machine. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const unique = (items: string[]) => [...new Set(items)].sort(byText)

/** One label per kind of Prism violation: `enum at response.body.*.status`, `status not documented (Warning)`. */
export function prismLabel(finding: Pick<Finding, 'checkId' | 'message'>): string {
  const violation = violationIn(finding.message)
  if (!violation) return finding.message
  if (finding.checkId === 'prism.response-status') return `status not documented (${violation.severity})`
  if (finding.checkId === 'prism.response-content-type') return 'media type not documented'
  const where = violation.where.replace(/\.\d+(?=\.|$)/g, '.*')
  return `${violation.code ?? violation.severity} at ${where}`
}

/** The row for one run. */
export function agreementRow(fault: string, description: string, run: RunResult): AgreementRow {
  const failed = run.checks.filter((c) => c.outcome === 'failed')
  const suite = failed.filter((c) => c.source === 'suite')
  const prismFindings = failed.filter((c) => c.source === 'prism').flatMap((c) => c.findings)
  return {
    fault,
    description,
    suite: unique(suite.filter((c) => c.severity === 'fail').map((c) => c.id)),
    advice: unique(suite.filter((c) => c.severity === 'advice').map((c) => c.id)),
    prism: unique(prismFindings.map(prismLabel)),
  }
}

/** Who caught the fault: both, one of them, or neither. */
export function verdict(row: AgreementRow): string {
  if (row.error) return 'no result'
  if (row.fault === 'none') return row.suite.length || row.prism.length ? 'false alarm' : 'both clean'
  if (row.suite.length && row.prism.length) return 'both'
  if (row.suite.length) return 'suite only'
  if (row.prism.length) return 'Prism only'
  return 'neither'
}

const cell = (items: string[]) => (items.length ? items.map((i) => `\`${i.replace(/\|/g, '\\|')}\``).join(', ') : '-')

/** The Markdown table, with a count of who caught what. */
export function agreementTable(rows: AgreementRow[]): string {
  const lines = [
    '| fault | what it breaks | caught by the suite (check ids) | caught by Prism (violations) | who |',
    '|---|---|---|---|---|',
    ...rows.map((r) => {
      const suite = r.error
        ? `run failed: ${r.error}`
        : cell(r.suite) + (r.advice.length ? ` (advice: ${cell(r.advice)})` : '')
      return `| \`${r.fault}\` | ${r.description.replace(/\|/g, '\\|')} | ${suite} | ${r.error ? '-' : cell(r.prism)} | ${verdict(r)} |`
    }),
  ]
  const faults = rows.filter((r) => r.fault !== 'none')
  const count = (v: string) => faults.filter((r) => verdict(r) === v).length
  const summary = `Of ${faults.length} faults: both caught ${count('both')}, the suite only ${count('suite only')}, Prism only ${count('Prism only')}, neither ${count('neither')}.`
  return `${lines.join('\n')}\n\n${summary}\n`
}
