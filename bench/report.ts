import type { CpuSpent } from './cpu.js'

/** What one load run against one target measured. */
export interface Cell {
  /** Responses received in the measured window. */
  requests: number
  seconds: number
  /** Responses per second over the measured window. */
  rps: number
  /** Latency percentiles in milliseconds, over every response. */
  p50: number
  p99: number
  non2xx: number
  /** Connection errors and timeouts. */
  errors: number
  /** Responses by HTTP status, e.g. `{ '200': 12000 }`. */
  statuses: Record<string, number>
  /** CPU seconds the target, the load generator and everything else spent in the measured window. */
  cpu: CpuSpent
  /** Every response's latency in ms, ascending, so that runs can be merged. */
  latencies: Float64Array
}

/** Responses per CPU second of the target: its cost per request, whatever else ran on the machine. */
export function perCpuSecond(cell: Cell | undefined): number | undefined {
  return cell?.cpu.target ? cell.requests / cell.cpu.target : undefined
}

/** A bench target to be met or explained. */
export interface Goal {
  name: string
  /** The measured value, or `undefined` when the bench could not measure it. */
  value: number | undefined
  /** `>=`: the value must reach the bound; `<=` / `<`: it must stay under it. */
  relation: '>=' | '<=' | '<'
  bound: number
  unit?: string
}

/** `a / b`, or `undefined` when either side is missing or `b` is zero. */
export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined || b === 0 || !Number.isFinite(a) || !Number.isFinite(b)) return undefined
  return a / b
}

/** The `q`-quantile (0..1) of ascending `sorted` values, nearest-rank; `NaN` for no values. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil(q * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

const sum = (values: (number | undefined)[]) =>
  values.some((v) => v === undefined) ? undefined : values.reduce<number>((a, b) => a + b!, 0)

/** One cell from several runs of the same target and workload: totals added, percentiles over all responses. */
export function mergeCells(cells: readonly Cell[]): Cell {
  if (cells.length === 1) return cells[0]!
  const latencies = new Float64Array(cells.reduce((n, c) => n + c.latencies.length, 0))
  let at = 0
  for (const cell of cells) {
    latencies.set(cell.latencies, at)
    at += cell.latencies.length
  }
  latencies.sort()
  const requests = cells.reduce((n, c) => n + c.requests, 0)
  const seconds = cells.reduce((n, c) => n + c.seconds, 0)
  const statuses: Record<string, number> = {}
  for (const cell of cells)
    for (const [status, count] of Object.entries(cell.statuses)) statuses[status] = (statuses[status] ?? 0) + count
  return {
    requests,
    seconds,
    rps: seconds > 0 ? requests / seconds : 0,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    non2xx: cells.reduce((n, c) => n + c.non2xx, 0),
    errors: cells.reduce((n, c) => n + c.errors, 0),
    statuses,
    cpu: {
      target: sum(cells.map((c) => c.cpu.target)),
      bench: cells.reduce((n, c) => n + c.cpu.bench, 0),
      others: sum(cells.map((c) => c.cpu.others)),
    },
    latencies,
  }
}

/** Whether a goal holds; `undefined` when it was not measured. */
export function goalMet(goal: Goal): boolean | undefined {
  if (goal.value === undefined || Number.isNaN(goal.value)) return undefined
  if (goal.relation === '>=') return goal.value >= goal.bound
  if (goal.relation === '<=') return goal.value <= goal.bound
  return goal.value < goal.bound
}

/** One line per goal: MET, MISSED or NOT MEASURED, with the value against its bound. */
export function formatGoals(goals: readonly Goal[]): string {
  const rows = goals.map((g) => {
    const met = goalMet(g)
    const unit = g.unit ? ` ${g.unit}` : ''
    const value = g.value === undefined ? '-' : `${formatNumber(g.value)}${unit}`
    return [
      met === undefined ? 'NOT MEASURED' : met ? 'MET' : 'MISSED',
      g.name,
      value,
      `${g.relation} ${formatNumber(g.bound)}${unit}`,
    ]
  })
  return formatTable(['verdict', 'target', 'measured', 'needed'], rows)
}

/** A number for a table: integers with thousands separators, small values with 2-3 significant decimals. */
export function formatNumber(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '-'
  if (!Number.isFinite(value)) return String(value)
  const abs = Math.abs(value)
  if (abs >= 1000 || Number.isInteger(value)) return Math.round(value).toLocaleString('en-US')
  if (abs >= 100) return value.toFixed(0)
  if (abs >= 10) return value.toFixed(1)
  return value.toFixed(2)
}

/** A ratio as `12.3x`, or `-` when it could not be computed. */
export function formatRatio(value: number | undefined): string {
  return value === undefined ? '-' : `${formatNumber(value)}x`
}

/** Plain-text table: a header, a rule, and rows; text columns left-aligned, numeric ones right-aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((r) => /^[-+]?[\d,.]+(x| ms| B| s)?$|^-$/.test(r[i] ?? '')),
  )
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}
