/**
 * The suite has teeth: run as a user runs it (the command, a child process) it passes the correct stub and
 * conformant targets that choose differently where the interface is silent, and fails every injected fault
 * with the check meant to catch it. Runs two commands at a time.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FAULTS, startStub, type FaultName } from '../stub/index.js'
import type { RunResult } from './model.js'
import { runCommand } from './test-support/run-command.js'
import { startVariant, type Variant } from './test-support/variant-target.js'

const KEY = 'teeth-key-8c1f0e'
const SEED = '20301205'
// Fewer runs than a default run: every fault below is caught by an example-based check or an early run.
const EFFORT = ['--runs', '10', '--timeout', '1000', '--seed', SEED, '--max-time', '600']

/** The check each fault must fail. */
const CAUGHT_BY: Record<FaultName, string> = {
  'list-wrapped': 'response.schema',
  'create-200': 'createPet.accepts-valid',
  'no-auth-list': 'listPets.auth.required',
  'no-auth-create': 'createPet.auth.required',
  'unauth-create-stores': 'createPet.auth.stores-nothing',
  'wrong-key-accepted': 'getPet.auth.required',
  'error-status-mismatch': 'error.status-echoed',
  'error-shape': 'response.schema',
  'limit-ignored': 'listPets.limit.max',
  'default-limit-50': 'listPets.limit.default',
  'limit-short': 'listPets.limit.fills',
  'limit-cap-50': 'listPets.limit.fills',
  'filter-ignored': 'listPets.status.filter',
  'id-missing': 'response.schema',
  'int64-precision': 'createPet.echo',
  'status-dropped': 'createPet.echo',
  'name-truncated': 'createPet.echo',
  'accepts-invalid-status': 'createPet.rejects-invalid',
  'missing-field-500': 'response.no-server-error',
  'create-not-stored': 'getPet.returns-created',
  'duplicate-ids': 'createPet.ids-unique',
  'text-content-type': 'response.content-type',
  'not-found-empty': 'response.schema',
  'get-wrong-pet': 'getPet.returns-created',
  hangs: 'transport.ok',
  'drops-connection': 'transport.ok',
}

/** Conformant targets that choose differently wherever the interface is silent. */
const VARIANTS: Record<string, Variant> = {
  'ids beyond 2^53, clamping, default status "available", newest first, extra fields': {
    ids: 'beyond-2^53',
    outOfRange: 'clamp',
    defaultStatus: 'available',
    order: 'descending',
    extraFields: true,
    headers: true,
  },
  'random ids, shuffled order, 3000 pets already there': { ids: 'random', order: 'shuffled', preexisting: 3000, outOfRange: 'clamp' },
  'empty at start, descending ids, default status "pending", no headers, lower-case scheme accepted': {
    ids: 'descending',
    defaultStatus: 'pending',
    caseInsensitiveScheme: true,
  },
  'rate-limited (429 with Retry-After), 150 pets already there': { rateLimitEvery: 97, preexisting: 150 },
}

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** What one command run left: its exit code, output, report and the checks that failed. */
interface Run {
  code: number
  stdout: string
  stderr: string
  report?: RunResult
  failed: string[]
  broken: string[]
  dir: string
}

/** Runs the command against `baseUrl` and reads the JSON report. */
async function conformance(baseUrl: string, extra: string[] = []): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'pcs-teeth-'))
  dirs.push(dir)
  const { code, stdout, stderr } = await runCommand(['--base-url', baseUrl, '--api-key', KEY, '--reporter', 'json', '--output-dir', dir, ...EFFORT, ...extra])
  let report: RunResult | undefined
  try {
    report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as RunResult
  } catch {
    report = undefined
  }
  const failed = (report?.checks ?? []).filter((c) => c.outcome === 'failed' && c.severity === 'fail').map((c) => c.id)
  const broken = (report?.checks ?? []).filter((c) => c.outcome === 'error').map((c) => `${c.id}: ${c.findings[0]?.message ?? ''}`)
  return { code, stdout, stderr, report, failed, broken, dir }
}

const CORRECT = 'the correct stub'
const ALL_REPORTERS = ['--reporter', 'console', '--reporter', 'junit', '--reporter', 'html', '--reporter', 'markdown']

/** Every target the teeth run against, by name: how to start it and the flags it adds. */
const TARGETS: [string, () => Promise<{ url: string; close(): Promise<void> }>, string[]][] = [
  [CORRECT, () => startStub({ apiKeys: [KEY] }), ALL_REPORTERS],
  ...(Object.keys(FAULTS) as FaultName[]).map((fault): (typeof TARGETS)[number] => [fault, () => startStub({ apiKeys: [KEY], fault }), []]),
  ...Object.entries(VARIANTS).map(([name, variant]): (typeof TARGETS)[number] => [name, () => startVariant(variant, KEY), []]),
]

const runs = new Map<string, Run>()

// The commands run up front, two at a time (each is a node process with vitest inside, on a 2-core
// machine), so that no test's timeout includes its wait for a turn.
beforeAll(async () => {
  const queue = [...TARGETS]
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [name, start, extra] = next
      const target = await start()
      try {
        runs.set(name, await conformance(target.url, extra))
      } finally {
        await target.close()
      }
    }
  }
  await Promise.all([worker(), worker()])
}, 1_200_000)

describe('teeth', () => {
  it('the correct stub passes, and the key appears in no output', () => {
    const run = runs.get(CORRECT)!
    expect(run.broken).toEqual([])
    expect(run.failed).toEqual([])
    expect(run.code, run.stderr).toBe(0)
    expect(run.report?.verdict).toBe('conformant')
    expect(run.report!.recordsCreated).toBeLessThanOrEqual(run.report!.recordBudget)
    expect(run.stdout + run.stderr).not.toContain(KEY)
    for (const file of readdirSync(run.dir)) expect(readFileSync(join(run.dir, file), 'utf8'), file).not.toContain(KEY)
    expect(run.stdout).toContain(`seed ${SEED}`)
  })

  it('maps every fault of the stub to a check', () => {
    expect(Object.keys(CAUGHT_BY).sort()).toEqual(Object.keys(FAULTS).sort())
  })

  for (const fault of Object.keys(FAULTS) as FaultName[]) {
    it(`fails the fault "${fault}" with ${CAUGHT_BY[fault]}`, () => {
      const run = runs.get(fault)!
      expect(run.broken).toEqual([])
      expect(run.failed).toContain(CAUGHT_BY[fault])
      expect(run.code, run.stderr).toBe(1)
      // Each finding shows the request (redacted) and how to replay it.
      const check = run.report!.checks.find((c) => c.id === CAUGHT_BY[fault])!
      for (const finding of check.findings) {
        expect(finding.exchange?.request.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/pets/)
        expect(finding.curl).toMatch(/^curl /)
      }
      if (fault === 'limit-ignored') {
        // The property shrinks to the smallest limit that shows the fault.
        expect(check.findings.map((f) => f.counterexample)).toContain('GET /pets?limit=1')
      }
    })
  }

  for (const name of Object.keys(VARIANTS)) {
    it(`passes a conformant target: ${name}`, () => {
      const run = runs.get(name)!
      expect(run.broken).toEqual([])
      expect(run.failed).toEqual([])
      expect(run.code, run.stderr).toBe(0)
    })
  }
})
