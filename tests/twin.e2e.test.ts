/**
 * A twin's fidelity, measured through the commands as a user runs them: the suite judges a service, the stub starts
 * `--like` its report.json, the suite judges the twin. The twin is conformant, at least 90% of what the suite
 * observed on the service (ids and sizes aside) it observes alike on the twin, and every other observation is named
 * in the stub's "not mimicked" list. Services that choose differently where the interface is silent: Express 5,
 * Fastify 5, Go net/http, FastAPI, and the independent implementation with random ids, newest first, clamping,
 * default status pending, extra fields, UPPER_CASE codes and only application/json.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { RunResult } from '../model/index.js'
import { compareObservations, type ReportData } from '../stub/index.js'
import {
  brokenChecks,
  failedChecks,
  runCommand,
  startCommand,
  type ConformanceRun,
} from '../test-support/run-command.js'
import { judge, runsUpFront } from '../test-support/up-front.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterAll)

const KEY = 'twin-key-3e91'
const FLAGS = ['--seed', '20261204', '--runs', '20', '--timeout', '30000', '--reporter', 'json']

interface Service {
  name: string
  start: () => Promise<{ url: string; close: () => Promise<void> }>
}

const SERVICES: Service[] = [
  { name: 'Express 5', start: () => start({ framework: 'Express 5', keys: [KEY] }) },
  { name: 'Fastify 5', start: () => start({ framework: 'Fastify 5', keys: [KEY] }) },
  { name: 'Go net/http', start: () => start({ stack: 'Go net/http', keys: [KEY] }) },
  { name: 'FastAPI + uvicorn', start: () => start({ stack: 'FastAPI + uvicorn', keys: [KEY] }) },
  {
    name: 'random ids, newest first, clamping, default pending, extra fields, UPPER codes, JSON only',
    start: () =>
      start({
        independent: {
          keys: [KEY],
          ids: 'random',
          order: 'newest',
          outOfRange: 'clamp',
          defaultStatus: 'pending',
          extraFields: true,
          errorCodes: 'upper',
          unknownFields: 'echo',
          badId: '400',
          mediaTypes: 'json-only',
        },
      }),
  },
]

interface Pair {
  service: ConformanceRun
  twin: ConformanceRun
  like: { notMimicked: { checkId: string; subject?: string }[] }
  banner: string
}

const scratch = mkdtemp(join(tmpdir(), 'petstore-twin-'))
afterAll(async () => rm(await scratch, { recursive: true, force: true }))
const pairs = new Map<string, Pair>()

const runOf = runsUpFront(
  SERVICES,
  (s) => s.name,
  async (s) => {
    const target = await s.start()
    let service: ConformanceRun
    try {
      service = await judge(target.url, KEY, FLAGS)
    } finally {
      await target.close()
    }
    if (!service.report) return service
    const file = join(await scratch, `${s.name.replace(/[^a-z0-9]+/gi, '-')}.json`)
    await writeFile(file, service.files['report.json']!)
    const stub = startCommand('stub', ['--like', file, '--port', '0', '--api-key', KEY, '--quiet'], {
      timeoutMs: 5 * 60_000,
    })
    try {
      const [, url] = await stub.waitFor(/listening on (http:\/\/\S+\/v1)/)
      const origin = url!.slice(0, -'/v1'.length)
      const like = (await (await fetch(`${origin}/__stub/like`)).json()) as Pair['like']
      const twin = await judge(url!, KEY, FLAGS)
      pairs.set(s.name, { service, twin, like, banner: stub.output().stdout })
      return twin
    } finally {
      stub.stop()
      await stub.exited
    }
  },
  2,
)

describe('the stub as a twin of a service, through both commands', () => {
  for (const { name } of SERVICES) {
    it(`${name}: the twin is conformant and observed alike (at least 90%), the rest named`, () => {
      runOf(name)
      const pair = pairs.get(name)!
      expect(pair.service.report?.verdict).toBe('conformant')
      expect(brokenChecks(pair.twin.report)).toEqual([])
      expect(failedChecks(pair.twin.report)).toEqual([])
      expect(pair.twin.code, pair.twin.stderr).toBe(0)
      const fidelity = compareObservations(
        pair.service.report as unknown as ReportData,
        pair.twin.report as unknown as ReportData,
      )
      expect(fidelity.total).toBeGreaterThan(40)
      expect(fidelity.unseen).toBeLessThan(fidelity.total / 4)
      expect(fidelity.ratio, JSON.stringify(fidelity.differences, null, 1)).toBeGreaterThanOrEqual(0.9)
      const named = (d: { checkId: string; subject: string }) =>
        pair.like.notMimicked.some(
          (n) => n.checkId === d.checkId && (n.subject === undefined || n.subject === d.subject),
        )
      expect(fidelity.differences.filter((d) => !named(d))).toEqual([])
      expect(pair.banner).toMatch(/^Like: the service at http:\/\/127\.0\.0\.1:\d+\/v1 /m)
    })
  }
})

describe('a report that cannot make a twin, and the client report at shutdown, through the command', () => {
  it('stops the start with one line and exit 2 on a report of an older kit or another spec revision', async () => {
    const older = join(await scratch, 'older.json')
    await writeFile(
      older,
      JSON.stringify({
        tool: { name: 'petstore-conformance', version: '0.9.1' },
        specVersion: '1.0.0',
        observations: [],
      }),
    )
    const run = await runCommand('stub', ['--like', older, '--port', '0'], { timeoutMs: 60_000 })
    expect(run.code).toBe(2)
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.stderr).toMatch(/written by petstore-conformance 0\.9\.1; this stub reads reports of 1\.0\.x/)
    const revision = join(await scratch, 'revision.json')
    await writeFile(
      revision,
      JSON.stringify({
        tool: { name: 'petstore-conformance', version: '1.0.0' },
        specVersion: '2.0.0',
        observations: [],
      }),
    )
    const other = await runCommand('stub', ['--like', revision, '--port', '0'], { timeoutMs: 60_000 })
    expect([other.code, other.stderr]).toEqual([
      2,
      expect.stringMatching(/judged version 2\.0\.0 of the interface; this stub serves 1\.0\.0/),
    ])
  })

  it('writes the client report to --client-report FILE when it stops', async () => {
    const file = join(await scratch, 'client-report.json')
    const stub = startCommand('stub', ['--port', '0', '--quiet', '--client-report', file], { timeoutMs: 60_000 })
    try {
      const [, url] = await stub.waitFor(/listening on (http:\/\/\S+\/v1)/)
      await (await fetch(`${url}/pets/1`, { headers: { authorization: 'Bearer petstore-dev-key' } })).text()
      await (await fetch(`${url}/pets?limit=500`, { headers: { authorization: 'Bearer petstore-dev-key' } })).text()
    } finally {
      stub.stop()
    }
    expect((await stub.exited).code).toBe(0)
    const report = JSON.parse(await readFile(file, 'utf8')) as { findings: { id: string; count: number }[] }
    expect(report.findings.map((f) => f.id)).toEqual(['deprecated-operation', 'limit-out-of-range'])
  })
})

export type { RunResult }
