import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Redactor, type RunResult } from '../model/index.js'
import { EDGE_REFUSES, refuseAtEdge, serveNode } from '../test-support/misbehaving.js'
import { launchChromium, type Browser } from './test-support/chromium.js'
import { readJunit, type Junit } from './test-support/junit.js'
import { runProcess, type Finished } from '../test-support/run-command.js'
import { targets, type Served } from '../test-support/targets.js'

const start = targets(afterAll)

// Real runs of `petstore-conformance` with every report format: against the correct stub, against a stub whose
// Error bodies carry the wrong status, and through a proxy that echoes the key everywhere a target could
// (header value and name, cookie, body field, \u-escaped, upper case). No output may hold the key.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const COMMAND = join(ROOT, 'bin', 'petstore-conformance.js')
const KEY = 'sk-live-SECRET-4f9a1c'
const FORMATS = ['console', 'junit', 'json', 'html', 'markdown'].flatMap((f) => ['--reporter', f])

interface Outcome {
  finished: Finished
  dir: string
  files: Record<string, string>
  report: RunResult
  junit: Junit
}

let browser: Browser
let scratch: string
const outcomes: Record<'correct' | 'faulty' | 'echoing', Outcome> = {} as never

async function conformanceRun(name: string, baseUrl: string): Promise<Outcome> {
  const dir = join(scratch, name)
  const args = [COMMAND, '--base-url', baseUrl, '--seed=-1', '--runs', '10', ...FORMATS, '--output-dir', dir]
  // The key from the environment, as the replay line says.
  const finished = await runProcess(process.execPath, args, { cwd: ROOT, env: { PETSTORE_API_KEY: KEY } })
  const files: Record<string, string> = {}
  for (const file of await readdir(dir).catch(() => [])) files[file] = await readFile(join(dir, file), 'utf8')
  const report = JSON.parse(files['report.json'] ?? 'null') as RunResult
  return { finished, dir, files, report, junit: readJunit(files['junit.xml'] ?? '') }
}

/** A proxy in front of `target` that echoes the Authorization token back in every way it can. */
async function echoingProxy(target: string): Promise<Served> {
  return serveNode(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (EDGE_REFUSES.has(req.method ?? '')) return refuseAtEdge(res)
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
    ) as Record<string, string>
    const answer = await fetch(`${target}${req.url!.replace(/^\/v1/, '')}`, {
      method: req.method,
      headers,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    })
    const token = (req.headers.authorization ?? '').replace(/^\S+\s*/, '')
    let body = await answer.text()
    if (token && body.startsWith('{')) {
      const escaped = [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
      body = `{"seen":${JSON.stringify(token.toUpperCase())},"escaped":"${escaped}",${body.slice(1)}`
    }
    const echo: Record<string, string> = token
      ? { 'x-echo': `Bearer ${token}`, 'set-cookie': `t=${token}; Path=/`, [`x-${token}`]: '1' }
      : {}
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', ...echo })
    res.end(body)
  })
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'petstore-e2e-reports-'))
  browser = await launchChromium()
  const correct = await start({ stub: { apiKeys: [KEY] } })
  const faulty = await start({ stub: { apiKeys: [KEY], fault: 'error-status-mismatch' } })
  const echoed = await start({ stub: { apiKeys: [KEY] } })
  const proxy = await start({ serve: () => echoingProxy(echoed.url) })
  try {
    // One after the other: runs side by side would only share two cores.
    outcomes.correct = await conformanceRun('correct', correct.url)
    outcomes.faulty = await conformanceRun('faulty', faulty.url)
    outcomes.echoing = await conformanceRun('echoing', proxy.url)
  } finally {
    await Promise.all([proxy.close(), correct.close(), faulty.close(), echoed.close()])
  }
}, 300_000)

afterAll(async () => {
  await browser?.close()
  if (scratch) await rm(scratch, { recursive: true, force: true })
})

async function matrixOutcomes(outcome: Outcome): Promise<Record<string, string>> {
  const page = await browser.context.newPage()
  try {
    await page.goto(pathToFileURL(join(outcome.dir, 'report.html')).href)
    const cells = await page
      .locator('table.matrix [data-outcome][data-status]')
      .evaluateAll((els) =>
        els.map((e) => [
          `${e.getAttribute('data-op')} ${e.getAttribute('data-status')}`,
          e.getAttribute('data-outcome') ?? '',
        ]),
      )
    return Object.fromEntries(cells)
  } finally {
    await page.close()
  }
}

const schemaValidator = async () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true })
  addFormats(ajv)
  return ajv.compile(JSON.parse(await readFile(new URL('./result.schema.json', import.meta.url), 'utf8')))
}

describe('a run against the correct stub', () => {
  it('exits 0 with a conformant verdict in every format', async () => {
    const { finished, files, report, junit } = outcomes.correct
    expect(finished.stderr).toBe('')
    expect([report.verdict, report.incomplete, finished.code]).toEqual(['conformant', undefined, 0])
    expect(Object.keys(files).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
    expect((await schemaValidator())(report)).toBe(true)
    expect(report.recordsCreated).toBeLessThanOrEqual(report.recordBudget)
    expect(finished.stdout.trimEnd().split('\n').at(-1)).toBe('Verdict: conformant')
    expect(junit.parseError).toBeUndefined()
    expect([junit.totals.failures, junit.totals.tests]).toEqual([0, report.checks.length])
    expect(files['report.md']).toMatch(/^## ✅ Pet Store conformance: conformant/)
  })

  it('prints a replay line that works as printed', () => {
    expect(outcomes.correct.finished.stdout).toContain(
      `npx --no-install petstore-conformance --base-url ${outcomes.correct.report.target.baseUrl} --seed=-1 --runs 10`,
    )
    expect(outcomes.correct.finished.stdout).toContain('PETSTORE_API_KEY must be set')
  })

  it('shows no failed cell in the HTML matrix, and the success of each operation as provoked', async () => {
    const cells = await matrixOutcomes(outcomes.correct)
    expect(Object.entries(cells).filter(([, outcome]) => outcome === 'failed')).toEqual([])
    expect([cells['listPets 200'], cells['createPet 201'], cells['getPet 200']]).toEqual(['passed', 'passed', 'passed'])
  })
})

describe('a run against a stub whose Error bodies carry the wrong status', () => {
  it('exits 1 and names the failing check in the JSON report, with the exchange and curl line', async () => {
    const { finished, report } = outcomes.faulty
    expect(finished.code).toBe(1)
    expect((await schemaValidator())(report)).toBe(true)
    expect(report.verdict).toBe('non-conformant')
    const echoed = report.checks.find((c) => c.id === 'error.status-echoed')
    expect(echoed?.outcome).toBe('failed')
    expect(echoed!.findings[0]!.exchange?.response?.status).toBeGreaterThanOrEqual(400)
    expect(echoed!.findings[0]!.curl).toMatch(/^curl /)
  })

  it('fails that check once in JUnit, and shows it on the console, in HTML and in Markdown', async () => {
    const { finished, files, report, junit } = outcomes.faulty
    const failing = report.checks.filter((c) => c.outcome === 'failed' && c.severity === 'fail').map((c) => c.id)
    expect(junit.cases.filter((c) => c.failure).map((c) => c.name)).toEqual(failing)
    for (const id of failing) {
      expect({
        id,
        console: finished.stdout.includes(id),
        html: files['report.html']!.includes(id),
        md: files['report.md']!.includes(id),
      }).toEqual({
        id,
        console: true,
        html: true,
        md: true,
      })
    }
    expect(finished.stdout).toContain('reproduce: curl')
    expect(files['report.md']).toContain('```sh\ncurl ')
    const cells = await matrixOutcomes(outcomes.faulty)
    expect(cells['getPet 404']).toBe('failed') // the 404 Error says 400
  })
})

describe('the API key', () => {
  it('appears in no report file and nowhere on stdout or stderr, in any run, even echoed in every form', () => {
    const redactor = new Redactor([KEY])
    for (const [name, outcome] of Object.entries(outcomes)) {
      const texts = { stdout: outcome.finished.stdout, stderr: outcome.finished.stderr, ...outcome.files }
      expect(Object.keys(outcome.files)).toHaveLength(4)
      for (const [where, text] of Object.entries(texts)) {
        const leaked = text.toLowerCase().includes(KEY.toLowerCase()) || redactor.text(text) !== text
        expect({ name, where, leaked }).toEqual({ name, where, leaked: false })
      }
    }
    expect(outcomes.echoing.files['report.json']).toContain('[REDACTED]')
  })
})
