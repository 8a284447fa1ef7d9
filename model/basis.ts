/** The basis a report shows beside one finding: the lines of its check's basis that speak of it. */
import { basisFor, type BasisLine } from '../spec/index.js'
import type { CheckResult, Finding } from './result.js'

/** The lines of a check's basis about one of its findings: its operation, and the status it got when a line names it. */
export function findingBasis(check: Pick<CheckResult, 'basis'>, finding: Finding): BasisLine[] {
  if (!check.basis?.length) return []
  return basisFor(check.basis, { operationId: finding.operationId, status: finding.exchange?.response?.status })
}
