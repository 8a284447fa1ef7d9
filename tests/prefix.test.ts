/**
 * A service mounted without the documented version prefix (`/pets` where the spec's base address ends in `/v1`),
 * given the documented base URL: the run is judged, not refused. One failing check says the prefix is missing,
 * with its basis in the spec, in every report, and the verdict is non-conformant (exit 1). In-process: the library
 * and the writers; the command itself in `command/conformance/prefix.e2e.test.ts`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runConformance } from '../command/library.js'
import { PREFIX_CHECK_ID } from '../command/conformance/preflight.js'
import { exitCode, keySecrets, Redactor } from '../model/index.js'
import { REPORT_FILES, toConsole, writeReports, WRITERS } from '../reporters/index.js'
import { createStub } from '../stub/index.js'
import * as target from '../test-support/misbehaving.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterEach)

const KEY = 'prefix-test-key-5d1b'

describe('a service without the /v1 prefix', () => {
  it('fails one check, the prefix missing, in every report: non-conformant, exit 1', async () => {
    const s = await start({ fetch: target.withoutPrefix(createStub({ apiKeys: [KEY] }).fetch) })
    const run = await runConformance({ baseUrl: s.url, apiKey: KEY, runs: 2 })
    expect(run.verdict).toBe('non-conformant')
    expect(exitCode(run)).toBe(1)
    expect(run.checks.map((c) => [c.id, c.outcome])).toEqual([[PREFIX_CHECK_ID, 'failed']])
    expect(run.totals).toMatchObject({ checks: 1, failed: 1, unjudged: 0 })
    // Nothing else was sent: the service was judged on the base address alone.
    expect(s.stats.requests).toBe(4)
    const basis = run.checks[0]!.basis!
    expect(basis.map((b) => b.ref)).toEqual(['#/servers/0/url'])

    const dir = await mkdtemp(join(tmpdir(), 'prefix-reports-'))
    try {
      const { errors } = await writeReports(run, Object.keys(WRITERS), dir, new Redactor(keySecrets(KEY)))
      expect(errors).toEqual([])
      const texts: Record<string, string> = { console: toConsole(run, { color: false }) }
      for (const name of Object.values(REPORT_FILES)) texts[name] = await readFile(join(dir, name), 'utf8')
      for (const [name, text] of Object.entries(texts)) {
        expect(text, name).toContain(PREFIX_CHECK_ID)
        expect(text, name).toMatch(/version prefix \/v1 is missing/)
        expect(text, name).toContain('#/servers/0/url')
        expect(text, name).not.toContain(KEY)
      }
      expect(texts.console).toMatch(/NON-CONFORMANT/)
      expect(JSON.parse(texts['report.json']!).verdict).toBe('non-conformant')
      expect(texts['junit.xml']).toMatch(/failures="1"/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('the same service given its real base URL (no /v1) passes: the prefix is all it lacks', async () => {
    const s = await start({ fetch: target.withoutPrefix(createStub({ apiKeys: [KEY] }).fetch) })
    // Served at the origin, every path the suite sends is the interface's own: it conforms there.
    const run = await runConformance({ baseUrl: s.origin, apiKey: KEY, runs: 2, checks: ['listPets.limit.max'] })
    expect(run.checks.find((c) => c.id === PREFIX_CHECK_ID)).toBeUndefined()
    expect(run.verdict).toBe('conformant')
  })
})
