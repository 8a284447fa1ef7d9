/**
 * A redirect through the real command, over loopback HTTP: a service whose router answers the documented paths with
 * a redirect to their trailing-slash spelling serves the interface, wrongly. The run is judged (exit 1), not refused
 * (exit 2), and the report names the status and the `Location` of each redirect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FaultName } from '../stub/index.js'
import type { ConformanceRun } from '../test-support/run-command.js'
import { judge } from '../test-support/up-front.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterAll)

const KEY = 'redirect-key-3e8d71'
const FLAGS = [
  '--runs',
  '5',
  '--seed',
  '1380555682',
  '--timeout',
  '2000',
  '--reporter',
  'json',
  '--reporter',
  'console',
]

const runs = new Map<FaultName, ConformanceRun>()

beforeAll(async () => {
  for (const fault of ['list-redirect', 'slash-redirect'] as FaultName[]) {
    const stub = await start({ stub: { apiKeys: [KEY], fault } })
    try {
      runs.set(fault, await judge(stub.url, KEY, FLAGS))
    } finally {
      await stub.close()
    }
  }
}, 10 * 60_000)

afterAll(() => runs.clear())

describe('a redirect answered to a documented operation, through the command', () => {
  it('GET /pets answered 301 Location: /v1/pets/: exit 1, the finding names the status and Location', () => {
    const run = runs.get('list-redirect')!
    expect(run.code, run.stderr).toBe(1)
    const check = run.report!.checks.find((c) => c.id === 'response.no-redirect')!
    expect(check.outcome).toBe('failed')
    expect(check.basis?.map((b) => b.ref)).toContain('#/paths/~1pets/get/responses')
    const finding = check.findings[0]!
    expect(finding.message).toMatch(
      /^GET \/pets\?limit=\d+ answered 301, a redirect to Location: \/v1\/pets\/\?limit=\d+;/,
    )
    expect(finding.exchange?.response?.status).toBe(301)
    expect(finding.exchange?.response?.headers['location']).toMatch(/^\/v1\/pets\/\?limit=\d+$/)
    expect(run.stdout).toMatch(/response\.no-redirect/)
    expect(run.stdout).toMatch(/answered 301, a redirect to Location: \/v1\/pets\//)
  })

  it('every documented GET answered 308 to its trailing-slash spelling: exit 1, getPet named too', () => {
    const run = runs.get('slash-redirect')!
    expect(run.code, run.stderr).toBe(1)
    const check = run.report!.checks.find((c) => c.id === 'response.no-redirect')!
    expect(check.outcome).toBe('failed')
    expect(
      check.findings.some((f) =>
        /^GET \/pets\/\d+ answered 308, a redirect to Location: \/v1\/pets\/\d+\//.test(f.message),
      ),
    ).toBe(true)
  })
})
