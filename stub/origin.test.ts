import { describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { AdminOrigins, HostCheck, hostName, ownAddresses, PageOrigins } from './origin.js'
import { ADMIN_MAX_BODY } from './admin.js'
import { createStub, startStub } from './stub.js'
import { AUTH, JSON_AUTH, KEY } from './testing.js'

const ADMIN = 'origin-test-admin-key'
const ADMIN_AUTH = { authorization: `Bearer ${ADMIN}` }

describe('which Host a stub answers for', () => {
  it.each([
    ['127.0.0.1', 'localhost:4010', true],
    ['127.0.0.1', 'LOCALHOST', true],
    ['127.0.0.1', 'app.localhost:4010', true],
    ['127.0.0.1', '127.0.0.1:4010', true],
    ['127.0.0.1', '127.1.2.3', true],
    ['127.0.0.1', '[::1]:4010', true],
    ['127.0.0.1', 'localhost.', true],
    // Spellings curl and scripts may send, read as a browser would write them.
    ['127.0.0.1', 'localhost.:4010', true],
    ['127.0.0.1', '127.1:4010', true],
    ['127.0.0.1', '0x7f000001', true],
    ['127.0.0.1', '2130706433:4010', true],
    ['127.0.0.1', '[0:0:0:0:0:0:0:1]:4010', true],
    ['127.0.0.1', '[::ffff:7f00:1]', true],
    ['127.0.0.1', 'evil.example.:4010', false],
    ['127.0.0.1', 'evil.example@localhost:4010', false],
    ['127.0.0.1', 'localhost/evil.example', false],
    ['127.0.0.1', 'localhost:4010:80', false],
    // Something other than a port after the name: the name alone was read, and a loopback one let in.
    ['127.0.0.1', 'localhost:evil.example', false],
    ['127.0.0.1', '127.0.0.1:4010@evil.example', false],
    ['127.0.0.1', '[::1]evil.example', false],
    ['127.0.0.1', '[::1].evil.example', false],
    ['127.0.0.1', '[::1]:4010x', false],
    ['127.0.0.1', 'localhost:', true],
    ['127.0.0.1', '127.0.0.1.nip.io', false],
    ['127.0.0.1', '0x7f000001.evil.example', false],
    ['127.0.0.1', 'evil.example', false],
    ['127.0.0.1', 'evil.example:4010', false],
    ['127.0.0.1', 'localhost.evil.example', false],
    ['127.0.0.1', '127.0.0.1.evil.example', false],
    ['127.0.0.1', '192.168.1.5', false],
    ['192.168.1.5', '192.168.1.5:4010', true],
    ['0.0.0.0', '192.168.1.5:4010', true],
    ['0.0.0.0', 'stub.internal', false],
    ['::', '[fe80::1]:4010', true],
  ])('bound to %s, Host %j: %s', (bound, host, allowed) => {
    expect(new HostCheck(bound).allows(host)).toBe(allowed)
  })

  it('answers names allowed by option, any with *, and none given twice', () => {
    expect(new HostCheck('127.0.0.1', ['Dev.Proxy.test']).allows('dev.proxy.test:8080')).toBe(true)
    expect(new HostCheck('127.0.0.1', ['*']).allows('anything.test')).toBe(true)
    // A name given in Unicode is the name a browser sends in ASCII (IDNA), and the other way round.
    expect(new HostCheck('127.0.0.1', ['münchen.test']).allows('xn--mnchen-3ya.test:8080', true)).toBe(true)
    expect(new HostCheck('127.0.0.1', ['xn--mnchen-3ya.test']).allows('münchen.test')).toBe(true)
    expect(new HostCheck('127.0.0.1', ['münchen.test']).allows('munchen.test', true)).toBe(false)
    expect(new HostCheck('127.0.0.1').allows(['localhost', 'evil.example'])).toBe(false)
    expect(new HostCheck('127.0.0.1').allows(undefined)).toBe(true) // HTTP/1.0: no browser sends that
  })

  it('reads a Host without its port and brackets', () => {
    expect([hostName('[::1]:80'), hostName('::1'), hostName('A.test:1'), hostName('a.test.')]).toEqual([
      '::1',
      '::1',
      'a.test',
      'a.test',
    ])
  })
})

describe('which pages may use the admin API', () => {
  const origins = new AdminOrigins(['http://localhost:5173'])
  it.each([
    ['POST', { origin: 'http://evil.test' }, 'origin_not_allowed'],
    ['GET', { origin: 'http://evil.test' }, 'origin_not_allowed'],
    ['POST', { origin: 'null' }, 'origin_not_allowed'],
    ['POST', { 'content-type': 'text/plain;charset=UTF-8' }, 'simple_request_refused'],
    ['PUT', { 'content-type': ' Application/X-WWW-Form-Urlencoded' }, 'simple_request_refused'],
    ['POST', { origin: 'http://localhost:5173' }, undefined],
    ['POST', { origin: 'http://stub.test:4010', host: 'stub.test:4010' }, undefined], // its own page (no server: any name)
    ['POST', { 'content-type': 'application/json' }, undefined],
    ['POST', {}, undefined],
    ['GET', { 'content-type': 'text/plain' }, undefined],
    ['GET', { 'sec-fetch-site': 'cross-site' }, 'cross_site_refused'], // an <img> or no-cors fetch from another site
    ['GET', { 'sec-fetch-site': 'same-site' }, undefined], // a page of another localhost port
    ['GET', { 'sec-fetch-site': 'cross-site', origin: 'http://localhost:5173' }, undefined], // CORS, allowed by name
  ] as const)('%s with %j: %s', (method, headers, code) => {
    expect(origins.refusal(method, { ...headers })?.code).toBe(code)
  })

  it("takes a page's own origin under a name allowed by name, never one let in by --allow-host * alone", () => {
    // A DNS-rebinding page on evil.example reaches the stub with Host and Origin both its own name.
    const rebound = { origin: 'http://evil.example:4010', host: 'evil.example:4010' }
    expect(new AdminOrigins([], new HostCheck('127.0.0.1', ['*'])).refusal('PUT', rebound)?.code).toBe(
      'origin_not_allowed',
    )
    const named = new AdminOrigins([], new HostCheck('127.0.0.1', ['stub.test', '*']))
    expect(named.refusal('PUT', { origin: 'http://stub.test:4010', host: 'stub.test:4010' })).toBeUndefined()
    expect(named.refusal('PUT', rebound)?.code).toBe('origin_not_allowed')
  })
})

describe('which pages may call the interface', () => {
  it.each([
    // This machine's pages: dev servers on localhost, loopback addresses, any port, http or https.
    ['http://localhost:5173', true],
    ['https://localhost:3000', true],
    ['http://LOCALHOST:5173/', true],
    ['http://app.localhost:3000', true],
    ['http://127.0.0.1:8080', true],
    ['http://127.1:8080', true],
    ['http://[::1]:5173', true],
    // Another site's: a page the developer visits, however it names itself.
    ['https://evil.example', false],
    ['http://evil.example:4010', false],
    ['http://localhost.evil.example', false],
    ['http://127.0.0.1.nip.io', false],
    ['http://localhost@evil.example', false],
    ['http://192.168.1.5:5173', false],
    ['null', false], // a sandboxed frame's, or a file's
    ['file://', false],
    ['localhost:5173', false],
    ['http://localhost:5173x', false],
    ['http://localhost:80:80', false],
  ])('%s: %s', (origin, allowed) => {
    expect(new PageOrigins().allows(origin)).toBe(allowed)
  })

  it('lets in origins named by option (null and * too), the bound address and names allowed as Host', () => {
    expect(new PageOrigins(['https://App.example/']).allows('https://app.example')).toBe(true)
    expect(new PageOrigins(['https://app.example']).allows('http://app.example')).toBe(false)
    expect(new PageOrigins(['null']).allows('null')).toBe(true)
    expect(new PageOrigins(['*']).allows('https://evil.example')).toBe(true)
    expect(new PageOrigins([], new HostCheck('192.168.1.5')).allows('http://192.168.1.5:5173')).toBe(true)
    // Bound to every address: the pages of the machine's own addresses, never those of another site's.
    const own = () => new Set(['10.0.0.7', 'fe80::1'])
    expect(new PageOrigins([], new HostCheck('0.0.0.0', [], own)).allows('http://10.0.0.7:5173')).toBe(true)
    expect(new PageOrigins([], new HostCheck('::', [], own)).allows('http://[fe80::1]:5173')).toBe(true)
    for (const site of ['http://203.0.113.5', 'https://1.1.1.1:8443', 'http://[2001:4860:4860::8888]'])
      expect(new PageOrigins([], new HostCheck('::', [], own)).allows(site), site).toBe(false)
    expect(new PageOrigins([], new HostCheck('0.0.0.0', [], own)).allows('http://intranet.example')).toBe(false)
    // An address the machine no longer has stops letting its pages in (an address is asked each time, never kept).
    let addresses = new Set(['10.0.0.7'])
    const changing = new PageOrigins([], new HostCheck('0.0.0.0', [], () => addresses))
    expect(changing.allows('http://10.0.0.7:5173')).toBe(true)
    addresses = new Set()
    expect(changing.allows('http://10.0.0.7:5173')).toBe(false)
    // The machine's IPv4 address written IPv6-mapped, as a browser writes it, is its own too.
    expect(new HostCheck('::', [], () => new Set(['192.0.2.2'])).servesPagesOf('[::ffff:c000:202]:5173')).toBe(true)
    // Whatever the machine's addresses are, a request under one of them is answered (a NAT may show another).
    expect(new HostCheck('0.0.0.0', [], own).allows('203.0.113.5:4010')).toBe(true)
    expect(ownAddresses()).toContain('127.0.0.1')
    expect(new PageOrigins([], new HostCheck('127.0.0.1', ['dev.test'])).allows('http://dev.test:8080')).toBe(true)
    // `--allow-host *` answers any Host (a proxy in front), but lets in no page of its own accord.
    expect(new PageOrigins([], new HostCheck('127.0.0.1', ['*'])).allows('https://evil.example')).toBe(false)
  })
})

describe("another site's pages leave no trace in the journal and the client report", () => {
  it('answers them (the log has them) but records neither their requests nor their refused preflights', async () => {
    const stub = createStub()
    const call = (headers: Record<string, string>, init: RequestInit = {}) =>
      stub.fetch(new Request('http://127.0.0.1:4010/v1/pets?limit=0', { ...init, headers }))
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' }, // a no-cors POST or a CORS GET
      { 'sec-fetch-site': 'cross-site' }, // a no-cors GET: no Origin, only where it came from
      { 'sec-fetch-site': 'cross-site', referer: 'https://evil.example/news' }, // and which page sent it
    ]
    for (const headers of foreign) expect((await call(headers)).status).toBe(401)
    const preflight = await call(
      { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      { method: 'OPTIONS' },
    )
    expect(preflight.status).toBe(403)
    expect(stub.requests()).toEqual([])
    expect(stub.clientReport().requests).toBe(0)
    // Nor when the page leaves before its answer (recorded as a request with no answer otherwise).
    const slow = createStub({ chaos: { latencyMs: [200, 200] } })
    for (const headers of foreign) {
      const leave = new AbortController()
      const request = new Request('http://127.0.0.1:4010/v1/pets', { headers, signal: leave.signal })
      const answer = slow.fetch(request)
      setTimeout(() => leave.abort(new Error('left')), 20)
      await expect(answer).rejects.toThrow('left')
    }
    expect([slow.requests(), slow.clientReport().requests]).toEqual([[], 0])
    // The developer's own pages and scripts are recorded as before, also an own page's no-cors request to 127.0.0.1
    // (another site than localhost, so cross-site, but its Referer names the page).
    await call({ origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' })
    await call({})
    await call({ 'sec-fetch-site': 'cross-site', referer: 'http://localhost:5173/app' })
    expect(stub.requests()).toHaveLength(3)
    expect(stub.clientReport().requests).toBe(3)
  })
})

describe('over HTTP', () => {
  const send = (port: number, headers: Record<string, string>, path = '/v1/pets', method = 'GET', body?: string) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
      (resolve, reject) => {
        const req = request({ port, host: '127.0.0.1', path, method, headers }, (res) => {
          let text = ''
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
        })
        req.on('error', reject).end(body)
      },
    )

  it("keeps a page's 421 out of the journal (a DNS-rebinding page's), and records a script's", async () => {
    const stub = await startStub({ apiKeys: [KEY] })
    try {
      for (const headers of [{ origin: 'http://evil.example:4010' }, { 'sec-fetch-site': 'same-origin' }] as Record<
        string,
        string
      >[])
        expect((await send(stub.port, { ...AUTH, host: 'evil.example:4010', ...headers })).status).toBe(421)
      expect(stub.stub.requests()).toEqual([])
      expect((await send(stub.port, { ...AUTH, host: 'proxy.test' })).status).toBe(421) // a proxy's name to allow
      expect(stub.stub.requests().map((entry) => entry.status)).toEqual([421])
    } finally {
      await stub.close()
    }
  })

  it('refuses a foreign Host (DNS rebinding) with 421 everywhere, and stores nothing', async () => {
    const stub = await startStub({ apiKeys: [KEY] })
    try {
      const before = stub.store.size
      for (const [path, method] of [
        ['/__stub/state', 'GET'],
        ['/__stub/reset', 'POST'],
        ['/v1/pets', 'POST'],
      ] as const) {
        const body = method === 'POST' ? '{"name":"x","categoryId":1}' : undefined
        const answer = await send(stub.port, { ...JSON_AUTH, host: 'evil.example' }, path, method, body)
        expect(answer.status).toBe(421)
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'host_not_allowed', status: 421 })
      }
      // A target in absolute form names the host itself, and wins over Host (RFC 9112 §3.2.2).
      const absolute = await send(stub.port, { ...AUTH, host: '127.0.0.1' }, 'http://evil.example/v1/pets')
      expect(absolute.status).toBe(421)
      expect(JSON.parse(absolute.body)).toMatchObject({ message: expect.stringContaining('"evil.example"') })
      // An authority with an unclosed bracket names no host, never the name inside it.
      for (const target of ['http://[localhost/v1/pets', 'http://[127.0.0.1/v1/pets', 'http://[::1/v1/pets'])
        expect((await send(stub.port, { ...AUTH, host: 'evil.example' }, target)).status).toBe(421)
      for (const target of ['http://user@localhost/v1/pets', 'http:///v1/pets'])
        expect((await send(stub.port, { ...AUTH, host: '127.0.0.1' }, target)).status).toBe(421)
      expect(stub.store.size).toBe(before)
      expect((await send(stub.port, { ...AUTH, host: `localhost:${stub.port}` })).status).toBe(200)
      const viaProxy = `http://localhost:${stub.port}/v1/pets`
      expect((await send(stub.port, { ...AUTH, host: 'evil.example' }, viaProxy)).status).toBe(200)
    } finally {
      await stub.close()
    }
    const proxied = await startStub({ apiKeys: [KEY], allowHosts: ['dev.proxy.test'] })
    try {
      expect((await send(proxied.port, { ...AUTH, host: 'dev.proxy.test' })).status).toBe(200)
    } finally {
      await proxied.close()
    }
  })

  it('with --allow-host *, answers no page under a name it does not answer by name: a DNS-rebinding page is one', async () => {
    await expect(startStub({ apiKeys: [KEY], allowHosts: ['*'] })).rejects.toThrow('give adminKey too')
    await expect(startStub({ apiKeys: [KEY], host: '0.0.0.0' })).rejects.toThrow('0.0.0.0 is reachable')
    await expect(startStub({ allowHosts: ['*'], adminKey: ADMIN })).rejects.toThrow('knows the default API key')
    // Spellings that a Host reading would make `*`: refused, not let in without what `*` needs.
    // So are names a URL parser reads as none (`.`) or as `*` (`%2A`).
    for (const name of ['*.', '[*]', ' * ', '*:80', '*.example.test', 'stub,other', '.', '%2A', '%2a.', '。'])
      await expect(startStub({ allowHosts: [name] })).rejects.toThrow('allowHosts must hold host names')
    // An admin key that is an API key, or the public default one, opens the admin API to whoever calls /v1.
    await expect(startStub({ apiKeys: [KEY], adminKey: KEY })).rejects.toThrow('adminKey must differ')
    await expect(startStub({ host: '0.0.0.0', adminKey: 'petstore-dev-key' })).rejects.toThrow('adminKey must differ')
    expect(() => createStub({ adminKey: 'petstore-dev-key' })).toThrow('adminKey must differ')
    // Origins the command line refuses: `null` (any site's sandboxed frame) on the admin API, junk anywhere.
    expect(() => createStub({ adminOrigins: ['null'] })).toThrow('adminOrigins must list origins')
    for (const origin of ['javascript:alert(1)', '', 'https://app.example/path', 'https://u@app.example'])
      expect(() => createStub({ allowOrigins: [origin] })).toThrow('allowOrigins must list origins')
    // Values that never match what a browser sends, a pattern that is none, and holes a list's `every` skips.
    for (const origins of [['http://*'], ['http://*.example'], ['http://localhost:80'], [, 'http://a.test']])
      expect(() => createStub({ adminOrigins: origins as string[] })).toThrow('adminOrigins must list origins')
    // Keys as the command takes them: a space would lock everyone out; a hole, or no text, is no key.
    for (const adminKey of [' k', 'k1 ', 'k\n', ' '])
      expect(() => createStub({ adminKey })).toThrow('adminKey must be visible ASCII')
    expect(() => createStub({ apiKeys: [, 'k1'] as string[] })).toThrow('apiKeys must be a list')
    // Keys of the wrong kind are named as such, before anything reads them.
    await expect(startStub({ host: '0.0.0.0', adminKey: 'adm-1', apiKeys: 123 as never })).rejects.toThrow(
      'apiKeys must be a list',
    )
    await expect(startStub({ adminKey: 'adm', apiKeys: 'xadmx' as never })).rejects.toThrow('apiKeys must be a list')
    for (const allowHosts of [[42], [null], '*', [, 'a.test']])
      await expect(startStub({ allowHosts: allowHosts as string[] })).rejects.toThrow('allowHosts must hold host names')
    const stub = await startStub({ apiKeys: [KEY], allowHosts: ['*'], adminKey: ADMIN })
    try {
      const before = stub.store.size
      const rebound = `evil.example:${stub.port}`
      const page = { host: rebound, origin: `http://${rebound}`, 'content-type': 'application/json' }
      // A page on its own origin: its changes carry Origin, its reads (same-origin GETs) only Sec-Fetch-Site.
      const wiped = await send(stub.port, page, '/__stub/state', 'PUT', '[]')
      const read = await send(stub.port, { host: rebound, 'sec-fetch-site': 'same-origin' }, '/__stub/state')
      const journal = await send(stub.port, { host: rebound, 'sec-fetch-site': 'same-origin' }, '/__stub/requests')
      const created = await send(
        stub.port,
        { ...JSON_AUTH, ...page },
        '/v1/pets',
        'POST',
        '{"name":"x","categoryId":1}',
      )
      for (const answer of [wiped, read, journal, created]) {
        expect(answer.status).toBe(421)
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'host_not_allowed' })
      }
      expect(JSON.parse(wiped.body).message).toContain('--allow-host * lets in no page')
      expect(stub.store.size).toBe(before)
      // Scripts and proxies (no Origin, no Sec-Fetch-Site) under any name, and pages on a loopback name, as before.
      expect((await send(stub.port, { host: rebound, ...ADMIN_AUTH }, '/__stub/health')).status).toBe(200)
      expect((await send(stub.port, { ...AUTH, host: rebound })).status).toBe(200)
      const own = `localhost:${stub.port}`
      const ownPage = { host: own, origin: `http://${own}`, ...ADMIN_AUTH }
      expect((await send(stub.port, ownPage, '/__stub/health')).status).toBe(200)
    } finally {
      await stub.close()
    }
  })

  it('lets a page send cookies to /v1: its origin reflected with credentials, never on the admin API', async () => {
    const stub = await startStub({ apiKeys: [KEY] })
    try {
      const origin = 'http://localhost:5173'
      const listed = await send(stub.port, { ...AUTH, origin })
      const created = await send(stub.port, { ...JSON_AUTH, origin }, '/v1/pets', 'POST', '{"name":"c","categoryId":1}')
      const preflight = await send(
        stub.port,
        { origin, 'access-control-request-method': 'POST' },
        '/v1/pets',
        'OPTIONS',
      )
      for (const answer of [listed, created, preflight]) {
        expect(answer.headers['access-control-allow-origin']).toBe(origin)
        expect(answer.headers['access-control-allow-credentials']).toBe('true')
        expect(String(answer.headers.vary)).toMatch(/\bOrigin\b/)
      }
      expect(created.status).toBe(201)
      expect((await send(stub.port, AUTH)).headers['access-control-allow-origin']).toBe('*') // no Origin: as ever
      const admin = await send(stub.port, { origin: `http://127.0.0.1:${stub.port}` }, '/__stub/health')
      expect(admin.status).toBe(200)
      expect(admin.headers['access-control-allow-credentials']).toBeUndefined()
      // A page on another site that asks without CORS gets no state built for it.
      const embedded = await send(
        stub.port,
        { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' },
        '/__stub/state',
      )
      expect([embedded.status, JSON.parse(embedded.body).code]).toEqual([403, 'cross_site_refused'])
    } finally {
      await stub.close()
    }
  })
  it("gives the edge's own answers the grant the route gives: a body too large, headers too large", async () => {
    const page = 'http://localhost:5173'
    const foreign = 'https://evil.example'
    const stub = await startStub({ apiKeys: [KEY], adminOrigins: [page] })
    try {
      const big = JSON.stringify({ name: 'x'.repeat(70_000), categoryId: 1 })
      const own = await send(stub.port, { ...JSON_AUTH, origin: page }, '/v1/pets', 'POST', big)
      expect(JSON.parse(own.body)).toMatchObject({ code: 'body_too_large', status: 400 })
      expect(own.headers['access-control-allow-origin']).toBe(page)
      expect(own.headers['access-control-allow-credentials']).toBe('true')
      const restore = { 'content-type': 'application/json', 'content-length': String(ADMIN_MAX_BODY + 1) }
      const ownRestore = await send(stub.port, { ...restore, origin: page }, '/__stub/state', 'PUT', '[]')
      expect(JSON.parse(ownRestore.body)).toMatchObject({
        code: 'body_too_large',
        message: `request body exceeds the limit of ${ADMIN_MAX_BODY} bytes`, // the admin API's own limit
      })
      expect(ownRestore.headers['access-control-allow-origin']).toBe(page)
      expect(String(ownRestore.headers.vary)).toMatch(/\bOrigin\b/)
      const answers = [
        await send(stub.port, { ...JSON_AUTH, origin: foreign }, '/v1/pets', 'POST', big),
        await send(stub.port, restore, '/__stub/state', 'PUT', '[]'),
        await send(stub.port, { origin: foreign, 'x-long': 'a'.repeat(20_000) }, '/__stub/state'),
        await send(stub.port, { origin: page, 'x-long': 'a'.repeat(20_000) }, '/v1/pets'),
      ]
      expect(answers.map((answer) => JSON.parse(answer.body).code)).toEqual([
        'body_too_large',
        'body_too_large',
        'headers_too_large',
        'headers_too_large',
      ])
      for (const answer of answers)
        expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([])
    } finally {
      await stub.close()
    }
  })

  it('gives a page of another site nothing to read or change /v1 with: its preflight 403, no CORS grant', async () => {
    const stub = await startStub({ apiKeys: [KEY] })
    try {
      const origin = 'https://evil.example'
      const before = stub.store.size
      const preflight = await send(
        stub.port,
        { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
        '/v1/pets',
        'OPTIONS',
      )
      expect(preflight.status).toBe(403)
      expect(JSON.parse(preflight.body)).toMatchObject({ code: 'origin_not_allowed', status: 403 })
      expect(JSON.parse(preflight.body).message).toContain('--allow-origin')
      // What a browser sends without a preflight carries no key: 401, and nothing the page may read.
      const simple = await send(
        stub.port,
        { origin, 'content-type': 'text/plain' },
        '/v1/pets',
        'POST',
        '{"name":"x","categoryId":1}',
      )
      // A key sent anyway (no browser would, its preflight refused): answered, but with no CORS grant.
      const listed = await send(stub.port, { ...AUTH, origin })
      for (const answer of [preflight, simple, listed]) {
        expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([])
        expect(String(answer.headers.vary)).toMatch(/\bOrigin\b/)
      }
      expect([simple.status, listed.status]).toEqual([401, 200])
      expect(stub.store.size).toBe(before)
    } finally {
      await stub.close()
    }
    const allowing = await startStub({ apiKeys: [KEY], allowOrigins: ['https://app.example'] })
    try {
      const origin = 'https://app.example'
      const preflight = await send(
        allowing.port,
        { origin, 'access-control-request-method': 'POST' },
        '/v1/pets',
        'OPTIONS',
      )
      const listed = await send(allowing.port, { ...AUTH, origin })
      for (const answer of [preflight, listed]) {
        expect(answer.headers['access-control-allow-origin']).toBe(origin)
        expect(answer.headers['access-control-allow-credentials']).toBe('true')
      }
      expect(preflight.status).toBe(204)
    } finally {
      await allowing.close()
    }
  })
})
