import { describe, expect, it } from 'vitest'
import type { CheckResult, RunResult } from '../model/index.js'
import { parseViolations } from '../suites/prism/index.js'
import { agreementRow, agreementTable, prismLabel, verdict } from './agreement.js'

const exchange = {
  request: { method: 'GET', url: 'http://127.0.0.1:1/v1/pets', headers: {} },
  response: { status: 200, headers: {}, rawBody: '{}' },
  durationMs: 1,
}
const header = JSON.stringify([
  {
    location: ['response', 'body', '0', 'status'],
    severity: 'Error',
    code: 'enum',
    message: 'Response body property 0.status must be equal to one of the allowed values',
  },
  {
    location: ['response', 'body', '3', 'status'],
    severity: 'Error',
    code: 'enum',
    message: 'Response body property 3.status must be equal to one of the allowed values',
  },
  {
    location: ['response'],
    severity: 'Warning',
    message: 'Unable to match the returned status code with those defined in the document: 200,400,401',
  },
])

function check(
  id: string,
  source: 'suite' | 'prism',
  outcome: CheckResult['outcome'],
  severity: CheckResult['severity'] = 'fail',
  findings: CheckResult['findings'] = [],
): CheckResult {
  return { id, title: id, operationId: 'all', severity, source, outcome, findings, exchanges: 1 }
}

function runWith(checks: CheckResult[]): RunResult {
  return { checks } as RunResult // the row reads only the checks
}

describe('agreementRow', () => {
  it("lists the suite's failing checks, its advice apart, and one label per kind of Prism violation", () => {
    const prismFindings = parseViolations(header, exchange)
    const row = agreementRow(
      'filter-ignored',
      'ignores the filter',
      runWith([
        check('list-filtered', 'suite', 'failed'),
        check('sunset-header', 'suite', 'failed', 'advice'),
        check('response-schema', 'suite', 'passed'),
        check('limit-observed', 'suite', 'failed', 'observed'),
        check(
          'prism.response-body',
          'prism',
          'failed',
          'fail',
          prismFindings.filter((f) => f.checkId === 'prism.response-body'),
        ),
        check(
          'prism.response-status',
          'prism',
          'failed',
          'fail',
          prismFindings.filter((f) => f.checkId === 'prism.response-status'),
        ),
      ]),
    )
    expect(row).toEqual({
      fault: 'filter-ignored',
      description: 'ignores the filter',
      suite: ['list-filtered'],
      advice: ['sunset-header'],
      prism: ['enum at response.body.*.status', 'status not documented (Warning)'],
    })
    expect(verdict(row)).toBe('both')
  })

  it('tells apart who caught a fault, and a false alarm on the correct stub', () => {
    const row = (fault: string, suite: string[], prism: string[]) => ({
      fault,
      description: '',
      suite,
      advice: [],
      prism,
    })
    expect(verdict(row('x', ['a'], []))).toBe('suite only')
    expect(verdict(row('x', [], ['b']))).toBe('Prism only')
    expect(verdict(row('x', [], []))).toBe('neither')
    expect(verdict(row('none', [], []))).toBe('both clean')
    expect(verdict(row('none', [], ['b']))).toBe('false alarm')
  })
})

describe('agreementTable', () => {
  it('writes one Markdown row per run, escapes pipes, and counts who caught what', () => {
    const table = agreementTable([
      { fault: 'none', description: 'the correct stub', suite: [], advice: [], prism: [] },
      {
        fault: 'list-wrapped',
        description: 'answers {"pets": [...]} | not an array',
        suite: ['response-schema'],
        advice: [],
        prism: ['type at response.body'],
      },
      { fault: 'hangs', description: 'never answers', suite: [], advice: [], prism: [], error: 'target unreachable' },
    ])
    expect(table.split('\n').slice(0, 5)).toEqual([
      '| fault | what it breaks | caught by the suite (check ids) | caught by Prism (violations) | who |',
      '|---|---|---|---|---|',
      '| `none` | the correct stub | - | - | both clean |',
      '| `list-wrapped` | answers {"pets": [...]} \\| not an array | `response-schema` | `type at response.body` | both |',
      '| `hangs` | never answers | run failed: target unreachable | - | no result |',
    ])
    expect(table).toContain('Of 2 faults: both caught 1, the suite only 0, Prism only 0, neither 0.')
  })

  it('labels a message that is not a Prism violation as itself', () => {
    expect(prismLabel({ checkId: 'prism.response-body', message: 'something else' })).toBe('something else')
  })
})
