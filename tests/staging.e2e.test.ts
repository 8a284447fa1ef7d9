/**
 * The real `petstore-conformance` command, in child processes, against misbehaving targets served from this test
 * process on loopback ports (test-support/misbehaving.ts): each run ends with the right exit code (0 conformant,
 * 1 a failing check, 2 cannot run) in bounded time, every report it writes is complete, the key is in no output,
 * and peak memory stays within the bounds docs/staging.md quotes. Wall times and peak RSS are printed as `[figures]`
 * lines: they are docs/staging.md's numbers.
 *
 * Peak RSS comes from GNU `/usr/bin/time -v` ("Maximum resident set size": the largest single process of the
 * command's tree, the command or the child running the scenarios). Where it is absent the memory assertions are
 * skipped, saying so.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { afterAll, describe, expect, it } from 'vitest'
import type { RunResult } from '../model/index.js'
import { createStub, type FaultName } from '../stub/index.js'
import * as target from '../test-support/misbehaving.js'
import { skippedForState } from '../test-support/premises.js'
import { BINS, runProcess, type Finished } from '../test-support/run-command.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterAll)

// Mixed case, and characters that JSON, URLs and HTML each escape differently.
const KEY = 'Echo.Key-7f3A9c1D_e2~b8+Q'
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined
const MiB = 1024 * 1024
const ALL_REPORTERS = ['console', 'json', 'junit', 'html', 'markdown'].flatMap((r) => ['--reporter', r])

/** docs/staging.md's numbers, printed once at the end. */
const figures: string[] = []
afterAll(() => {
  if (figures.length) console.log(`[figures]\n${figures.join('\n')}`)
})

const stub = (fault?: FaultName) => createStub({ apiKeys: [KEY], ...(fault ? { fault } : {}) }).fetch

/** A finished run of the command: also the report files it wrote, its JSON report, and its peak RSS when measured. */
interface Outcome extends Finished {
  files: Record<string, string>
  report?: RunResult
  /** Peak resident set size in MB, from /usr/bin/time -v. */
  rssMb?: number
}

/**
 * Runs the command with `args` (reports to a scratch directory), under `/usr/bin/time -v` when there is one.
 * The key goes by environment unless the args carry it.
 */
async function conformance(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs: number },
): Promise<Outcome> {
  const dir = await mkdtemp(join(tmpdir(), 'staging-e2e-'))
  const out = join(dir, 'reports')
  const timeFile = join(dir, 'time.txt')
  const argv = [BINS.conformance, ...args, '--output-dir', out]
  const env = { NO_COLOR: '1', ...(args.includes('--api-key') ? {} : { PETSTORE_API_KEY: KEY }), ...options.env }
  try {
    const finished = TIME
      ? await runProcess(TIME, ['-v', '-o', timeFile, process.execPath, ...argv], { env, timeoutMs: options.timeoutMs })
      : await runProcess(process.execPath, argv, { env, timeoutMs: options.timeoutMs })
    const files: Record<string, string> = {}
    for (const name of existsSync(out) ? (await readdir(out)).sort() : [])
      files[name] = await readFile(join(out, name), 'utf8')
    const rss =
      TIME && existsSync(timeFile)
        ? /Maximum resident set size \(kbytes\): (\d+)/.exec(await readFile(timeFile, 'utf8'))?.[1]
        : undefined
    return {
      ...finished,
      files,
      ...(files['report.json'] !== undefined ? { report: JSON.parse(files['report.json']) as RunResult } : {}),
      ...(rss !== undefined ? { rssMb: Math.round(Number(rss) / 1024) } : {}),
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** What the run said, when it did not end as expected: its failing and unjudged checks, the last lines of both streams. */
function said(run: Finished & { report?: RunResult }): string {
  const checks = (run.report?.checks ?? [])
    .filter((c) => c.outcome !== 'passed' && c.outcome !== 'skipped')
    .map((c) => `${c.id} ${c.outcome}: ${c.findings[0]?.message ?? c.reason ?? ''}`)
  return [
    `exit ${run.code}${run.timedOut ? ' (killed: timed out)' : ''}`,
    ...checks,
    run.stderr.slice(-1500),
    run.stdout.slice(-1500),
  ].join('\n')
}

/** Every report written and complete: JSON parses, JUnit is well-formed XML, HTML ends with </html>, Markdown has a verdict. */
function expectComplete(run: Outcome): void {
  expect(Object.keys(run.files).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
  expect(run.report?.verdict, said(run)).toBeDefined()
  expect(XMLValidator.validate(run.files['junit.xml']!)).toBe(true)
  const junit = new XMLParser({ ignoreAttributes: false }).parse(run.files['junit.xml']!) as { testsuites?: unknown }
  expect(junit.testsuites).toBeDefined()
  expect(run.files['report.html']!.trimEnd().endsWith('</html>')).toBe(true)
  expect(run.files['report.md']!.length).toBeGreaterThan(100)
  expect(run.stdout).toMatch(/Verdict: /)
}

/** The key, in any case or escaping, in no output: stdout, stderr, every report file. */
function expectNoKey(run: Outcome): void {
  for (const [name, text] of Object.entries({ stdout: run.stdout, stderr: run.stderr, ...run.files }))
    expect(target.leaksOf(text, KEY), name).toEqual([])
}

/** Peak RSS within `mb`, when it could be measured. */
function expectRss(run: Outcome, mb: number, what: string): void {
  if (run.rssMb === undefined) {
    console.warn(
      `[figures] ${what}: peak RSS not measured (/usr/bin/time is absent); its bound of ${mb} MB is not checked`,
    )
    return
  }
  figures.push(`${what}: exit ${run.code}, ${(run.ms / 1000).toFixed(1)} s, peak RSS ${run.rssMb} MB (bound ${mb} MB)`)
  expect(run.rssMb, `${what}: peak RSS ${run.rssMb} MB`).toBeLessThanOrEqual(mb)
}

const MEMORY_BOUND_MB = 400
const EMBEDDED_BOUND_MB = 250

describe('the command on a correct target: exit 0, every check judged', () => {
  it('the embedded stub, the default run: within 250 MB', async () => {
    const run = await conformance(ALL_REPORTERS, { timeoutMs: 180_000 })
    expect(run.code, said(run)).toBe(0)
    expectComplete(run)
    expect(run.report!.checks.filter((c) => c.outcome !== 'passed' && !skippedForState(c)).map((c) => c.id)).toEqual([])
    expectRss(run, EMBEDDED_BOUND_MB, 'embedded stub, default run')
  }, 200_000)

  it('a target answering every request after 300 ms: judged fully in well under the time its requests take one at a time; the same with `limit` ignored exits 1', async () => {
    const [correct, limitIgnored] = await Promise.all([
      start({ fetch: target.slow(stub(), 300) }),
      start({ fetch: target.slow(stub('limit-ignored'), 300) }),
    ])
    const [ok, caught] = await Promise.all([
      conformance(['--base-url', correct.url, ...ALL_REPORTERS], { timeoutMs: 240_000 }),
      conformance(['--base-url', limitIgnored.url, ...ALL_REPORTERS], { timeoutMs: 240_000 }),
    ])
    figures.push(
      `300 ms target, default run: exit ${ok.code}, ${(ok.ms / 1000).toFixed(1)} s, ${ok.report?.requestsSent} requests (one at a time: ${((ok.report?.requestsSent ?? 0) * 0.3).toFixed(0)} s)`,
    )
    figures.push(`300 ms target with limit ignored: exit ${caught.code}, ${(caught.ms / 1000).toFixed(1)} s`)
    expect(ok.code, said(ok)).toBe(0)
    expectComplete(ok)
    expect(ok.report!.checks.filter((c) => c.outcome !== 'passed' && !skippedForState(c)).map((c) => c.id)).toEqual([])
    // Concurrency, not a wall-clock budget: sent one at a time, the requests alone would take requestsSent x 300 ms.
    const serial = (run: typeof ok) => run.report!.requestsSent * 300
    expect(ok.ms).toBeLessThan(serial(ok) / 2)
    expect(caught.code, said(caught)).toBe(1)
    expectComplete(caught)
    expect(caught.report!.checks.find((c) => c.id === 'listPets.limit.max')?.outcome).toBe('failed')
    expect(caught.ms).toBeLessThan(serial(caught) / 2)
  }, 250_000)

  it('a target that answers 429 now and then (Retry-After in seconds, as a date, none): waited out, exit 0', async () => {
    let count = 0
    const correct = stub()
    const ways: target.RetryAfter[] = ['seconds', 'date', 'none']
    const s = await start({
      fetch: async (request) => (++count % 30 === 0 ? target.tooMany(ways[(count / 30) % 3]!, 1) : correct(request)),
    })
    const run = await conformance(['--base-url', s.url, ...ALL_REPORTERS], { timeoutMs: 180_000 })
    figures.push(
      `throttled now and then: exit ${run.code}, ${(run.ms / 1000).toFixed(1)} s, ${Math.floor(count / 30)} answers 429`,
    )
    expect(run.code, said(run)).toBe(0)
    expectComplete(run)
    expect(run.files['report.json']).not.toMatch(/"status": ?429/)
  }, 200_000)

  it('an edge that closes every connection 1 ms after answering, gzips, chunks and sends 103: exit 0', async () => {
    const s = await start({ fetch: stub(), edge: { closeAfterMs: 1, encoding: 'gzip', chunked: 1024, interim: [103] } })
    const run = await conformance(['--base-url', s.url, ...ALL_REPORTERS], { timeoutMs: 120_000 })
    expect(run.code, said(run)).toBe(0)
    expectComplete(run)
  }, 150_000)
})

describe('the command on a broken target: exit 1, the key in no output, memory bounded', () => {
  it('a target echoing the key everywhere (headers, names, cookie, reason phrase, bodies, escaped), given with --api-key', async () => {
    const s = await start({ fetch: target.echoing(stub('create-200')), edge: target.echoAtEdge })
    const run = await conformance(['--base-url', s.url, '--api-key', KEY, ...ALL_REPORTERS], { timeoutMs: 120_000 })
    expect(run.code, said(run)).toBe(1)
    expectComplete(run)
    expectNoKey(run)
    expect(run.files['report.json']).toContain('[REDACTED]')
  }, 150_000)

  it('list answers that are huge (just under 16 MiB), deep, wide, endless, a huge number, a huge string: within 400 MB', async () => {
    const s = await start({ fetch: target.hostileMix(stub(), target.HOSTILE_SHAPES, Number.MAX_SAFE_INTEGER) })
    const run = await conformance(['--base-url', s.url, ...ALL_REPORTERS], { timeoutMs: 240_000 })
    expect(run.code, said(run)).toBe(1)
    expectComplete(run)
    expectNoKey(run)
    expect(run.files['report.json']!.length).toBeLessThan(4 * MiB)
    expect(run.stdout.length).toBeLessThan(MiB)
    expectRss(run, MEMORY_BOUND_MB, 'hostile list bodies')
    expect(run.ms).toBeLessThan(180_000)
  }, 250_000)

  it('a body that never ends on every answer: stopped at the cap each time, exit 1', async () => {
    const s = await start({ serve: target.endlessBody })
    const run = await conformance(['--base-url', s.url, ...ALL_REPORTERS], { timeoutMs: 180_000 })
    expect(run.code, said(run)).toBe(1)
    expectComplete(run)
    expect(run.report!.checks.find((c) => c.id === 'transport.ok')?.findings[0]?.exchange?.error).toMatch(
      /^response body larger than/,
    )
    expectRss(run, MEMORY_BOUND_MB, 'endless bodies')
    expect(run.ms).toBeLessThan(150_000)
  }, 200_000)
})

describe('the command on a target it cannot judge: exit 2 and one line saying what to check', () => {
  const cases: [string, () => Promise<string>, RegExp, string[]?][] = [
    [
      'a wrong key',
      async () => (await start({ fetch: createStub({ apiKeys: ['another-key-0000'] }).fetch })).url,
      /refused the API key.*check --api-key/,
    ],
    [
      'a base URL serving HTML 404',
      async () => (await start({ fetch: target.everything(404, target.HTML_404, 'text/html') })).url,
      /does not serve the interface.*check --base-url/,
    ],
    [
      'a base URL without /v1',
      async () => (await start({ fetch: stub() })).origin,
      /does not serve the interface.*version prefix \/v1.*check --base-url/,
    ],
    ['a closed port', () => target.closedPort(), /cannot reach the target .*connection refused/],
    [
      'a TLS server asked for http://',
      async () => (await start({ serve: target.serveTls })).url.replace('https:', 'http:'),
      /cannot reach the target .*https:\/\//,
    ],
    [
      'a self-signed https:// server',
      async () => (await start({ serve: target.serveTls })).url,
      /cannot reach the target .*TLS failed: self[- ]signed certificate/,
    ],
    [
      'garbage instead of HTTP',
      async () => (await start({ serve: target.garbage })).url,
      /cannot reach the target .*not a valid HTTP response/,
    ],
    [
      'a header flood',
      async () => (await start({ serve: () => target.headerFlood('many', 5000) })).url,
      /cannot reach the target .*headers are larger/,
    ],
    [
      'a target that never answers',
      async () => (await start({ serve: target.hang })).url,
      /cannot reach the target .*timeout after 2000 ms/,
      ['--timeout', '2000'],
    ],
  ]
  it.concurrent.each(cases)(
    '%s',
    async (_name, url, line, more = []) => {
      const run = await conformance(['--base-url', await url(), ...more], { timeoutMs: 60_000 })
      expect(run.code, said(run)).toBe(2)
      const lines = run.stderr.trim().split('\n')
      expect(lines, run.stderr).toHaveLength(1)
      expect(lines[0]).toMatch(line)
      expect(run.ms).toBeLessThan(45_000)
      expectNoKey(run)
    },
    90_000,
  )

  it('a target answering 429 to every request: exit 2, rate-limited throughout, in bounded time', async () => {
    const s = await start({ fetch: async () => target.tooMany('seconds', 1) })
    const run = await conformance(['--base-url', s.url], { timeoutMs: 240_000 })
    figures.push(`429 to every request: exit ${run.code}, ${(run.ms / 1000).toFixed(1)} s`)
    expect(run.code, said(run)).toBe(2)
    expect(run.stderr.trim()).toMatch(/^petstore-conformance: rate-limited throughout: /)
    expect(run.ms).toBeLessThan(200_000)
  }, 250_000)
})
