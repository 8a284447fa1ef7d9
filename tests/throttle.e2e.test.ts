/**
 * The real command against throttling targets served on loopback ports: a token-bucket limiter as nginx's
 * `limit_req` is (20 requests/s, burst 10, 429 or 503 with `Retry-After: 1`), a service answering 429 to one request
 * in five, and one asking to wait a day. The conformant ones pass (exit 0) and the run's wall time is printed beside
 * what the limit allows (the `[figures]` lines are the README's numbers); the day-long wait ends the run at once,
 * exit 2, saying the wait asked. And a service mounted without the documented `/v1` prefix fails one check (exit 1).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createStub } from '../stub/index.js'
import * as target from '../test-support/misbehaving.js'
import { failedChecks, runCommand, type ConformanceRun } from '../test-support/run-command.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterAll)

const KEY = 'throttle-e2e-key-8c2d'
const env = { PETSTORE_API_KEY: KEY, NO_COLOR: '1' }
const stub = () => createStub({ apiKeys: [KEY] }).fetch
const said = (run: ConformanceRun) => `${run.stderr}\n${run.stdout.slice(-3000)}`

const figures: string[] = []
afterAll(() => {
  if (figures.length) console.log(`[figures]\n${figures.join('\n')}`)
})

describe('the command behind a rate limit: waits what is asked, passes a conformant service', () => {
  it.each([429, 503] as const)(
    'a token bucket of 20 requests/s, burst 10, answering %i with Retry-After: 1: exit 0',
    async (status) => {
      const limiter = target.tokenBucket(stub(), { rate: 20, burst: 10, status })
      const s = await start({ fetch: limiter.fetch })
      const run = await runCommand('conformance', ['--base-url', s.url, '--reporter', 'json'], {
        env,
        timeoutMs: 170_000,
      })
      const allowed = Math.max(0, limiter.stats.passed - 10) / 20
      figures.push(
        `token bucket 20/s burst 10, ${status} + Retry-After 1: exit ${run.code}, ${(run.ms / 1000).toFixed(1)} s (the limit allows ${allowed.toFixed(1)} s for ${limiter.stats.passed} requests; ${limiter.stats.refused} refused)`,
      )
      expect(run.code, said(run)).toBe(0)
      expect(run.report?.verdict).toBe('conformant')
      expect(run.files['report.json']).not.toMatch(new RegExp(`"status": ?${status}\\b`))
    },
    180_000,
  )

  it('429 with Retry-After: 1 to one request in five, whatever the rate: exit 0', async () => {
    const s = await start({ fetch: target.throttled(stub(), { every: 5, retryAfter: 'seconds', seconds: 1 }) })
    const run = await runCommand('conformance', ['--base-url', s.url, '--reporter', 'json'], {
      env,
      timeoutMs: 170_000,
    })
    figures.push(`429 + Retry-After 1 to one request in five: exit ${run.code}, ${(run.ms / 1000).toFixed(1)} s`)
    expect(run.code, said(run)).toBe(0)
    expect(run.report?.verdict).toBe('conformant')
    // The throttling is shown, never hidden: counted in the report, said while the run waits and in the run's facts.
    const throttling = run.report!.throttling
    expect(throttling.status429).toBeGreaterThan(0)
    expect(throttling.longestWaitMs).toBe(1000)
    expect(throttling.waitedMs).toBeGreaterThanOrEqual(1000 * throttling.status429)
    expect(run.stdout).toMatch(/^waiting 1 s: the target answered 429, (once|\d+ times) so far$/m)
    expect(run.stdout).toContain(`throttled   429 answered ${throttling.status429} times, 503 with Retry-After never;`)
  }, 180_000)

  it('a day-long Retry-After in the middle of the run: exit 2 at once, the wait asked, the reports written', async () => {
    const correct = stub()
    let count = 0
    const s = await start({
      fetch: async (request) => (++count > 40 ? target.tooMany('seconds', 86_400) : correct(request)),
    })
    const run = await runCommand('conformance', ['--base-url', s.url, '--reporter', 'json'], { env, timeoutMs: 60_000 })
    figures.push(`Retry-After: 86400 mid-run: exit ${run.code}, ${(run.ms / 1000).toFixed(1)} s`)
    expect(run.code, said(run)).toBe(2)
    const lines = run.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^petstore-conformance: incomplete: the target asks to wait 86400 s \(Retry-After on 429\) before sending again, longer than a run waits/,
    )
    expect(run.report?.verdict).toBe('incomplete')
    expect(run.ms).toBeLessThan(30_000)
  }, 90_000)

  it('a day-long Retry-After from the first request: exit 2 with that one line', async () => {
    const s = await start({ fetch: async () => target.tooMany('seconds', 86_400) })
    const run = await runCommand('conformance', ['--base-url', s.url], { env, timeoutMs: 60_000 })
    expect(run.code, said(run)).toBe(2)
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^petstore-conformance: the target asks to wait 86400 s \(Retry-After on 429\)/),
    ])
    expect(run.ms).toBeLessThan(20_000)
  }, 90_000)
})

describe('the command against a service without the /v1 prefix', () => {
  it('one failing check, base-url.version-prefix, in every report: exit 1', async () => {
    const s = await start({ fetch: target.withoutPrefix(stub()) })
    const args = [
      '--base-url',
      s.url,
      ...['console', 'json', 'junit', 'html', 'markdown'].flatMap((r) => ['--reporter', r]),
    ]
    const run = await runCommand('conformance', args, { env, timeoutMs: 60_000 })
    expect(run.code, said(run)).toBe(1)
    expect(failedChecks(run.report)).toEqual(['base-url.version-prefix'])
    expect(run.report?.checks).toHaveLength(1)
    expect(run.report?.verdict).toBe('non-conformant')
    for (const name of ['junit.xml', 'report.html', 'report.md', 'report.json'])
      expect(run.files[name], name).toMatch(/version prefix \/v1 is missing/)
    expect(run.stdout).toMatch(/NON-CONFORMANT/)
    expect(run.stdout + run.stderr).not.toContain(KEY)
  }, 90_000)
})
