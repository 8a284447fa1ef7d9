/**
 * What every report says of the run as a whole, read from the one result: the rate limiting it waited out, a verdict
 * that says when the run judged only some checks, and why a run that could not be done was not; and the console's
 * bounds (lines a failing check takes, columns a line takes, lines a green run takes).
 */
import { readFileSync } from 'node:fs'
import { stripVTControlCharacters } from 'node:util'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { buildRunResult, type RunResult } from '../model/index.js'
import { cellLabel, matrixOf, toConsole, WRITERS } from './index.js'
import { check, sample, sampleRedactor, sampleRun } from './test-support/results.js'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** Whether a run's JSON report holds to reporters/result.schema.json. */
function valid(run: RunResult): boolean {
  const ajv = new Ajv2020({ allErrors: true, strict: true })
  addFormats(ajv)
  const validate = ajv.compile(JSON.parse(readFileSync(new URL('./result.schema.json', import.meta.url), 'utf8')))
  const ok = validate(JSON.parse(WRITERS.json(run)))
  if (!ok) throw new Error(JSON.stringify(validate.errors))
  return ok
}

/** Every text of a run: each file format and the console. */
const everyReport = (run: RunResult, written: string[] = []): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(WRITERS).map(([name, write]) => [name, write(run)])),
  console: toConsole(run, { color: false, written }),
})

/** A run whose one record passed every selected check; `selected` of them, of a catalogue of `catalogueSize`. */
function passingRun(selected: number, catalogueSize: number): RunResult {
  const { facts } = sample()
  const ids = Array.from({ length: selected }, (_, i) => `listPets.check-${i + 1}`)
  const catalogue = ids.map((id) => {
    const { outcome: _, findings: __, exchanges: ___, ...entry } = check(id)
    return entry
  })
  const record = {
    scenario: 'listPets: every selected check',
    checks: ids.map((id) => check(id)),
    observations: Array.from({ length: 80 }, (_, i) => ({
      id: `listPets.observed-${i % 8}`,
      operationId: 'listPets' as const,
      subject: `GET /pets?limit=${1000 + i}`,
      behaviour: '400 Error (code "invalid_limit")',
    })),
    statusesSeen: ['listPets 200'],
    requestsSent: 12,
    recordsCreated: 0,
  }
  return buildRunResult(
    [record],
    { ...facts, catalogue, catalogueSize, runErrors: [], stopped: undefined },
    sampleRedactor(),
  )
}

describe('rate limiting', () => {
  const run = sampleRun()

  it('is the largest count each record carried (the transport is shared, its counts only grow)', () => {
    expect(run.throttling).toEqual({ status429: 37, status503: 2, waitedMs: 41250, longestWaitMs: 2000 })
    expect(valid(run)).toBe(true)
  })

  it.each(['json', 'markdown', 'html', 'junit', 'console'])('shows in %s', (format) => {
    const text = everyReport(run)[format]!
    if (format === 'json') expect(JSON.parse(text).throttling.status429).toBe(37)
    else if (format === 'junit') {
      expect(text).toContain('<property name="throttled-429" value="37"/>')
      expect(text).toContain('<property name="throttled-503" value="2"/>')
      expect(text).toContain('<property name="waited-ms" value="41250"/>')
      expect(text).toContain('<property name="longest-wait-ms" value="2000"/>')
    } else
      expect(text.replace(/\s+/g, ' ')).toContain(
        '429 answered 37 times, 503 with Retry-After 2 times; waited 41.3 s in all, at most 2.0 s at once',
      )
  })

  it('says "none" when the target never throttled', () => {
    expect(toConsole(passingRun(4, 4), { color: false })).toContain(
      'throttled   none: the target never asked the run to wait',
    )
  })
})

describe('a run narrowed to some checks', () => {
  it('is conformant for the selected checks only, and says how many were not run, in every report', () => {
    const run = passingRun(4, 55)
    expect(run.verdict).toBe('conformant')
    expect(run.selection).toEqual({ selected: 4, catalogue: 55 })
    expect(valid(run)).toBe(true)
    const line = 'conformant for the 4 selected checks (51 not run)'
    expect(run.verdictLine).toBe(line)
    const reports = everyReport(run)
    expect(JSON.parse(reports.json!).verdictLine).toBe(line)
    expect(reports.junit).toContain(`<property name="verdict-line" value="${line}"/>`)
    expect(reports.junit).toContain('<property name="checks-not-run" value="51"/>')
    expect(reports.markdown).toMatch(new RegExp(`^## ✅ Pet Store conformance: ${line.replace(/[()]/g, '\\$&')}\n`))
    expect(reports.html).toContain(`Verdict: ${line}`)
    expect(reports.console!.trimEnd().split('\n').at(-1)).toBe(`Verdict: ${line}`)
  })

  it('is plain "conformant" when every check of the catalogue was selected', () => {
    expect(passingRun(4, 4).verdictLine).toBe('conformant')
    expect(passingRun(4, 4).selection).toBeUndefined()
  })
})

describe('a run that could not be done', () => {
  const { facts } = sample()
  const run = buildRunResult(
    [],
    {
      ...facts,
      runErrors: [],
      catalogueSize: 55,
      cannotRun: {
        reason: 'the target refused the API key: GET https://staging.example/v1/pets answered 401',
        tried: ['GET https://staging.example/v1/pets?limit=1 -> 401 application/json (12 ms)'],
        advice: 'Check the key given as --api-key or PETSTORE_API_KEY.',
      },
    },
    sampleRedactor(),
  )

  it('leaves every check unjudged and is incomplete (exit 2), never a subset', () => {
    expect(run.verdict).toBe('incomplete')
    expect(run.verdictLine).toBe('COULD NOT RUN')
    expect(run.totals.unjudged).toBe(run.totals.checks)
    expect(run.selection).toBeUndefined()
    expect(valid(run)).toBe(true)
  })

  it.each(['json', 'markdown', 'html', 'junit', 'console'])(
    'says why, what was tried and what to do in %s',
    (format) => {
      const text = everyReport(run)[format]!
      for (const said of [
        'the target refused the API key',
        'GET https://staging.example/v1/pets?limit=1 -> 401',
        'Check the key',
      ])
        expect(text.replace(/\\/g, '').replaceAll('&gt;', '>')).toContain(said)
    },
  )
})

describe('the console', () => {
  const run = sampleRun()
  const text = stripVTControlCharacters(toConsole(run, { color: true, written: ['reports/report.json'] }))
  const lines = text.split('\n')

  it('keeps every line within 100 columns, and nearly all within 80', () => {
    // Save a command to copy whole (the replay line, on a line of its own), which no wrapping may break.
    expect(lines.filter((l) => l.length > 100 && !l.startsWith('  npx --no-install petstore-conformance '))).toEqual([])
    // Only a body line or a URL too long to wrap goes past 80.
    expect(lines.filter((l) => l.length > 80).every((l) => /^ {4}[<>!] |^ {2,}\S+$|^ {2}npx /.test(l))).toBe(true)
  })

  it('shows each failing check in at most 20 lines, and says where the rest of its findings are', () => {
    const blocks = text.split('\n\n').filter((b) => /^[✗!] /.test(b))
    expect(blocks.length).toBe(run.totals.failed + run.totals.warned)
    for (const block of blocks) expect(block.split('\n').length, block).toBeLessThanOrEqual(20)
    expect(text).toMatch(/… \d+ more findings: report\.json/)
  })

  it('prints a green run in at most 60 lines, its silent choices as a count; --verbose lists them', () => {
    const green = passingRun(55, 55)
    const short = toConsole(green, { color: false })
    expect(short.split('\n').length).toBeLessThanOrEqual(60)
    expect(short).toContain('the target made 80 choices')
    expect(short).not.toContain('GET /pets?limit=1000')
    const whole = toConsole(green, { color: false, verbose: true })
    expect(whole).toContain('GET /pets?limit=1000  →  400 Error (code "invalid_limit")')
    expect(whole).toContain('listPets.check-55')
  })
})

describe('the matrix of documented responses', () => {
  it('says "asked for 201, got 200 and 500" where a failing check asked for a response the target never gave', () => {
    const run = structuredClone(sampleRun())
    for (const c of run.coverage) if (c.operationId === 'createPet' && c.status === '201') c.seen = false
    const cell = matrixOf(run)
      .rows.find((r) => r.operationId === 'createPet')!
      .cells.find((c) => c.status === '201')!
    expect(cell).toMatchObject({ outcome: 'failed', got: ['200', '500'] })
    const said = 'asked for 201, got 200 and 500'
    expect(cellLabel(cell)).toBe(said)
    expect(WRITERS.markdown(run)).toContain(`❌ ${said}`)
    expect(WRITERS.html(run)).toContain(`✗ ${said}`)
    expect(toConsole(run, { color: false })).toContain(`✗ createPet ${said}`)
    // A response nothing asked for stays "not provoked".
    const getPet404 = matrixOf(run)
      .rows.find((r) => r.operationId === 'getPet')!
      .cells.find((c) => c.status === '404')!
    expect([getPet404.outcome, cellLabel(getPet404)]).toEqual(['not-provoked', 'not provoked'])
  })
})
