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
  const rows = operations.map((operationId) => {
    const documented = run.coverage.filter((c) => c.operationId === operationId)
    const cells = columns.map((status): MatrixCell => {
      const coverage = documented.find((c) => c.status === status)
      if (!coverage) return { operationId, status, outcome: 'not-applicable', documented: false, provokable: false }
      const flag = flagged.get(`${operationId} ${status}`)
      const outcome: CellOutcome = flag ?? (coverage.seen ? 'passed' : 'not-provoked')
      return { operationId, status, outcome, documented: true, provokable: coverage.provokable }
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

/** Words for a cell, as the reports say them. */
export const CELL_LABEL: Record<CellOutcome, string> = {
  passed: 'passed',
  failed: 'failed',
  warned: 'warning',
  'not-provoked': 'not provoked',
  'not-applicable': 'not documented',
}
