/**
 * A verdict you can trust on a real staging environment, proven in-process through `runConformance` (the stub as a
 * Fetch handler, or on a loopback port where the edge matters): slow, throttled, closing, key-echoing and hostile
 * targets each end with the right verdict, every report complete and the key in none of them. Effort is kept small
 * (`runs: 2`) so this stays quick; the same targets through the real command, with the default effort, wall time
 * and peak memory, are in `staging.e2e.test.ts`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { afterEach, describe, expect, it } from 'vitest'
import { runConformance, type ConformanceOptions } from '../command/library.js'
import { UsageError } from '../command/usage-error.js'
import { keySecrets, Redactor, type RunResult } from '../model/index.js'
import { REPORT_FILES, toConsole, writeReports, WRITERS } from '../reporters/index.js'
import { createStub, type FaultName } from '../stub/index.js'
import { CHECKS } from '../suites/index.js'
import * as target from '../test-support/misbehaving.js'
import { skippedForState } from '../test-support/premises.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterEach)

// Mixed case, and characters that JSON, URLs and HTML each escape differently.
const KEY = 'Echo.Key-7f3A9c1D_e2~b8+Q'
const EFFORT = { seed: 424242, runs: 2, timeoutMs: 5000 } satisfies ConformanceOptions

const stub = (fault?: FaultName) => createStub({ apiKeys: [KEY], ...(fault ? { fault } : {}) }).fetch
const failed = (run: RunResult) =>
  run.checks.filter((c) => c.outcome === 'failed' && c.severity === 'fail').map((c) => c.id)
const notJudged = (run: RunResult) =>
  run.checks
    .filter((c) => c.outcome !== 'passed' && c.outcome !== 'failed' && !skippedForState(c))
    .map((c) => `${c.id}: ${c.outcome} (${c.reason ?? ''})`)

/** Every text the kit writes for a run: the console, and each report file as `writeReports` writes it. */
async function outputs(run: RunResult): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'staging-reports-'))
  try {
    const { errors } = await writeReports(run, Object.keys(WRITERS), dir, new Redactor(keySecrets(KEY)))
    expect(errors).toEqual([])
    const files: Record<string, string> = {
      console: toConsole(run, { color: false }),
      'result (as returned)': JSON.stringify(run),
    }
    for (const name of Object.values(REPORT_FILES)) files[name] = await readFile(join(dir, name), 'utf8')
    // The writers' own output, before the last redaction pass: the result they are given is already clean.
    for (const [format, write] of Object.entries(WRITERS)) files[`${format} (unredacted writer)`] = write(run)
    return files
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Every report complete: JSON parses back to the run, JUnit is well-formed XML with a testcase per check, HTML ends. */
function expectComplete(files: Record<string, string>, run: RunResult): void {
  expect((JSON.parse(files['report.json']!) as RunResult).verdict).toBe(run.verdict)
  expect(XMLValidator.validate(files['junit.xml']!)).toBe(true)
  const junit = new XMLParser({ ignoreAttributes: false }).parse(files['junit.xml']!) as Record<string, unknown>
  expect(JSON.stringify(junit)).toContain(run.checks[0]!.id)
  expect(files['report.html']!.trimEnd().endsWith('</html>')).toBe(true)
  expect(files['report.md']!.length).toBeGreaterThan(100)
  expect(files.console).toMatch(/conformant|NON-CONFORMANT|incomplete/i)
}

/** The key, in any case or escaping, in none of the outputs. */
function expectNoKey(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) expect(target.leaksOf(text, KEY), name).toEqual([])
}

describe('slow targets are judged fully', () => {
  it('a correct target answering every request late passes with every check judged; the same with `limit` ignored fails', async () => {
    // Side by side: both spend their time waiting. The 300 ms target with the default effort is in the e2e file.
    const [correct, limitIgnored] = await Promise.all([
      runConformance({ apiKey: KEY, fetch: target.slow(stub(), 25), ...EFFORT }),
      runConformance({ apiKey: KEY, fetch: target.slow(stub('limit-ignored'), 25), ...EFFORT }),
    ])
    expect(notJudged(correct)).toEqual([])
    expect(correct.checks.map((c) => c.id).sort()).toEqual(CHECKS.map((c) => c.id).sort())
    expect(correct.verdict).toBe('conformant')
    expect(failed(limitIgnored)).toContain('listPets.limit.max')
    expect(limitIgnored.verdict).toBe('non-conformant')
  })
})

describe('throttled and closing targets pass', () => {
  it('a correct target that answers 429 now and then (Retry-After 0, an HTTP-date, none) passes; no 429 is a finding', async () => {
    let count = 0
    const ways: target.RetryAfter[] = ['zero', 'date', 'none']
    const correct = stub()
    const handler: target.FetchHandler = async (request) =>
      ++count % 37 === 0 ? target.tooMany(ways[(count / 37) % 3]!, 0) : correct(request)
    const run = await runConformance({ apiKey: KEY, fetch: handler, ...EFFORT })
    expect(count).toBeGreaterThan(run.requestsSent / 2)
    expect(notJudged(run)).toEqual([])
    expect(run.verdict).toBe('conformant')
    expect(JSON.stringify(run.checks.flatMap((c) => c.findings))).not.toMatch(/\b429\b/)
  })

  it('a correct target behind an edge that closes every connection 1 ms after answering, gzips, chunks and sends 103 passes', async () => {
    const s = await start({ fetch: stub(), edge: { closeAfterMs: 1, encoding: 'gzip', chunked: 512, interim: [103] } })
    const run = await runConformance({ baseUrl: s.url, apiKey: KEY, ...EFFORT })
    expect(failed(run)).toEqual([])
    expect(notJudged(run)).toEqual([])
    expect(run.verdict).toBe('conformant')
    expect(s.stats.connections).toBeGreaterThan(10) // it did close them
  })

  it('a correct target that closes the connection on a body over 64 KiB passes, the close observed; over 8 KiB fails', async () => {
    const large = await start({ fetch: stub(), edge: { resetBodiesOver: 64 * 1024 } })
    const run = await runConformance({ baseUrl: large.url, apiKey: KEY, ...EFFORT })
    expect(failed(run)).toEqual([])
    expect(notJudged(run)).toEqual([
      "createPet.large-body: skipped (the target closed the connection on the bodies of 1 MiB before answering (see transport.ok's observations))",
    ])
    expect(run.verdict).toBe('conformant')
    const closed = run.observations.filter((o) => o.id === 'transport.ok')
    expect(closed.length).toBeGreaterThan(0)
    expect(closed[0]!.behaviour).toMatch(/^connection closed without an answer while a body of \d{7} bytes was sent/)
    expect(closed[0]!.subject).toMatch(/^POST \/pets/)
    // A body of 16 KiB (a long name) is one every connection buffers whole: a close without an answer is a failure.
    const small = await start({ fetch: stub(), edge: { resetBodiesOver: 8 * 1024 } })
    const refused = await runConformance({ baseUrl: small.url, apiKey: KEY, ...EFFORT })
    expect(failed(refused)).toContain('transport.ok')
    expect(refused.verdict).toBe('non-conformant')
  })
})

describe('a target echoing the key', () => {
  it('in headers, a cookie, body fields, stored names, \\u-escaped, %-encoded and upper-cased: the key is in no output', async () => {
    const run = await runConformance({ apiKey: KEY, fetch: target.echoing(stub('create-200')), ...EFFORT })
    expect(run.verdict).toBe('non-conformant')
    const files = await outputs(run)
    expectComplete(files, run)
    expectNoKey(files)
    // The echo did reach the evidence (redacted): the test would see a leak if redaction missed it.
    expect(files['report.json']).toContain('[REDACTED]')
    expect(files['report.json']).toContain('x-echo-authorization')
  })

  it('over HTTP, also in the reason phrase and raw header names: the key is in no output', async () => {
    const s = await start({ fetch: target.echoing(stub('create-200')), edge: target.echoAtEdge })
    const run = await runConformance({ baseUrl: s.url, apiKey: KEY, ...EFFORT })
    expect(run.verdict).toBe('non-conformant')
    const files = await outputs(run)
    expectComplete(files, run)
    expectNoKey(files)
  })
})

describe('hostile bodies: bounded evidence, complete reports, the right verdict, quickly', () => {
  it('lists that are huge (just under 16 MiB), deep, wide, endless, a huge number, a huge string', async () => {
    const MiB = 1024 * 1024
    // And a number small enough to parse, that no double or int64 holds.
    const shapes = [...target.HOSTILE_SHAPES, ['huge-number', MiB] as const]
    const started = performance.now()
    const run = await runConformance({ apiKey: KEY, fetch: target.hostileMix(stub(), shapes, 14), ...EFFORT })
    expect(performance.now() - started).toBeLessThan(20_000)
    expect(run.verdict).toBe('non-conformant')
    expect(failed(run)).toEqual(expect.arrayContaining(['response.schema', 'transport.ok']))
    const files = await outputs(run)
    expectComplete(files, run)
    // Evidence is bounded: a few exchanges per check, bodies cut with their real size.
    expect(files['report.json']!.length).toBeLessThan(2 * MiB)
    expect(files['report.html']!.length).toBeLessThan(4 * MiB)
    expect(files.console!.length).toBeLessThan(512 * 1024)
    expect(files['report.json']).toMatch(/truncated: \d{7,} bytes in all/)
    expect(files.console).not.toMatch(/9{10000}/)
  })
})

describe('runs that cannot be judged reject with a UsageError naming what to check', () => {
  it.each([
    [
      'a wrong key',
      { fetch: createStub({ apiKeys: ['another-key-0000'] }).fetch },
      /refused the API key.*check --api-key/,
    ],
    [
      'a base URL serving HTML 404',
      { fetch: target.everything(404, target.HTML_404, 'text/html') },
      /does not serve the interface.*check --base-url/,
    ],
  ])('%s', async (_name, kind, message) => {
    const s = await start(kind)
    const error = await runConformance({ baseUrl: s.url, apiKey: KEY, ...EFFORT }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as Error).message).toMatch(message)
    expect((error as Error).message).not.toContain('\n')
  })

  it('an unreachable target', async () => {
    const error = await runConformance({ baseUrl: await target.closedPort(), apiKey: KEY, ...EFFORT }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(UsageError)
    expect((error as Error).message).toMatch(
      /^cannot reach the target at http:\/\/127\.0\.0\.1:\d+\/v1: connection refused/,
    )
  })
})
