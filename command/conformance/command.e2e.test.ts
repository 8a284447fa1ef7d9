/** The command as a user runs it: a child process, its exit code and its output. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCommand, type ConformanceRun } from '../../test-support/run-command.js'
import { closedPort, serveSocket } from '../../test-support/misbehaving.js'
import { targets } from '../../test-support/targets.js'

const start = targets(afterEach)

describe('petstore-conformance', { timeout: 90_000 }, () => {
  it('exits 2 with one line on an unreachable target, and reports that say why, what was tried and what to do', async () => {
    const url = await closedPort()
    const { code, stdout, stderr, files } = (await runCommand('conformance', [
      '--base-url',
      url,
      '--api-key',
      'k-1',
      '--reporter',
      'markdown',
    ])) as ConformanceRun
    expect(code).toBe(2)
    // The first lines, at once: what runs against what, and the seed that replays it.
    expect(stdout).toMatch(
      new RegExp(`^running \\d+ checks against ${url} …\\nrun \\w+ · seed -?\\d+ · \\d+ runs per property\\n\\n$`),
    )
    expect(stderr.trim().split('\n')).toEqual([
      `petstore-conformance: cannot reach the target at ${url}: connection refused; check --base-url (or PETSTORE_BASE_URL)`,
    ])
    const report = JSON.parse(files['report.json']!)
    expect(report.verdict).toBe('incomplete')
    expect(report.verdictLine).toBe('COULD NOT RUN')
    expect(report.cannotRun.reason).toBe(`cannot reach the target at ${url}: connection refused`)
    expect(report.cannotRun.tried).toEqual([
      expect.stringMatching(new RegExp(`^GET ${url}/pets\\?limit=1 -> no answer: connection refused`)),
      expect.stringMatching(new RegExp(`^GET ${url}/pets/1 -> no answer: connection refused`)),
    ])
    expect(report.cannotRun.advice).toMatch(/^Check --base-url/)
    expect(report.totals.unjudged).toBe(report.totals.checks)
    expect(files['report.md']).toMatch(
      /^## ⚠️ Pet Store conformance: COULD NOT RUN\n\n\*\*Could not run:\*\* cannot reach/,
    )
    expect(files['report.md']).toContain('**What to do:** Check --base-url')
    expect(files['junit.xml']).toContain('name="could-not-run"')
  })
  it('writes reports for a refused key: the reason, both answers 401, and what to do about the key', async () => {
    const stub = await start({ stub: { apiKeys: ['the-right-key-7f1'] } })
    try {
      const { code, files } = (await runCommand('conformance', [
        '--base-url',
        stub.url,
        '--api-key',
        'a-rotated-key-2c9',
      ])) as ConformanceRun
      expect(code).toBe(2)
      const report = JSON.parse(files['report.json']!)
      expect(report.cannotRun.reason).toMatch(/^the target refused the API key/)
      expect(report.cannotRun.tried).toEqual([
        expect.stringMatching(/^GET .*\/pets\?limit=1 -> 401 /),
        expect.stringMatching(/^GET .*\/pets\/1 -> 401 /),
      ])
      expect(report.cannotRun.advice).toMatch(/--api-key or PETSTORE_API_KEY/)
      for (const text of Object.values(files)) expect(text).not.toContain('a-rotated-key-2c9')
    } finally {
      await stub.close()
    }
  })
  it('exits 2 with one line on a target that does not speak HTTP', async () => {
    const ssh = await start({ serve: () => serveSocket((socket) => void socket.end('SSH-2.0-OpenSSH_9.6\r\n')) })
    const { code, stderr } = await runCommand('conformance', ['--base-url', ssh.url, '--api-key', 'k-1'])
    expect(code).toBe(2)
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(
      /^petstore-conformance: cannot reach the target at .*: (not a valid HTTP response|connection closed)/,
    )
  })
  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--runs', 'lots'], /--runs must be an integer/],
    [['--base-url', 'http://127.0.0.1:1/v1'], /--api-key/],
    [['--output-dir', '/dev/null/reports'], /cannot write reports to \/dev\/null\/reports/],
  ])('exits 2 with one line on bad usage: %s', async (args, message) => {
    const { code, stdout, stderr, files } = (await runCommand('conformance', args)) as ConformanceRun
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(message)
    // Given an output directory (as the GitHub Action gives one), the reports say why too, where they can be written.
    if (!args.includes('--output-dir')) expect(JSON.parse(files['report.json']!).cannotRun.reason).toMatch(message)
  })
  it('replays a report: STILL FAILING against the same faulty target (exit 1), FIXED once it is fixed (exit 0)', async () => {
    const KEY = 'replay-e2e-key-19c'
    const env = { PETSTORE_API_KEY: KEY }
    const faulty = await start({ stub: { apiKeys: [KEY], fault: 'limit-ignored' } })
    const fixed = await start({ stub: { apiKeys: [KEY] } })
    const dir = await mkdtemp(join(tmpdir(), 'replay-e2e-'))
    try {
      const run = (await runCommand('conformance', ['--base-url', faulty.url, '--runs', '5', '--reporter', 'json'], {
        env,
      })) as ConformanceRun
      expect(run.code).toBe(1)
      const report = join(dir, 'report.json')
      await writeFile(report, run.files['report.json']!)

      const again = await runCommand('conformance', ['--replay', report], { env })
      expect(again.code, again.stderr).toBe(1)
      expect(again.stdout).toMatch(/^STILL FAILING +listPets\.limit\.max /m)
      expect(again.stdout).not.toMatch(/^FIXED/m)

      // The fix deployed over the same data.
      fixed.stub.restore(faulty.stub.snapshot())
      const after = await runCommand('conformance', ['--replay', report, '--base-url', fixed.url], { env })
      expect(after.code, after.stdout).toBe(0)
      expect(after.stdout).toMatch(/^FIXED +listPets\.limit\.max /m)
      expect(after.stdout).toMatch(/(\d+) of \1 findings fixed/)
      expect(after.stdout + after.stderr).not.toContain(KEY)
    } finally {
      await Promise.all([faulty.close(), fixed.close(), rm(dir, { recursive: true, force: true })])
    }
  })
  it('prints help with the budget and the catalogue, and its version', async () => {
    const help = await runCommand('conformance', ['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/creates at most \d+ pets with the default --runs/)
    expect(help.stdout).toContain('listPets.limit.max')
    const version = await runCommand('conformance', ['--version'])
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
  })
})
