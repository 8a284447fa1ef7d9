import { describe, expect, it } from 'vitest'
import { findNumber } from './conformance-cost.js'
import { resolveBenchConfig, UsageError } from './options.js'
import {
  formatGoals,
  formatNumber,
  formatRatio,
  formatTable,
  goalMet,
  mergeCells,
  percentile,
  ratio,
  type Cell,
} from './report.js'

describe('ratio', () => {
  it('divides, and gives undefined for a missing side or a zero denominator', () => {
    expect(ratio(30, 1.5)).toBe(20)
    expect(ratio(undefined, 2)).toBeUndefined()
    expect(ratio(2, undefined)).toBeUndefined()
    expect(ratio(2, 0)).toBeUndefined()
    expect(ratio(Number.NaN, 2)).toBeUndefined()
  })
})

describe('percentile', () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1) // 1..100

  it('takes the nearest rank', () => {
    expect(percentile(sorted, 0.5)).toBe(50)
    expect(percentile(sorted, 0.99)).toBe(99)
    expect(percentile(sorted, 1)).toBe(100)
    expect(percentile(sorted, 0)).toBe(1)
    expect(percentile([7], 0.99)).toBe(7)
  })

  it('is NaN without values', () => {
    expect(percentile([], 0.5)).toBeNaN()
  })
})

describe('goalMet', () => {
  it('honours each relation at and around the bound', () => {
    expect(goalMet({ name: 'r', value: 20, relation: '>=', bound: 20 })).toBe(true)
    expect(goalMet({ name: 'r', value: 19.99, relation: '>=', bound: 20 })).toBe(false)
    expect(goalMet({ name: 's', value: 1.5, relation: '<=', bound: 1.5 })).toBe(true)
    expect(goalMet({ name: 's', value: 1.51, relation: '<=', bound: 1.5 })).toBe(false)
    expect(goalMet({ name: 'p', value: 10, relation: '<', bound: 10 })).toBe(false)
    expect(goalMet({ name: 'p', value: 9.9, relation: '<', bound: 10 })).toBe(true)
    expect(goalMet({ name: 'n', value: undefined, relation: '<', bound: 10 })).toBeUndefined()
  })
})

describe('formatting', () => {
  it('writes numbers with separators or a few decimals', () => {
    expect(formatNumber(12345.6)).toBe('12,346')
    expect(formatNumber(123.4)).toBe('123')
    expect(formatNumber(12.34)).toBe('12.3')
    expect(formatNumber(1.234)).toBe('1.23')
    expect(formatNumber(3)).toBe('3')
    expect(formatNumber(undefined)).toBe('-')
    expect(formatRatio(21.5)).toBe('21.5x')
    expect(formatRatio(undefined)).toBe('-')
  })

  it('aligns text left and numbers right under a rule', () => {
    const table = formatTable(
      ['target', 'req/s'],
      [
        ['stub', '12,000'],
        ['Prism mock', '450'],
      ],
    )
    expect(table.split('\n')).toEqual([
      'target       req/s',
      '----------  ------',
      'stub        12,000',
      'Prism mock     450',
    ])
  })

  it('states every goal with its verdict, value and bound', () => {
    const text = formatGoals([
      { name: 'stub/Prism', value: 25, relation: '>=', bound: 20, unit: 'x' },
      { name: 'p99', value: 12, relation: '<', bound: 10, unit: 'ms' },
      { name: 'records', value: undefined, relation: '<=', bound: 250 },
    ])
    const lines = text.split('\n')
    expect(lines[2]).toMatch(/^MET\s+stub\/Prism\s+25 x\s+>= 20 x$/)
    expect(lines[3]).toMatch(/^MISSED\s+p99\s+12 ms\s+< 10 ms$/)
    expect(lines[4]).toMatch(/^NOT MEASURED\s+records\s+-\s+<= 250$/)
  })
})

describe('resolveBenchConfig', () => {
  it('fills every default', () => {
    expect(resolveBenchConfig([])).toEqual({
      duration: 10,
      warmup: 3,
      rounds: 2,
      connections: 50,
      bigStore: 1_000_000,
      grow: 1_000_000,
      growStep: 100_000,
      log: 'file',
      sections: ['matrix', 'scale', 'growth', 'conformance'],
    })
  })

  it('reads flags in both spellings and keeps the warm-up within a short duration', () => {
    const config = resolveBenchConfig(['--duration', '2', '--only=matrix,scale', '--grow', '5000', '--log', 'null'])
    expect(config).toMatchObject({
      duration: 2,
      warmup: 2,
      grow: 5000,
      growStep: 5000,
      log: 'null',
      sections: ['matrix', 'scale'],
    })
  })

  it('rejects what it does not know with a usage error', () => {
    expect(() => resolveBenchConfig(['--duration', '0'])).toThrow(UsageError)
    expect(() => resolveBenchConfig(['--connections', '1.5'])).toThrow(/positive integer/)
    expect(() => resolveBenchConfig(['--only', 'matrix,speed'])).toThrow(/unknown section speed/)
    expect(() => resolveBenchConfig(['--fast'])).toThrow(/Unknown option '--fast'/)
    expect(() => resolveBenchConfig(['--log', 'stderr'])).toThrow(/file or null/)
  })
})

describe('findNumber', () => {
  it('finds a numeric field at any depth and ignores other types', () => {
    const report = { summary: { requestsSent: '12' }, totals: [{ requestsSent: 340, recordsCreated: 12 }] }
    expect(findNumber(report, 'requestsSent')).toBe(340)
    expect(findNumber(report, 'recordsCreated')).toBe(12)
    expect(findNumber(report, 'durationMs')).toBeUndefined()
    expect(findNumber(null, 'x')).toBeUndefined()
  })
})

describe('mergeCells', () => {
  const cell = (latencies: number[], seconds: number, extra: Partial<Cell> = {}): Cell => ({
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: Number.NaN,
    p99: Number.NaN,
    non2xx: 0,
    errors: 0,
    statuses: { '200': latencies.length },
    cpu: { target: seconds / 2, bench: seconds / 4, others: 0 },
    latencies: Float64Array.from(latencies).sort(),
    ...extra,
  })

  it('adds totals and takes percentiles over every response of every run', () => {
    const merged = mergeCells([
      cell([1, 2, 3, 4], 1),
      cell([5, 6, 7, 8, 9, 10], 4, { non2xx: 1, statuses: { '200': 5, '404': 1 } }),
    ])
    expect(merged).toMatchObject({
      requests: 10,
      seconds: 5,
      rps: 2,
      p50: 5,
      p99: 10,
      non2xx: 1,
      statuses: { '200': 9, '404': 1 },
    })
    expect(merged.cpu).toEqual({ target: 2.5, bench: 1.25, others: 0 })
    expect(Array.from(merged.latencies)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  })

  it('keeps an unknown CPU figure unknown', () => {
    const unknown = cell([1], 1, { cpu: { target: undefined, bench: 1, others: undefined } })
    expect(mergeCells([cell([1], 1), unknown]).cpu.target).toBeUndefined()
  })
})
