import { existsSync, readdirSync, readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStub, type Stub } from '../stub/index.js'
import type { RecordedExchange } from './model.js'
import {
  parseViolations,
  prismBin,
  prismCheckResults,
  prismPath,
  startPrismProxy,
  verdictHeader,
  violationIn,
  VIOLATIONS_HEADER,
  type PrismProxy,
} from './prism.js'

// Header values as Prism 5.14.2 sent them (recorded through `prism proxy spec/petstore.yaml`).
const RECORDED = {
  requestOnly: JSON.stringify([
    { location: ['request', 'query', 'limit'], severity: 'Error', code: 'minimum', message: 'Request query parameter limit must be >= 1' },
    { location: ['request'], severity: 'Error', code: 401, message: 'Invalid security scheme used' },
    { location: ['request'], severity: 'Warning', message: 'Selected route not found' },
  ]),
  badEnum: JSON.stringify([
    { location: ['request', 'query', 'status'], severity: 'Error', code: 'enum', message: 'Request query parameter status must be equal to one of the allowed values: available, pending, sold' },
    { location: ['response', 'body', '0', 'status'], severity: 'Error', code: 'enum', message: 'Response body property 0.status must be equal to one of the allowed values: available, pending, sold' },
  ]),
  undocumentedStatus: JSON.stringify([
    { location: ['response'], severity: 'Warning', message: 'Unable to match the returned status code with those defined in the document: 200,400,401' },
  ]),
  textContentType: JSON.stringify([
    { location: ['response'], severity: 'Error', message: 'The received media type "text/plain" does not match the one specified in the current response: application/json' },
    { location: ['response', 'body'], severity: 'Error', code: 'type', message: 'Response body must be array' },
  ]),
  int64Max: JSON.stringify([
    { location: ['response', 'body', '0', 'categoryId'], severity: 'Error', code: 'maximum', message: 'Response body property 0.categoryId must be <= 9007199254740991' },
  ]),
  int64Min: JSON.stringify([
    { location: ['response', 'body', '0', 'categoryId'], severity: 'Error', code: 'minimum', message: 'Response body property 0.categoryId must be >= -9007199254740991' },
  ]),
  deprecationPattern: JSON.stringify([
    { location: ['response', 'header', 'deprecation'], severity: 'Error', code: 'pattern', message: 'Response header parameter deprecation must match pattern "^@-?[0-9]+$"' },
  ]),
}

function exchange(rawBody: string, headers: Record<string, string> = { 'content-type': 'application/json' }, status = 200): RecordedExchange {
  return {
    operationId: 'listPets',
    request: { method: 'GET', url: 'http://127.0.0.1:1/v1/pets', headers: {} },
    response: { status, headers, rawBody },
    durationMs: 1,
  }
}

const listOf = (categoryId: string) => `[{"id":1,"name":"Rex","categoryId":${categoryId},"status":"available"}]`

describe('parseViolations', () => {
  it('finds nothing without a header, in an empty one, or in request-side violations only', () => {
    const ex = exchange(listOf('1'))
    expect(parseViolations(undefined, ex)).toEqual([])
    expect(parseViolations('', ex)).toEqual([])
    expect(parseViolations('[]', ex)).toEqual([])
    expect(parseViolations(RECORDED.requestOnly, ex)).toEqual([])
  })

  it("turns a response-side Error into a failing finding naming Prism's code, message and where", () => {
    const ex = exchange('[{"id":1,"name":"Rex","categoryId":1,"status":"lost"}]')
    const findings = parseViolations(RECORDED.badEnum, ex)
    expect(findings).toEqual([
      {
        checkId: 'prism.response-body',
        operationId: 'listPets',
        severity: 'fail',
        source: 'prism',
        message: expect.stringMatching(/0\.status must be equal to one of the allowed values.*\[Prism Error enum at response\.body\.0\.status\]/),
        exchange: ex,
      },
    ])
  })

  it('fails an undocumented status, which Prism only warns about when it is not a 2xx', () => {
    const [finding, ...rest] = parseViolations(RECORDED.undocumentedStatus, exchange('{}', {}, 500))
    expect(rest).toEqual([])
    expect(finding).toMatchObject({ checkId: 'prism.response-status', severity: 'fail', source: 'prism' })
    expect(finding!.message).toContain('[Prism Warning at response]')
  })

  it('sorts media-type and body violations under their own check ids', () => {
    const ids = parseViolations(RECORDED.textContentType, exchange(listOf('1'), { 'content-type': 'text/plain' })).map((f) => f.checkId)
    expect(ids).toEqual(['prism.response-content-type', 'prism.response-body'])
  })

  it("drops Prism's ±(2^53 - 1) int64 bound when the exact value is a valid int64, and keeps it when it is not", () => {
    expect(parseViolations(RECORDED.int64Max, exchange(listOf('9223372036854775807')))).toEqual([])
    expect(parseViolations(RECORDED.int64Min, exchange(listOf('-9223372036854775808')))).toEqual([])
    const [outside] = parseViolations(RECORDED.int64Max, exchange(listOf('9223372036854775808')))
    expect(outside?.message).toContain('read exactly, the value is outside int64')
    expect(parseViolations(RECORDED.int64Max, exchange(listOf('1e300')))).toHaveLength(1)
  })

  it('drops the deprecation header Prism adds itself, and keeps a bad one the target sent', () => {
    const withoutHeader = { ...exchange('{}'), operationId: 'getPet' as const }
    expect(parseViolations(RECORDED.deprecationPattern, withoutHeader)).toEqual([])
    const sentByTarget = exchange('{}', { 'content-type': 'application/json', Deprecation: 'true' })
    expect(parseViolations(RECORDED.deprecationPattern, sentByTarget).map((f) => f.checkId)).toEqual(['prism.response-headers'])
  })

  it('reports a header Prism cut short as one finding, and refuses a header it cannot read', () => {
    const cut = `Too many violations! [${'{"location":["response","body","0"],"severity":"Error","code":"type","message":"x"},'.repeat(3)}`
    const findings = parseViolations(cut, exchange('[]'))
    expect(findings).toHaveLength(1)
    expect(findings[0]!.message).toContain('3 response-side')
    expect(() => parseViolations('{not json', exchange('[]'))).toThrow(/unreadable sl-violations/)
  })
})

describe('verdictHeader', () => {
  const answer = (status: number, headers: http.IncomingHttpHeaders, problem?: { type?: string; title?: string }) => ({ status, headers, problem })

  it("passes Prism's header on, and says [] when Prism judged the answer and found nothing", () => {
    expect(verdictHeader(answer(200, { [VIOLATIONS_HEADER]: RECORDED.badEnum }), 200)).toEqual([VIOLATIONS_HEADER, RECORDED.badEnum])
    expect(verdictHeader(answer(200, {}), 200)).toEqual([VIOLATIONS_HEADER, '[]'])
  })

  it('gives no verdict when Prism did not judge the target: no answer, or a 501 that Prism replaced with a mock', () => {
    expect(verdictHeader(undefined, 200)).toEqual([])
    expect(verdictHeader(answer(200, { [VIOLATIONS_HEADER]: '[]' }), 501)).toEqual([])
  })

  it("states Prism's own error when it could not read the target's answer, without the tap's address", () => {
    const title = `invalid json response body at http://127.0.0.1:40000/v1/pets reason: Unexpected end of JSON input`
    const [name, value] = verdictHeader(answer(500, { 'content-type': 'application/problem+json' }, { type: 'FetchError', title }), 200)
    expect(name).toBe(VIOLATIONS_HEADER)
    const findings = parseViolations(value, exchange(''))
    expect(findings.map((f) => f.checkId)).toEqual(['prism.response-body'])
    expect(findings[0]!.message).toBe('invalid json response body reason: Unexpected end of JSON input [Prism Error FetchError at response.body]')
  })
})

describe('prismPath and prismCheckResults', () => {
  it('strips the base path Prism does not route on, and only a whole segment of it', () => {
    expect(prismPath('/v1/pets?limit=1', '/v1')).toBe('/pets?limit=1')
    expect(prismPath('/v1/pets/7', '/v1')).toBe('/pets/7')
    expect(prismPath('/v1', '/v1')).toBe('/')
    expect(prismPath('/v1?x=1', '/v1')).toBe('/?x=1')
    expect(prismPath('/v10/pets', '/v1')).toBe('/v10/pets')
    expect(prismPath('/pets', '')).toBe('/pets')
  })

  it('skips the checks when Prism judged nothing, fails the one with findings, passes the rest', () => {
    const finding = parseViolations(RECORDED.undocumentedStatus, exchange('{}', {}, 500))
    expect(prismCheckResults([], 0).map((c) => c.outcome)).toEqual(['skipped', 'skipped', 'skipped', 'skipped'])
    const results = prismCheckResults(finding, 12)
    expect(results.map((c) => [c.id, c.outcome])).toEqual([
      ['prism.response-status', 'failed'],
      ['prism.response-content-type', 'passed'],
      ['prism.response-body', 'passed'],
      ['prism.response-headers', 'passed'],
    ])
    expect(results.every((c) => c.source === 'prism' && c.exchanges === 12)).toBe(true)
  })

  it("resolves Prism's entry point from node_modules", () => {
    expect(existsSync(prismBin())).toBe(true)
  })
})

// Each proxy start runs Prism (about 2 s); these tests share few of them.
describe('startPrismProxy in front of the stub', () => {
  const KEY = 'prism-test-key'
  let stub: Stub
  let faulty: Stub
  let proxy: PrismProxy
  let faultyProxy: PrismProxy

  beforeAll(async () => {
    ;[stub, faulty] = await Promise.all([startStub({ apiKeys: [KEY] }), startStub({ apiKeys: [KEY], fault: 'list-wrapped' })])
    ;[proxy, faultyProxy] = await Promise.all([startPrismProxy({ upstream: stub.url }), startPrismProxy({ upstream: faulty.url })])
  })
  afterAll(async () => {
    await Promise.all([proxy?.close(), faultyProxy?.close()])
    await Promise.all([stub?.close(), faulty?.close()])
  })

  const auth = { authorization: `Bearer ${KEY}` }

  async function through(base: string, path: string, init: RequestInit = {}) {
    const res = await fetch(`${base}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } })
    const rawBody = await res.text()
    const headers = Object.fromEntries(res.headers)
    const ex: RecordedExchange = { request: { method: init.method ?? 'GET', url: `${base}${path}`, headers: {} }, response: { status: res.status, headers, rawBody }, durationMs: 0 }
    return { status: res.status, rawBody, verdict: headers[VIOLATIONS_HEADER], findings: parseViolations(headers[VIOLATIONS_HEADER], ex) }
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
    const created = await through(proxy.url, '/pets', { method: 'POST', body, headers: { 'content-type': 'application/json' } })
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
  let target: http.Server
  let proxy: PrismProxy

  const hits: string[] = []

  beforeAll(async () => {
    target = http.createServer((req, res) => {
      const mode = req.headers['x-mode']
      hits.push(String(mode))
      if (mode === 'redirect') return void res.writeHead(302, { location: '/v1/elsewhere', 'content-type': 'application/json' }).end('{}')
      if (mode === 'hang') return
      if (mode === 'drop') return void req.socket.destroy()
      if (mode === '501') return void res.writeHead(501, { 'content-type': 'application/json' }).end('{"code":"x","message":"y","status":501}')
      res.writeHead(200, { 'content-type': 'application/json' }).end('not json{')
    })
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    proxy = await startPrismProxy({ upstream: `http://127.0.0.1:${(target.address() as AddressInfo).port}/v1` })
  })
  afterAll(async () => {
    await proxy?.close()
    target.closeAllConnections()
    await new Promise((resolve) => target.close(resolve))
  })

  const get = (mode: string, signal?: AbortSignal) => fetch(`${proxy.url}/pets`, { headers: { 'x-mode': mode, authorization: 'Bearer k' }, signal })

  it("relays a body that is not JSON as it came, with Prism's refusal as its verdict", async () => {
    const res = await get('garbage')
    expect(await res.text()).toBe('not json{')
    const findings = parseViolations(res.headers.get(VIOLATIONS_HEADER) ?? undefined, exchange('not json{'))
    expect(findings.map((f) => f.message)).toEqual([expect.stringMatching(/^invalid json response body reason: .*\[Prism Error FetchError at response\.body\]$/)])
  })

  it('relays a redirect as it came, sends it to the target once, and Prism judges that status', async () => {
    const res = await fetch(`${proxy.url}/pets`, { headers: { 'x-mode': 'redirect', authorization: 'Bearer k' }, redirect: 'manual' })
    expect([res.status, res.headers.get('location')]).toEqual([302, '/v1/elsewhere'])
    expect(hits.filter((h) => h === 'redirect')).toHaveLength(1)
    const findings = parseViolations(res.headers.get(VIOLATIONS_HEADER) ?? undefined, exchange('{}', {}, 302))
    expect(findings.map((f) => f.checkId)).toEqual(['prism.response-status'])
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
    await expect(startPrismProxy({ upstream: 'http://127.0.0.1:9/v1', specPath: '/no/such/spec.yaml' })).rejects.toThrow('no OpenAPI document at /no/such/spec.yaml')
  })

  it('says so when Prism dies, and the target still answers, with no verdict', async () => {
    const target = http.createServer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('[]'))
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    const proxy = await startPrismProxy({ upstream: `http://127.0.0.1:${(target.address() as AddressInfo).port}/v1` })
    try {
      process.kill(proxy.pid, 'SIGKILL')
      await expect.poll(() => proxy.problem()).toMatch(/^Prism exited \(SIGKILL\)/)
      const res = await fetch(`${proxy.url}/pets`)
      expect([res.status, await res.text(), res.headers.get(VIOLATIONS_HEADER)]).toEqual([200, '[]', null])
    } finally {
      await proxy.close()
      await new Promise((resolve) => target.close(resolve))
    }
  })

  it("rejects, with Prism's reason on the first line, when Prism cannot start", async () => {
    const notOpenApi = fileURLToPath(new URL('../package.json', import.meta.url))
    const error: Error = await startPrismProxy({ upstream: 'http://127.0.0.1:9/v1', specPath: notOpenApi }).then(
      () => expect.unreachable(),
      (e: Error) => e,
    )
    expect(error.message.split('\n')[0]).toMatch(/^Prism exited \(code 1\) before it was ready .*: Error: Unsupported document format$/)
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

describe('violationIn', () => {
  it("reads Prism's severity, code and location back from a finding's message", () => {
    const [enumFinding] = parseViolations(RECORDED.badEnum, exchange('[]'))
    expect(violationIn(enumFinding!.message)).toEqual({ severity: 'Error', code: 'enum', where: 'response.body.0.status' })
    const [statusFinding] = parseViolations(RECORDED.undocumentedStatus, exchange('{}', {}, 500))
    expect(violationIn(statusFinding!.message)).toEqual({ severity: 'Warning', where: 'response' })
    expect(violationIn('status 500; documented: 200, 400, 401')).toBeUndefined()
  })
})
