import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { spec } from '../spec/index.js'
import type { RunResult } from '../suites/model.js'
import { REPORT_FILES, WRITERS, buildRunResult, toConsole, writeReports, type CaseResult, type RunFacts } from './index.js'
import { escapeHtml } from './html.js'
import { markdownBlock, markdownCode, markdownText } from './markdown.js'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

const FIXTURE = new URL('../fixtures/reports/sample-cases.json', import.meta.url)
const GOLDEN = '../fixtures/reports/golden/'
const SECRET = 'sk-live-SECRET-4f9a1c'

interface Sample {
  options: RunFacts['options']
  facts: Omit<RunFacts, 'options'>
  cases: CaseResult[]
}

// Plain JSON: the fixture's int64 values sit inside strings (raw bodies), where no parser can round them.
const sample: Sample = JSON.parse(readFileSync(FIXTURE, 'utf8'))
const sampleRun = (): RunResult => buildRunResult(spec(), sample.cases, { ...sample.facts, options: sample.options })
const blanked = (run: RunResult): RunResult => ({ ...run, startedAt: '' })

function validator() {
  const schema = JSON.parse(readFileSync(new URL('./result.schema.json', import.meta.url), 'utf8'))
  const ajv = new Ajv2020({ allErrors: true, strict: true })
  addFormats(ajv)
  return { schema, validate: ajv.compile(schema) }
}

describe('golden reports of the sample run', () => {
  it('json', async () => {
    await expect(WRITERS.json(blanked(sampleRun()))).toMatchFileSnapshot(`${GOLDEN}report.json`)
  })
  it('html', async () => {
    await expect(WRITERS.html(blanked(sampleRun()))).toMatchFileSnapshot(`${GOLDEN}report.html`)
  })
  it('markdown', async () => {
    await expect(WRITERS.markdown(blanked(sampleRun()))).toMatchFileSnapshot(`${GOLDEN}report.md`)
  })
  it('console, without colour', async () => {
    await expect(toConsole(blanked(sampleRun()), { color: false })).toMatchFileSnapshot(`${GOLDEN}console.txt`)
  })

  it('are byte-stable: the same run gives the same bytes, whatever order the test cases came in', () => {
    const reversed = buildRunResult(spec(), [...sample.cases].reverse(), { ...sample.facts, options: sample.options })
    for (const write of Object.values(WRITERS)) expect(write(reversed)).toBe(write(sampleRun()))
  })
})

describe('the JSON report', () => {
  it('validates against reporters/result.schema.json', () => {
    const { validate } = validator()
    const valid = validate(JSON.parse(WRITERS.json(sampleRun())))
    expect(validate.errors ?? []).toEqual([])
    expect(valid).toBe(true)
  })

  it('is rejected by the schema when it breaks the model', () => {
    const { validate } = validator()
    const broken = JSON.parse(WRITERS.json(sampleRun()))
    broken.checks[0].outcome = 'fine'
    delete broken.totals.warned
    expect(validate(broken)).toBe(false)
    expect((validate.errors ?? []).map((e) => e.instancePath).sort()).toEqual(['/checks/0/outcome', '/totals'])
  })

  it('names the spec operations, no more and no fewer (the schema holds a copy)', () => {
    const { schema } = validator()
    expect([...schema.$defs.OperationId.enum].sort()).toEqual(Object.keys(spec().operations).sort())
  })
})

describe('every report of the sample run', () => {
  const outputs = (): Record<string, string> => {
    const run = sampleRun()
    return { ...Object.fromEntries(Object.entries(WRITERS).map(([name, write]) => [name, write(run)])), console: toConsole(run, { color: true }) }
  }

  it('never holds the API key, although the target echoed it and the exchange carried it unredacted', () => {
    expect(JSON.stringify(sample)).toContain(SECRET) // the fixture does carry it
    for (const [format, text] of Object.entries(outputs())) expect({ format, leaked: text.includes(SECRET) }).toEqual({ format, leaked: false })
  })

  it('shows the failing check, its message, counterexample and curl line', () => {
    for (const [format, text] of Object.entries(outputs())) {
      for (const expected of ['createPet.status.201', 'status 500; documented for createPet: 201, 400, 401', 'categoryId', '$PETSTORE_API_KEY']) {
        expect({ format, has: text.includes(expected) }).toEqual({ format, has: true })
      }
    }
  })

  it('escapes the HTML a target sent: no live tag reaches the page', () => {
    const html = WRITERS.html(sampleRun())
    expect(html).not.toMatch(/<script/i)
    expect(html).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;')
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"<\s]*"/) // no external resource or link attribute
  })

  it('keeps terminal escapes of the target out of the console and the Markdown', () => {
    const { console: text, markdown } = outputs()
    const withoutOurColours = text!.replace(/\u001b\[(?:1|2|22|31|32|33|39)m/g, '')
    expect(withoutOurColours).not.toContain('\u001b')
    expect(withoutOurColours).toContain('\\u001b[31mInternal error')
    expect(markdown).not.toContain('\u001b')
  })

  it('colours the console only when asked', () => {
    expect(toConsole(sampleRun(), { color: true })).toContain('\u001b[31m')
    expect(toConsole(sampleRun(), { color: false })).not.toContain('\u001b')
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

describe('writeReports', () => {
  it('creates the output directory and writes exactly the selected files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-reports-'))
    try {
      const out = join(dir, 'nested', 'reports')
      const written = await writeReports(sampleRun(), ['console', 'json', 'markdown'], out)
      expect(written).toEqual({ json: join(out, REPORT_FILES.json), markdown: join(out, REPORT_FILES.markdown) })
      expect((await readdir(out)).sort()).toEqual(['report.json', 'report.md'])
      expect(JSON.parse(await readFile(written.json!, 'utf8')).verdict).toBe('non-conformant')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
