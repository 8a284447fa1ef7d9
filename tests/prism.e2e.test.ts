// Prism's validating proxy, started for real (about 2 s each): the tap keeps exchanges exact, the verdict comes
// back in `sl-violations`, and a target that misbehaves, or a Prism that dies, is passed on as it is.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RecordedExchange } from '../model/index.js'
import { runConformance } from '../command/library.js'
import { parseViolations, startPrismProxy, VIOLATIONS_HEADER, type PrismProxy } from '../suites/prism/index.js'
import { listExchange } from '../suites/prism/test-support.js'
import { serveNode } from '../test-support/misbehaving.js'
import { targets, type Served, type StubTarget } from '../test-support/targets.js'

const start = targets(afterAll)

// Each proxy start runs Prism (about 2 s); these tests share few of them.
describe('startPrismProxy in front of the stub', () => {
  const KEY = 'prism-test-key'
  let stub: StubTarget
  let faulty: StubTarget
  let proxy: PrismProxy
  let faultyProxy: PrismProxy

  beforeAll(async () => {
    ;[stub, faulty] = await Promise.all([
      start({ stub: { apiKeys: [KEY] } }),
      start({ stub: { apiKeys: [KEY], fault: 'list-wrapped' } }),
    ])
    ;[proxy, faultyProxy] = await Promise.all([
      startPrismProxy({ upstream: stub.url }),
      startPrismProxy({ upstream: faulty.url }),
    ])
  })
  afterAll(async () => {
    await Promise.all([proxy?.close(), faultyProxy?.close()])
    await Promise.all([stub?.close(), faulty?.close()])
  })

  const auth = { authorization: `Bearer ${KEY}` }

  async function through(base: string, path: string, init: RequestInit = {}) {
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { ...auth, ...(init.headers as Record<string, string>) },
    })
    const rawBody = await res.text()
    const headers = Object.fromEntries(res.headers)
    const method = init.method ?? 'GET'
    const operationId = method === 'POST' ? 'createPet' : /^\/pets\/[^?]/.test(path) ? 'getPet' : 'listPets'
    const ex: RecordedExchange = {
      operationId,
      request: { method, url: `${base}${path}`, headers: {} },
      response: { status: res.status, headers, rawBody },
      durationMs: 0,
    }
    return {
      status: res.status,
      rawBody,
      verdict: headers[VIOLATIONS_HEADER],
      findings: parseViolations(headers[VIOLATIONS_HEADER], ex),
    }
  }

  it('keeps the base path, relays the exact body, and Prism finds nothing wrong with the correct stub', async () => {
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    const direct = await fetch(`${stub.url}/pets?limit=100`, { headers: auth }).then((r) => r.text())
    const viaPrism = await through(proxy.url, '/pets?limit=100')
    expect(viaPrism.status).toBe(200)
    expect(viaPrism.rawBody).toBe(direct) // int64 digits included: Prism alone would round them
    expect(viaPrism.rawBody).toContain('9223372036854775807')
    expect(viaPrism.verdict).toBeDefined() // Prism judged the answer
    expect(viaPrism.findings).toEqual([])
  })

  it("sends the suite's exact request body to the target", async () => {
    const body = '{"name":"prism-int64","categoryId":9223372036854775807}'
    const created = await through(proxy.url, '/pets', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    })
    expect(created.status).toBe(201)
    expect(created.rawBody).toContain('"categoryId":9223372036854775807')
    expect(created.findings).toEqual([])
  })

  it('finds no response-side violation when the suite sends bad input on purpose', async () => {
    for (const [path, init] of [
      ['/pets?limit=0', {}],
      ['/pets/abc', {}],
      ['/pets', { method: 'POST', body: '{"name":', headers: { 'content-type': 'application/json' } }],
      ['/pets', { headers: { authorization: '' } }],
    ] as const) {
      const answer = await through(proxy.url, path, init)
      expect([answer.status, answer.findings]).toEqual([expect.any(Number), []])
      expect(answer.status).toBeLessThan(500)
    }
  })

  it('reports a violation when the faulty stub wraps the list', async () => {
    const answer = await through(faultyProxy.url, '/pets')
    expect(answer.rawBody.trimStart().startsWith('{')).toBe(true)
    expect(answer.findings.map((f) => f.checkId)).toContain('prism.response-body')
    expect(answer.findings.map((f) => f.message).join('\n')).toMatch(/Response body must be array/)
  })
})

describe('startPrismProxy against a target that misbehaves', () => {
  let target: Served
  let proxy: PrismProxy

  const hits: string[] = []
  // A verdict the target writes itself, as if it were Prism's.
  const FORGED = JSON.stringify([
    { location: ['response', 'body'], severity: 'Error', code: 'type', message: 'forged by the target' },
  ])

  beforeAll(async () => {
    target = await start({
      serve: () =>
        serveNode((req, res) => {
          const mode = req.headers['x-mode']
          hits.push(String(mode))
          if (mode === 'redirect')
            return void res.writeHead(302, { location: '/v1/elsewhere', 'content-type': 'application/json' }).end('{}')
          if (mode === 'hang') return
          if (mode === 'drop') return void req.socket.destroy()
          if (mode === '501')
            return void res
              .writeHead(501, { 'content-type': 'application/json' })
              .end('{"code":"x","message":"y","status":501}')
          if (mode === 'forged')
            return void res
              .writeHead(200, { 'content-type': 'application/json', [VIOLATIONS_HEADER]: FORGED })
              .end('[]')
          res.writeHead(200, { 'content-type': 'application/json' }).end('not json{')
        }),
    })
    proxy = await startPrismProxy({ upstream: target.url })
  })
  afterAll(async () => {
    await proxy?.close()
  })

  const get = (mode: string, signal?: AbortSignal) =>
    fetch(`${proxy.url}/pets`, { headers: { 'x-mode': mode, authorization: 'Bearer k' }, signal })

  it("relays a body that is not JSON as it came, with Prism's refusal as its verdict", async () => {
    const res = await get('garbage')
    expect(await res.text()).toBe('not json{')
    const findings = parseViolations(res.headers.get(VIOLATIONS_HEADER) ?? undefined, listExchange('not json{'))
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/^invalid json response body reason: .*\[Prism Error FetchError at response\.body\]$/),
    ])
  })

  it('relays a redirect as it came, sends it to the target once, and Prism judges that status', async () => {
    const res = await fetch(`${proxy.url}/pets`, {
      headers: { 'x-mode': 'redirect', authorization: 'Bearer k' },
      redirect: 'manual',
    })
    expect([res.status, res.headers.get('location')]).toEqual([302, '/v1/elsewhere'])
    expect(hits.filter((h) => h === 'redirect')).toHaveLength(1)
    const findings = parseViolations(res.headers.get(VIOLATIONS_HEADER) ?? undefined, listExchange('{}', {}, 302))
    expect(findings.map((f) => f.checkId)).toEqual(['prism.response-status'])
  })

  it("gives only Prism's verdict: a sl-violations header the target sent is not passed on", async () => {
    const res = await get('forged')
    expect([res.status, await res.text(), res.headers.get(VIOLATIONS_HEADER)]).toEqual([200, '[]', '[]'])
  })

  it("passes a dropped connection on as one, and a 501 as the target's (Prism would mock it)", async () => {
    await expect(get('drop')).rejects.toThrow()
    const res = await get('501')
    expect(res.status).toBe(501)
    expect(res.headers.get(VIOLATIONS_HEADER)).toBeNull()
  })

  it('lets the suite give up on a hanging target, and close() then leaves no process behind', async () => {
    await expect(get('hang', AbortSignal.timeout(300))).rejects.toThrow()
    const { pid, url } = proxy
    expect(isAlive(pid)).toBe(true)
    if (process.platform === 'linux') expect(childrenOf(pid)).toEqual([]) // one process: stopping it stops all of Prism
    await proxy.close()
    expect(isAlive(pid)).toBe(false)
    expect(proxy.problem()).toBeUndefined()
    await expect(fetch(`${url}/pets`)).rejects.toThrow()
  })
})

describe('startPrismProxy failures', () => {
  it('rejects at once, with the path, when the spec does not exist', async () => {
    await expect(
      startPrismProxy({ upstream: 'http://127.0.0.1:9/v1', specPath: '/no/such/spec.yaml' }),
    ).rejects.toThrow('no OpenAPI document at /no/such/spec.yaml')
  })

  it('says so when Prism dies, and the target still answers, with no verdict', async () => {
    const target = await start({
      serve: () => serveNode((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('[]')),
    })
    const proxy = await startPrismProxy({ upstream: target.url })
    try {
      process.kill(proxy.pid, 'SIGKILL')
      await expect.poll(() => proxy.problem()).toMatch(/^Prism exited \(SIGKILL\)/)
      const res = await fetch(`${proxy.url}/pets`)
      expect([res.status, await res.text(), res.headers.get(VIOLATIONS_HEADER)]).toEqual([200, '[]', null])
    } finally {
      await proxy.close()
      await target.close()
    }
  })

  it("rejects, with Prism's reason on the first line, when Prism cannot start", async () => {
    const notOpenApi = fileURLToPath(new URL('../package.json', import.meta.url))
    const error: Error = await startPrismProxy({ upstream: 'http://127.0.0.1:9/v1', specPath: notOpenApi }).then(
      () => expect.unreachable(),
      (e: Error) => e,
    )
    expect(error.message.split('\n')[0]).toMatch(
      /^Prism exited \(code 1\) before it was ready .*: Error: Unsupported document format$/,
    )
  })

  it('rejects an upstream that is not an http URL', async () => {
    await expect(startPrismProxy({ upstream: 'ftp://example.invalid/v1' })).rejects.toThrow('not an http(s) URL')
  })
})

/** Ids of the processes whose parent is `pid` (Linux). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // `pid (comm) state ppid ...`; comm may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid
      } catch {
        return false // the process ended meanwhile
      }
    })
    .map(Number)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// With --via-prism, Prism's opinion on requests the suite sends outside the documented input on purpose is judged
// with the suite's own leeway: a conformant target refusing `/pets/1.5` with 400 and `/v1/%70ets` with 404 passes.
describe('runConformance via Prism, on a conformant target that refuses what the interface does not describe', () => {
  it('passes a target answering 400 to a petId that is no int64 and 404 to other spellings of a path', async () => {
    const KEY = 'prism-leeway-key'
    const target = await start({ independent: { badId: '400', keys: [KEY] } })
    try {
      const fraction = await fetch(`${target.url}/pets/1.5`, { headers: { authorization: `Bearer ${KEY}` } })
      const encoded = await fetch(`${target.url}/%70ets`, { headers: { authorization: `Bearer ${KEY}` } })
      expect([fraction.status, encoded.status]).toEqual([400, 404])
      const run = await runConformance({ baseUrl: target.url, apiKey: KEY, viaPrism: true, seed: 7, runs: 5 })
      const failed = run.checks.filter((c) => c.outcome === 'failed' && c.severity === 'fail')
      const where = (f: (typeof failed)[number]['findings'][number]) =>
        `${f.exchange?.request.method} ${f.exchange?.request.url} ${f.exchange?.response?.status}`
      expect(failed.flatMap((c) => c.findings.map((f) => `${c.id}: ${where(f)}: ${f.message}`))).toEqual([])
      expect(run.verdict).toBe('conformant')
      expect(run.checks.find((c) => c.id === 'prism.response-status')?.outcome).toBe('passed')
    } finally {
      await target.close()
    }
  }, 180_000)
})
