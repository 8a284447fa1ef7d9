import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { Redactor, buildRunResult, type RunResult } from '../model/index.js'
import { spec } from '../spec/index.js'
import { REPORT_FILES, WRITERS, toConsole, writeReports } from './index.js'
import { escapeHtml } from './html.js'
import { markdownBlock, markdownCode, markdownText } from './markdown.js'
import { blanked, check, incompleteRun, sample, sampleRedactor, sampleRun } from './test-support/results.js'
import { replayCommand, replayNote } from './text.js'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default
const GOLDEN = '../fixtures/reports/golden/'
const SECRET = sample().secret

function validator() {
  const schema = JSON.parse(readFileSync(new URL('./result.schema.json', import.meta.url), 'utf8'))
  const ajv = new Ajv2020({ allErrors: true, strict: true })
  addFormats(ajv)
  return { schema, validate: ajv.compile(schema) }
}

/** Every text a run is written as: each file format, and the console with and without colour. */
const outputs = (run: RunResult): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(WRITERS).map(([name, write]) => [name, write(run)])),
  console: toConsole(run, { color: false }),
  'console (colour)': toConsole(run, { color: true }),
})

/** Which forms of the key a text holds: none, for every output. */
function leaks(text: string): string[] {
  const found: string[] = []
  if (text.toLowerCase().includes('4f9a1c')) found.push('the key, in any letter case')
  if (text.toLowerCase().includes('sk-live')) found.push("the key's beginning")
  if (new Redactor([SECRET]).text(text) !== text) found.push('the key, escaped (\\u, %, &#)')
  return found
}

describe('golden reports of the sample run', () => {
  it.each([
    ['json', 'report.json'],
    ['html', 'report.html'],
    ['markdown', 'report.md'],
    ['junit', 'junit.xml'],
  ] as const)('%s', async (format, file) => {
    await expect(WRITERS[format](blanked(sampleRun()))).toMatchFileSnapshot(`${GOLDEN}${file}`)
  })

  it('console, without colour', async () => {
    await expect(toConsole(blanked(sampleRun()), { color: false })).toMatchFileSnapshot(`${GOLDEN}console.txt`)
  })

  it('console and JUnit of a run stopped by --max-time: incomplete', async () => {
    await expect(toConsole(blanked(incompleteRun()), { color: false })).toMatchFileSnapshot(
      `${GOLDEN}console-incomplete.txt`,
    )
    await expect(WRITERS.junit(blanked(incompleteRun()))).toMatchFileSnapshot(`${GOLDEN}junit-incomplete.xml`)
  })

  it('are byte-stable: the same records in any order give the same bytes', () => {
    const { facts, records } = sample()
    const reversed = buildRunResult([...records].reverse(), facts, sampleRedactor())
    for (const [format, text] of Object.entries(outputs(reversed)))
      expect({ format, same: text === outputs(sampleRun())[format] }).toEqual({ format, same: true })
  })
})

describe('the JSON report', () => {
  it('validates against reporters/result.schema.json, for a non-conformant and an incomplete run', () => {
    const { validate } = validator()
    for (const run of [sampleRun(), incompleteRun()]) {
      const valid = validate(JSON.parse(WRITERS.json(run)))
      expect(validate.errors ?? []).toEqual([])
      expect(valid).toBe(true)
    }
  })

  it('is rejected by the schema when it breaks the model', () => {
    const { validate } = validator()
    const broken = JSON.parse(WRITERS.json(sampleRun()))
    broken.checks[0].outcome = 'fine'
    broken.checks[0].durationMs = 3
    delete broken.totals.unjudged
    expect(validate(broken)).toBe(false)
    expect([...new Set((validate.errors ?? []).map((e) => e.instancePath))].sort()).toEqual([
      '/checks/0',
      '/checks/0/outcome',
      '/totals',
    ])
  })

  it('names the spec operations, no more and no fewer (the schema holds a copy)', () => {
    const { schema } = validator()
    expect([...schema.$defs.OperationId.enum].sort()).toEqual(Object.keys(spec().operations).sort())
  })
})

describe('the sample run', () => {
  it('is non-conformant, with a check not applicable, checks not judged, a warning, an error outside any scenario and cut evidence', () => {
    const run = sampleRun()
    expect(run.verdict).toBe('non-conformant')
    expect(run.totals).toEqual({ checks: 17, passed: 8, failed: 5, warned: 1, skipped: 1, unjudged: 2, errors: 0 })
    expect(run.runErrors).toHaveLength(1)
    const serverError = run.checks.find((c) => c.id === 'no-server-error')!
    expect(serverError.findingsLeftOut).toBe(3)
    expect(serverError.findings[0]!.exchange!.response!.rawBody).toMatch(/\[R… \[truncated: 5017 bytes in all\]$/) // the key straddled the cut: redacted first
    expect(incompleteRun().incomplete).toMatch(
      /^incomplete: --max-time 30 s reached; 8 checks not judged \(listPets\.filter\.status, /,
    )
  })
})

describe('every output of the sample run', () => {
  it('never holds the API key, though the target echoed it everywhere: header value and name, cookie, body, \\u-escaped, URL-encoded, upper case, counterexample, error, curl line', () => {
    const fixture = JSON.stringify(sample().records)
    for (const form of [
      `"x-${SECRET}"`,
      'set-cookie',
      SECRET.toUpperCase(),
      SECRET.replace(/-/g, '%2D'),
      '\\\\u0073\\\\u006b',
      'X-Token: sk-live',
    ])
      expect(fixture).toContain(form)
    for (const run of [sampleRun(), incompleteRun()]) {
      for (const [format, text] of Object.entries(outputs(run)))
        expect({ format, leaks: leaks(text) }).toEqual({ format, leaks: [] })
    }
  })

  it('shows the failing check, its message, counterexample, request and curl line', () => {
    for (const [format, text] of Object.entries(outputs(sampleRun()))) {
      for (const expected of [
        'createPet.status.201',
        'status 500; documented for createPet: 201, 400, 401',
        'categoryId',
        '$PETSTORE_API_KEY',
        'http://127.0.0.1:4010/v1/pets',
      ]) {
        expect({ format, expected, has: text.includes(expected) }).toEqual({ format, expected, has: true })
      }
    }
  })

  it('puts the failures first in the HTML, right after the totals, before the matrix and every passing check', () => {
    const html = WRITERS.html(sampleRun())
    const at = (marker: string) => html.indexOf(marker)
    expect(at('<section id="failures">')).toBeGreaterThan(at('class="totals"'))
    expect(at('<section id="failures">')).toBeLessThan(at('<section id="matrix">'))
    expect(at('<section id="failures">')).toBeLessThan(at('<section id="checks">'))
  })

  it('escapes the HTML a target sent: no live tag reaches the page', () => {
    const html = WRITERS.html(sampleRun())
    expect(html).not.toMatch(/<script/i)
    expect(html).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;')
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"<\s]*"/) // no external resource or link attribute
  })

  it('keeps terminal escapes of the target out of the console and the Markdown', () => {
    const { 'console (colour)': text, markdown } = outputs(sampleRun())
    const verbose = toConsole(sampleRun(), { color: true, verbose: true })
    for (const console of [text!, verbose]) {
      const withoutOurColours = console.replace(/\u001b\[(?:1|2|22|31|32|33|39)m/g, '')
      expect(withoutOurColours).not.toContain('\u001b')
    }
    // The body that carried them is shown whole with --verbose: its escapes as text.
    expect(verbose).toContain('\\u001b[31mInternal error')
    expect(markdown).not.toContain('\u001b')
  })

  it('colours the console only when asked', () => {
    expect(toConsole(sampleRun(), { color: true })).toContain('\u001b[31m')
    expect(toConsole(sampleRun(), { color: false })).not.toContain('\u001b')
  })
})

describe('the console report', () => {
  it('cuts a long body to a few lines with its size, and shows it whole with --verbose', () => {
    const run = structuredClone(sampleRun())
    const finding = run.checks.flatMap((c) => c.findings).find((f) => f.exchange?.response)!
    const pets = Array.from({ length: 300 }, (_, i) => ({ id: i + 1, name: `pet ${i + 1}`, categoryId: 1 }))
    const body = JSON.stringify(pets, null, 2)
    finding.exchange!.response!.rawBody = body
    finding.exchange!.request.url = 'http://127.0.0.1:4010/v1/p' // the shortest exchange of its check, so shown
    const cut = toConsole(run, { color: false })
    const lines = body.split('\n').length
    expect(cut).toContain(
      `< … ${lines - 3} more lines, ${Math.round(Buffer.byteLength(body) / 1024)} KB in all (--verbose prints it)`,
    )
    expect(cut).not.toContain('"name": "pet 3"')
    const whole = toConsole(run, { color: false, verbose: true })
    expect(whole).toContain('"name": "pet 300"')
    expect(whole.match(/"name": "pet \d+"/g)).toHaveLength(300)
    expect(whole).not.toContain('more lines')
  })

  it('lists failing checks first, each with its evidence, then warnings, then the rest; the verdict is the last line', () => {
    const text = toConsole(sampleRun(), { color: false })
    const order = [
      'Failures (5)',
      'reproduce: curl',
      'Warnings (1)',
      'Not judged (2)',
      'Not applicable (1)',
      'Passed (8)',
      'Documented responses provoked',
      '\nRun\n',
      '  replay',
    ]
    const at = order.map((line) => text.indexOf(line))
    expect(at.every((i) => i >= 0)).toBe(true)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
    expect(text.trimEnd().split('\n').at(-1)).toBe('Verdict: NON-CONFORMANT (5 failed)')
  })

  it('ends an incomplete run with the line that names what was not judged', () => {
    const lines = toConsole(incompleteRun(), { color: false }).trimEnd().split('\n')
    const verdict = lines.indexOf('Verdict: INCOMPLETE')
    expect(verdict).toBeGreaterThan(-1)
    expect(
      lines
        .slice(verdict + 1)
        .join(' ')
        .replace(/ +/g, ' '),
    ).toMatch(/^incomplete: --max-time 30 s reached; 8 checks not judged \(/)
  })
})

describe('the replay line', () => {
  it('works as printed: --seed=N (a negative seed is not read as an option), --base-url for a remote target, the key from the environment', () => {
    const run = sampleRun()
    expect(replayCommand(run)).toBe(
      'npx --no-install petstore-conformance --base-url http://127.0.0.1:4010/v1 --seed=-154020823 --runs 30',
    )
    expect(replayNote(run)).toMatch(/^PETSTORE_API_KEY must be set/)
    const embedded = { ...run, target: { baseUrl: 'http://127.0.0.1:40111/v1', embedded: true }, strict: true }
    expect(replayCommand(embedded)).toBe('npx --no-install petstore-conformance --seed=-154020823 --runs 30 --strict')
    expect(replayNote(embedded)).toBeUndefined()
    expect(replayCommand({ ...run, target: { baseUrl: "http://h/v1?a=1&b='x'", embedded: false } })).toContain(
      `--base-url 'http://h/v1?a=1&b='\\''x'\\'''`,
    )
  })

  it('is printed by the console and the Markdown, with the note about the key', () => {
    const command =
      'npx --no-install petstore-conformance --base-url http://127.0.0.1:4010/v1 --seed=-154020823 --runs 30'
    const text = toConsole(sampleRun(), { color: false })
    // A command to copy whole on any platform: on a line of its own when the fact's line would pass 100 columns.
    expect(text).toContain(`  replay\n  ${command}\n              (PETSTORE_API_KEY must be set`)
    const markdown = WRITERS.markdown(sampleRun())
    expect(markdown).toContain(`Replay: \`${command}\` (PETSTORE\\_API\\_KEY must be set`)
  })
})

describe('Markdown escaping', () => {
  it('keeps target text from formatting, linking or opening HTML', () => {
    expect(markdownText('<img src=x> *a* | http://evil.example www.evil.example a@b.c')).toBe(
      '\\<img src=x\\> \\*a\\* \\| http\\://evil.example www\\.evil.example a\\@b.c',
    )
    expect(markdownCode('a ` b | c')).toBe('``a ` b \\| c``')
    expect(markdownBlock('x\n```\ny')).toBe('````\nx\n```\ny\n````')
  })

  it('has no link in the sample summary: outside code, no link syntax and no bare URL', () => {
    const prose = WRITERS.markdown(sampleRun())
      .replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '') // fenced blocks render as text
      .replace(/(`+)[\s\S]*?\1/g, '') // so do code spans
    expect(prose).toContain('Pet Store conformance')
    expect(prose).not.toMatch(/\]\(|<https?:/)
    expect(prose).not.toMatch(/(?<!\\)https?:\/\//)
  })
})

describe('HTML escaping', () => {
  it('escapes the five special characters and shows control characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>\u0007`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;\\u0007')
  })
})

describe('bounded output', () => {
  it('writes every format of a run whose target sent huge, deep and wide answers quickly and small', () => {
    const headers = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x-h${i}`, 'v'.repeat(1000)]))
    // Flat strings, as records arrive from a worker.
    const flat = (start: string, length: number) =>
      Buffer.alloc(length, '9').fill(start, 0, start.length).toString('latin1')
    const bodies = [flat('[[[[', 16 * 2 ** 20), flat('{"id":', 8_000_000)]
    const findings = bodies.flatMap((rawBody, b) =>
      Array.from({ length: 50 }, (_, i) => ({
        checkId: 'a',
        severity: 'fail' as const,
        source: 'suite' as const,
        message: i === 0 ? rawBody : `${b}.${i}`,
        exchange: {
          request: { method: 'GET', url: 'http://x/v1/pets', headers },
          response: { status: 200, headers, rawBody },
          durationMs: 1,
        },
        curl: rawBody,
        counterexample: rawBody,
      })),
    )
    const started = performance.now()
    const { facts } = sample()
    const run = buildRunResult(
      [
        {
          scenario: 's',
          checks: [check('a', { outcome: 'failed', findings })],
          observations: [],
          statusesSeen: [],
          requestsSent: 1,
          recordsCreated: 0,
        },
      ],
      { ...facts, catalogue: [] },
      sampleRedactor(),
    )
    const texts = outputs(run)
    expect(performance.now() - started).toBeLessThan(5000)
    for (const [format, text] of Object.entries(texts))
      expect({ format, small: text.length < 600_000 }).toEqual({ format, small: true })
  })
})

describe('writeReports', () => {
  it('creates the output directory, writes exactly the selected files and redacts each text once more', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-reports-'))
    try {
      const out = join(dir, 'nested', 'reports')
      // Built without redaction, as a careless in-process caller might: the write itself still redacts.
      const { facts, records } = sample()
      const unredacted = buildRunResult(records, facts, new Redactor([]))
      expect(JSON.stringify(unredacted)).toContain(SECRET)
      const { written, errors } = await writeReports(
        unredacted,
        ['console', 'json', 'markdown', 'junit', 'html'],
        out,
        sampleRedactor(),
      )
      expect(errors).toEqual([])
      expect(written).toEqual(
        Object.fromEntries(
          (['json', 'html', 'markdown', 'junit'] as const).map((f) => [f, join(out, REPORT_FILES[f])]),
        ),
      )
      expect((await readdir(out)).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
      for (const path of Object.values(written)) {
        const text = await readFile(path, 'utf8')
        expect({ path, full: text.includes(SECRET) || text.toUpperCase().includes(SECRET.toUpperCase()) }).toEqual({
          path,
          full: false,
        })
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('returns what it could not write, and writes the rest', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-reports-'))
    try {
      await writeReports(sampleRun(), ['json'], dir, sampleRedactor())
      // The output directory is a file now: nothing can be written into it.
      const { written, errors } = await writeReports(
        sampleRun(),
        ['json', 'html'],
        join(dir, REPORT_FILES.json),
        sampleRedactor(),
      )
      expect([written, errors.length]).toEqual([{}, 1])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
