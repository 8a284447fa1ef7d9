// Made-up scenarios for reporters/vitest-run.e2e.test.ts: they record what the suite's scenarios record, in
// task meta, without a target. One fails a check (and is not itself failed), one only warns, one breaks
// before recording, one echoes the key.
import { it } from 'vitest'
import type { CheckResult, ScenarioRecord } from '../../../model/index.js'
import { check } from '../results.js'

const KEY = process.env.SAMPLE_KEY ?? 'no-key'
const record = (scenario: string, checks: CheckResult[], over: Partial<ScenarioRecord> = {}): ScenarioRecord => ({
  scenario,
  checks,
  observations: [],
  statusesSeen: [],
  requestsSent: 2,
  recordsCreated: 1,
  ...over,
})

it('listPets: limit', ({ task }) => {
  task.meta.conformance = record('listPets: limit', [check('listPets.limit.max')])
})

it('listPets: filter', ({ task }) => {
  const finding = {
    checkId: 'listPets.filter.status',
    operationId: 'listPets' as const,
    severity: 'fail' as const,
    source: 'suite' as const,
    message: `a sold pet in a list filtered by status=pending (the target said ${KEY})`,
  }
  task.meta.conformance = record('listPets: filter', [
    check('listPets.filter.status', { outcome: 'failed', findings: [finding] }),
  ])
})

it('getPet: deprecation', ({ task }) => {
  const finding = {
    checkId: 'getPet.deprecation.sunset',
    severity: 'advice' as const,
    source: 'suite' as const,
    message: 'no Sunset header',
  }
  task.meta.conformance = record('getPet: deprecation', [
    check('getPet.deprecation.sunset', {
      operationId: 'getPet',
      severity: 'advice',
      outcome: 'failed',
      findings: [finding],
    }),
  ])
})

it('getPet: ids', () => {
  const pet = undefined as unknown as { id: bigint }
  return pet.id
})

it('the run as a whole', ({ task }) => {
  task.meta.conformance = record('the run as a whole', [], {
    requestsSent: 0,
    recordsCreated: 0,
    coverage: [{ operationId: 'listPets', status: '200', seen: true, provokable: true }],
  })
})
