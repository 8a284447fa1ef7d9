import { describe, expect, it } from 'vitest'
import { createStub } from './stub.js'
import { assertCleanClient, ClientReportError, type ClientReport } from './client-report.js'
import { clientReportMarkdown, codeSpan } from './client-report-markdown.js'

const KEY = 'client-key-1'
const AUTH = { authorization: `Bearer ${KEY}` }
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' }

function stubAndClient() {
  const stub = createStub({ apiKeys: [KEY] })
  const send = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
    const response = await stub.fetch(new Request(`http://stub.test${path}`, { method, headers, body }))
    await response.arrayBuffer()
    return response
  }
  return { stub, send }
}

const ids = (stub: ReturnType<typeof createStub>) => stub.clientReport().findings.map((f) => f.id)

describe('the client report', () => {
  it('is clean for a client that uses the interface as documented, and lists what it never received', async () => {
    const { stub, send } = stubAndClient()
    await send('GET', '/v1/pets?limit=5&status=sold', AUTH)
    await send('GET', '/v1/pets', { authorization: `bearer ${KEY}` }) // the scheme is case-insensitive
    await send('GET', '/v1/pets', { authorization: `Bearer  ${KEY}` }) // 1*SP (RFC 6750 §2.1)
    await send('GET', '/v1/pets', { ...AUTH, prefer: 'code=401' }) // a 401 asked for is no refused key
    await send('POST', '/v1/pets', JSON_AUTH, '{"name":"Rex","categoryId":1}')
    const report = stub.clientReport()
    expect(report.findings).toEqual([])
    expect(report.requests).toBe(5)
    expect(report.calls).toEqual({ listPets: 4, createPet: 1 })
    const never = report.notExercised.map((n) => `${n.operationId} ${n.status}`)
    expect(never).toEqual(expect.arrayContaining(['createPet 401', 'listPets 429', 'createPet 400', 'getPet 404']))
    expect(never).not.toContain('listPets 401') // received, when asked for
    expect(never).not.toContain('listPets 200')
    expect(() => assertCleanClient(stub)).not.toThrow()
  })

  it('calls no request a retry that was on its way when the 429 or 503 left, or that is another request', async () => {
    const { stub, send } = stubAndClient()
    // Parallel workers with one key: a request sent before its sibling's 429 came back, answered after it, is no retry
    // (it was counted as one when judged by the time of its answer).
    await Promise.all([
      send('GET', '/v1/pets', { ...AUTH, prefer: 'delay=100' }),
      send('GET', '/v1/pets', { ...AUTH, prefer: 'code=429' }),
    ])
    // Another request of the same operation right after a 429 is no retry either.
    await send('GET', '/v1/pets?status=sold', { ...AUTH, prefer: 'code=429' })
    await send('GET', '/v1/pets?status=pending', AUTH)
    expect(ids(stub)).not.toContain('early-retry')
    // Nor is a create after a 429 given before the create's body was read (Prefer, --fail-rate): it cannot be told
    // from a parallel worker's next create.
    await send('POST', '/v1/pets', { ...JSON_AUTH, prefer: 'code=429' }, '{"name":"Rex","categoryId":1}')
    await send('POST', '/v1/pets', JSON_AUTH, '{"name":"Fido","categoryId":2}')
    expect(ids(stub)).not.toContain('early-retry')
    // The same request again at once is.
    await send('GET', '/v1/pets?status=sold', { ...AUTH, prefer: 'code=429' })
    await send('GET', '/v1/pets?status=sold', AUTH)
    expect(ids(stub)).toContain('early-retry')
  })

  it('names a JSON type of another name, which the stub reads but the interface does not document', async () => {
    const { stub, send } = stubAndClient()
    const pet = '{"name":"Rex","categoryId":1}'
    expect(
      (await send('POST', '/v1/pets', { ...AUTH, 'content-type': 'application/json; charset=utf-8' }, pet)).status,
    ).toBe(201)
    expect(ids(stub)).not.toContain('wrong-content-type')
    expect((await send('POST', '/v1/pets', { ...AUTH, 'content-type': 'application/vnd.api+json' }, pet)).status).toBe(
      201,
    )
    expect(ids(stub)).toContain('wrong-content-type')
  })

  it('finds each misuse, with its basis in the spec, a count, the first time and a redacted example', async () => {
    const { stub, send } = stubAndClient()
    await send('GET', '/v1/pets/1', AUTH)
    await send('GET', '/v1/pets/2', AUTH)
    await send('GET', '/v1/pets?limit=500', AUTH)
    await send('GET', '/v1/pets?status=lost', AUTH)
    await send('POST', '/v1/pets', JSON_AUTH, '{"name":"Rex"}')
    await send('POST', '/v1/pets', JSON_AUTH, '{"name":"Rex","categoryId":1,"nickname":"R"}')
    await send('POST', '/v1/pets', { ...AUTH, 'content-type': 'text/plain' }, '{"name":"Rex","categoryId":1}')
    await send('GET', '/v1/pets')
    await send('GET', '/v1/pets', { authorization: KEY })
    await send('GET', '/v1/pets', { authorization: 'Bearer not-the-key' })
    await send('GET', '/v1/pets', { ...AUTH, prefer: 'code=429' })
    await send('GET', '/v1/pets', AUTH) // at once, though Retry-After said to wait
    await send('DELETE', '/v1/pets', AUTH)
    await send('GET', '/v2/animals', AUTH)
    const report = stub.clientReport()
    expect(ids(stub).sort()).toEqual(
      [
        'deprecated-operation',
        'early-retry',
        'invalid-key',
        'invalid-new-pet',
        'limit-out-of-range',
        'malformed-credentials',
        'missing-credentials',
        'status-out-of-range',
        'undocumented-method',
        'unknown-fields',
        'unknown-path',
        'wrong-content-type',
      ].sort(),
    )
    const deprecated = report.findings.find((f) => f.id === 'deprecated-operation')!
    expect(deprecated).toMatchObject({
      operationId: 'getPet',
      count: 2,
      example: { method: 'GET', target: '/v1/pets/1' },
    })
    expect(deprecated.title).toMatch(/removed on 2030-12-05; use GET \/pets instead/)
    expect(deprecated.basis[0]).toMatchObject({ ref: '#/paths/~1pets~1{petId}/get/deprecated' })
    expect(Date.parse(deprecated.firstSeen)).toBeGreaterThan(Date.parse(report.since) - 1)
    const limit = report.findings.find((f) => f.id === 'limit-out-of-range')!
    expect(limit.basis[0]!.text).toMatch(/minimum 1, maximum 100/)
    // Keys never leave: the example keeps the scheme only.
    expect(JSON.stringify(report)).not.toContain(KEY)
    expect(report.findings.find((f) => f.id === 'invalid-key')!.example.headers.authorization).toBe('Bearer [REDACTED]')
    expect(() => assertCleanClient(stub)).toThrow(ClientReportError)
    expect(() => assertCleanClient(stub)).toThrow(
      /listPets: limit outside 1\.\.100 \(1x; e\.g\. GET \/v1\/pets\?limit=500/,
    )
  })

  it('serves JSON and Markdown at GET /__stub/client-report, and starts over with a reset of the journal or the pets', async () => {
    const { stub, send } = stubAndClient()
    await send('GET', '/v1/pets/1', AUTH)
    const json = await stub.fetch(new Request('http://stub.test/__stub/client-report'))
    expect(((await json.json()) as ClientReport).findings[0]!.id).toBe('deprecated-operation')
    const markdown = await stub.fetch(
      new Request('http://stub.test/__stub/client-report', { headers: { accept: 'text/markdown' } }),
    )
    expect(markdown.headers.get('content-type')).toMatch(/^text\/markdown/)
    expect(await markdown.text()).toMatch(
      /^# Client report\n[\s\S]*### getPet: calls GET \/pets\/\{petId\}, which is deprecated/,
    )
    // Negotiated as RFC 9110 §12.5.1 says: a weight of 0 refuses Markdown, JSON wanted more wins, any type is JSON.
    for (const [accept, type] of [
      ['text/markdown;q=0', /^application\/json/],
      ['text/markdown; q=0.5, application/json', /^application\/json/],
      ['application/json;q=0.2, text/markdown;q=0.9', /^text\/markdown/],
      ['TEXT/Markdown', /^text\/markdown/],
      ['*/*', /^application\/json/],
      ['text/*', /^application\/json/],
    ] as const) {
      const answer = await stub.fetch(new Request('http://stub.test/__stub/client-report', { headers: { accept } }))
      expect([accept, answer.headers.get('content-type')]).toEqual([accept, expect.stringMatching(type)])
      expect(answer.headers.get('vary')).toBe('Accept')
    }
    await stub.fetch(new Request('http://stub.test/__stub/requests', { method: 'DELETE' }))
    expect(stub.clientReport().findings).toEqual([])
    await send('GET', '/v1/pets/1', AUTH)
    await stub.fetch(new Request('http://stub.test/__stub/reset', { method: 'POST' }))
    expect(stub.clientReport()).toMatchObject({ findings: [], requests: 0 })
    // The admin API's own requests are not the client's.
    expect(stub.clientReport().calls).toEqual({})
  })

  it('keeps one example per kind of misuse however many come (bounded memory)', async () => {
    const { stub, send } = stubAndClient()
    for (let i = 0; i < 50; i++) await send('GET', `/v1/pets?limit=${1000 + i}`, AUTH)
    const [finding] = stub.clientReport().findings
    expect(stub.clientReport().findings).toHaveLength(1)
    expect(finding).toMatchObject({ count: 50, example: { target: '/v1/pets?limit=1000' } })
  })

  it("keeps a client's text inert in the Markdown report: no span closed early, no line of its own", async () => {
    const stub = createStub({})
    const send = (headers: Record<string, string>, body: string) =>
      stub.fetch(new Request('http://stub.test/v1/pets', { method: 'POST', headers, body }))
    const auth = { authorization: 'Bearer petstore-dev-key' }
    await send({ ...auth, 'content-type': 'text/plain` <img src=x onerror=alert(1)> `' }, 'x')
    await send(
      { ...auth, 'content-type': 'application/json' },
      '{"name":1}\n\n## Injected\n\n<script>alert(1)</script>\n',
    )
    const markdown = clientReportMarkdown(stub.clientReport())
    expect(markdown.split('\n').filter((line) => /Injected|<script>|<img/.test(line))).toEqual([
      expect.stringContaining(' `` content-type: text/plain` <img src=x onerror=alert(1)> ` ``'),
      expect.stringContaining(' body `{"name":1}  ## Injected  <script>alert(1)</script> `'),
    ])
    expect(codeSpan('`a``b')).toBe('``` `a``b ```')
  })

  it('judges no body of a create refused before its body was read (a bad Prefer): it was not a body not JSON', async () => {
    const stub = createStub({})
    const headers = { authorization: 'Bearer petstore-dev-key', 'content-type': 'application/json', prefer: 'bogus=1' }
    const answer = await stub.fetch(
      new Request('http://stub.test/v1/pets', { method: 'POST', headers, body: '{"name":"a","categoryId":1}' }),
    )
    expect(answer.status).toBe(400)
    expect(stub.clientReport().findings.map((finding) => finding.id)).not.toContain('invalid-new-pet')
  })

  it('never shows a key, wherever a client put it: target, encoded target, Authorization, Prefer, Content-Type, body', async () => {
    // The keys a tester started the stub with: one with characters a URL encodes, one the start of another.
    const stub = createStub({ apiKeys: ['k+y/z=', 'dev', 'dev-secret-key-42'], adminKey: 'ADMINsecret9' })
    const send = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
      (await stub.fetch(new Request(`http://stub.test${path}`, { method, headers, body }))).arrayBuffer()
    await send('GET', '/v1/pets?api_key=k%2By%2Fz%3D') // missing-credentials
    await send('GET', '/v1/pets/dev-secret-key-42', { authorization: 'dev-secret-key-42 Bearer' }) // 2 findings
    const prefer = 'example=dev-secret-key-42'
    await send('GET', '/v1/pets?limit=500&key=ADMINsecret9', { authorization: 'Bearer dev', prefer }) // limit-out-of-range
    const json = { authorization: 'Bearer dev', 'content-type': 'application/json' }
    await send('POST', '/v1/pets', json, '{}') // invalid-new-pet
    await send(
      'POST',
      '/v1/pets',
      { ...json, 'content-type': 'application/json; key=dev-secret-key-42' },
      '{"name":"x","categoryId":1,"apiKey":"dev-secret-key-42"}',
    ) // unknown-fields
    const report = stub.clientReport()
    const example = (id: string) => report.findings.find((f) => f.id === id)!.example
    expect(example('missing-credentials').target).toBe('/v1/pets?api_key=[REDACTED]')
    expect(example('deprecated-operation').target).toBe('/v1/pets/[REDACTED]')
    expect(example('malformed-credentials').headers.authorization).toBe('[REDACTED]')
    expect(example('limit-out-of-range').target).toBe('/v1/pets?limit=500&key=[REDACTED]')
    expect(example('limit-out-of-range').headers.prefer).toBe('example=[REDACTED]')
    expect(example('invalid-new-pet').body).toBe('{}')
    expect(example('unknown-fields')).toEqual({
      method: 'POST',
      target: '/v1/pets',
      headers: { authorization: 'Bearer [REDACTED]', 'content-type': 'application/json; key=[REDACTED]' },
      body: '{"name":"x","categoryId":1,"apiKey":"[REDACTED]"}',
    })
    // The JSON and the Markdown (GET /__stub/client-report, --client-report FILE) show none, nor does the journal.
    const journal = await stub.fetch(
      new Request('http://stub.test/__stub/requests', { headers: { authorization: 'Bearer ADMINsecret9' } }),
    )
    for (const text of [JSON.stringify(report), clientReportMarkdown(report), await journal.text()])
      expect(text).not.toMatch(/k%2B|k\+y|secret-key|ADMINsecret9|=dev\b/i)
  })
})
