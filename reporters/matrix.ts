import { compareText, standing, type RunResult } from '../model/index.js'
import { findingOperation } from './text.js'

/** How one documented response of one operation fared. */
export type CellOutcome = 'passed' | 'failed' | 'warned' | 'not-provoked' | 'not-applicable'

/** One cell of the conformance matrix. */
export interface MatrixCell {
  operationId: string
  /** A documented status, or a status the target answered that the operation does not document. */
  status: string
  outcome: CellOutcome
  documented: boolean
  /** False for a documented response that a conformant target may never give. */
  provokable: boolean
  /** For a documented response never seen: the statuses the target answered where a failing check asked for it. */
  got?: string[]
}

/** One operation's row: a cell per column, then the undocumented statuses it answered. */
export interface MatrixRow {
  operationId: string
  cells: MatrixCell[]
  undocumented: MatrixCell[]
}

/** The conformance matrix: operations against the documented statuses of any operation. */
export interface Matrix {
  columns: string[]
  rows: MatrixRow[]
}

/** Builds the matrix from the coverage and the findings of a run. */
export function matrixOf(run: RunResult): Matrix {
  const columns = [...new Set(run.coverage.map((c) => c.status))].sort(
    (a, b) => Number(a) - Number(b) || compareText(a, b),
  )
  const operations = [...new Set(run.coverage.map((c) => c.operationId))]
  const flagged = flaggedStatuses(run)
  const answeredInstead = askedFor(run)
  const rows = operations.map((operationId) => {
    const documented = run.coverage.filter((c) => c.operationId === operationId)
    const cells = columns.map((status): MatrixCell => {
      const coverage = documented.find((c) => c.status === status)
      if (!coverage) return { operationId, status, outcome: 'not-applicable', documented: false, provokable: false }
      const flag = flagged.get(`${operationId} ${status}`)
      const got = coverage.seen ? undefined : answeredInstead.get(`${operationId} ${status}`)
      // Asked for and answered otherwise: a failure of that response, not a response the run did not try for.
      const outcome: CellOutcome = flag ?? (coverage.seen ? 'passed' : got ? 'failed' : 'not-provoked')
      return {
        operationId,
        status,
        outcome,
        documented: true,
        provokable: coverage.provokable,
        ...(got ? { got } : {}),
      }
    })
    const undocumented = [...flagged.entries()]
      .filter(
        ([key]) => key.startsWith(`${operationId} `) && !documented.some((c) => key === `${operationId} ${c.status}`),
      )
      .map(([key, outcome]): MatrixCell => ({
        operationId,
        status: key.split(' ')[1]!,
        outcome,
        documented: false,
        provokable: false,
      }))
      .sort((a, b) => Number(a.status) - Number(b.status) || compareText(a.status, b.status))
    return { operationId, cells, undocumented }
  })
  return { columns, rows }
}

/** `operationId status` pairs that findings point at, as failed or (advice only) warned. */
function flaggedStatuses(run: RunResult): Map<string, 'failed' | 'warned'> {
  const flagged = new Map<string, 'failed' | 'warned'>()
  for (const check of run.checks) {
    const counted = standing(check, run.strict)
    if (counted !== 'failed' && counted !== 'warned') continue
    for (const finding of check.findings) {
      const status = finding.exchange?.response?.status
      const operationId = findingOperation(check, finding)
      if (status === undefined || operationId === undefined) continue
      const key = `${operationId} ${status}`
      if (counted === 'warned') {
        if (!flagged.has(key)) flagged.set(key, 'warned')
      } else {
        flagged.set(key, 'failed')
      }
    }
  }
  return flagged
}

/**
 * For each `operationId status` a failing check asked for (its basis names that response of that operation), the
 * other statuses its findings' exchanges got: `createPet 201` -> `200, 500`.
 */
function askedFor(run: RunResult): Map<string, string[]> {
  const got = new Map<string, Set<string>>()
  for (const check of run.checks) {
    if (standing(check, run.strict) !== 'failed') continue
    for (const finding of check.findings) {
      const operationId = findingOperation(check, finding)
      const answered = finding.exchange?.response?.status
      if (operationId === undefined || answered === undefined) continue
      for (const line of check.basis ?? []) {
        if (line.operationId !== operationId || line.status === undefined || line.status === String(answered)) continue
        const key = `${operationId} ${line.status}`
        got.set(key, (got.get(key) ?? new Set()).add(String(answered)))
      }
    }
  }
  return new Map([...got].map(([key, statuses]) => [key, [...statuses].sort(compareText)]))
}

/** `asked for 201, got 200` (or `got 200 and 500`): what a cell of a response asked for and never given says. */
export function cellLabel(cell: MatrixCell): string {
  if (cell.got?.length) {
    const got = cell.got.length === 1 ? cell.got[0] : `${cell.got.slice(0, -1).join(', ')} and ${cell.got.at(-1)}`
    return `asked for ${cell.status}, got ${got}`
  }
  return CELL_LABEL[cell.outcome]
}

/** Words for a cell, as the reports say them. */
export const CELL_LABEL: Record<CellOutcome, string> = {
  passed: 'passed',
  failed: 'failed',
  warned: 'warning',
  'not-provoked': 'not provoked',
  'not-applicable': 'not documented',
}
