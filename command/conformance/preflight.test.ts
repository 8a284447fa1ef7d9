/**
 * The preflight against targets that cannot be judged (exit 2 and one line naming what to check) and against
 * targets that can, however badly they answer (their answers are for the checks to judge: exit 1, not 2).
 * Loopback targets from test-support/misbehaving.ts; no child process.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { spec, versionPrefix } from '../../spec/index.js'
import { createStub } from '../../stub/index.js'
import { recordAllowances, type RunConfig } from '../../suites/index.js'
import * as target from '../../test-support/misbehaving.js'
import { UsageError } from '../usage-error.js'
import { PREFIX_CHECK_ID, preflight } from './preflight.js'
import { targets } from '../../test-support/targets.js'

const start = targets(afterEach)

const KEY = 'preflight-key-0a7e3c'

function config(baseUrl: string, apiKey = KEY): RunConfig {
  return {
    baseUrl,
    apiKey,
    seed: 1,
    runs: 1,
    timeoutMs: 1000,
    concurrency: 2,
    checks: [],
    operations: [],
    strict: false,
    viaPrism: false,
    runId: 'preflight',
    allowances: recordAllowances(1),
  }
}

/** The UsageError's message, or `passes` when the preflight lets the run go on. */
async function verdict(baseUrl: string, apiKey = KEY): Promise<string> {
  try {
    await preflight(config(baseUrl, apiKey))
    return 'passes'
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError)
    const message = (error as Error).message
    expect(message.split('\n')).toHaveLength(1)
    expect(message).not.toContain(apiKey)
    return message
  }
}

describe('preflight: runs that cannot be judged end before the checks, with one line', () => {
  it('a wrong key (every authenticated request 401): check --api-key', async () => {
    const s = await start({ fetch: createStub({ apiKeys: ['the-right-key-1234'] }).fetch })
    expect(await verdict(s.url)).toBe(
      `the target refused the API key: GET ${s.url}/pets and GET ${s.url}/pets/1 both answered 401 with the key given; check --api-key (or PETSTORE_API_KEY)`,
    )
  })

  it('a gateway answering 403 to a revoked key: check --api-key', async () => {
    const s = await start({ fetch: target.everything(403, '{"message":"Forbidden"}') })
    expect(await verdict(s.url)).toMatch(
      /^the target refused the API key: .* both answered 403 with the key given; check --api-key/,
    )
  })

  it('a base URL serving an HTML 404 page: check --base-url', async () => {
    const s = await start({ fetch: target.everything(404, target.HTML_404, 'text/html') })
    expect(await verdict(s.url)).toBe(
      `the base URL does not serve the interface: GET ${s.url}/pets answered 404 (text/html); check --base-url (or PETSTORE_BASE_URL)`,
    )
  })

  it('a base URL without /v1 on the real interface: 404 with JSON Errors, and the hint about the prefix', async () => {
    const s = await start({ fetch: createStub({ apiKeys: [KEY] }).fetch })
    expect(await verdict(s.origin)).toBe(
      `the base URL does not serve the interface: GET ${s.origin}/pets answered 404 (it does not end with the version prefix /v1); check --base-url (or PETSTORE_BASE_URL)`,
    )
  })

  it('a web page answering 200 to every path: not JSON', async () => {
    const s = await start({
      fetch: target.everything(200, '<html><body>Welcome</body></html>', 'text/html; charset=utf-8'),
    })
    expect(await verdict(s.url)).toMatch(
      /^the base URL does not serve the interface: GET .*\/pets answered 200 with a body that is not JSON \(text\/html; charset=utf-8\); check --base-url/,
    )
  })

  it.each([
    [502, 'Bad Gateway'],
    [503, 'Service Unavailable'],
    [504, 'Gateway Timeout'],
  ])('a proxy whose service is down (%i to everything): says so, not check --base-url', async (status, phrase) => {
    const s = await start({ fetch: target.everything(status, '<html>upstream down</html>', 'text/html') })
    const message = await verdict(s.url)
    expect(message).toBe(
      `every request answered ${status} ${phrase} (GET ${s.url}/pets and GET ${s.url}/pets/1): the service behind the proxy or gateway seems down; start it, or wait until it is up`,
    )
  })

  it('a certificate Node cannot trust: names NODE_EXTRA_CA_CERTS, not --base-url', async () => {
    const s = await start({ serve: target.serveTls })
    const message = await verdict(s.url)
    expect(message).toMatch(/^cannot reach the target at .*: TLS failed: .*set NODE_EXTRA_CA_CERTS to its PEM file$/)
    expect(message).not.toContain('--base-url')
  })

  it.each([
    ['a closed port', () => target.closedPort(), /: connection refused; check --base-url/],
    [
      'a TLS server asked for plain HTTP',
      async () => (await start({ serve: target.serveTls })).url.replace('https:', 'http:'),
      /: connection closed without any answer \(reset\); if the port speaks TLS, the URL should start with https:\/\/; check --base-url/,
    ],
    [
      'garbage instead of HTTP',
      async () => (await start({ serve: target.garbage })).url,
      /: not a valid HTTP response \(.*\); check --base-url/,
    ],
    [
      'a port that never answers',
      async () => (await start({ serve: target.hang })).url,
      /: timeout after 1000 ms; check --base-url/,
    ],
  ])('unreachable: %s', async (_name, url, reason) => {
    const baseUrl = await url()
    const message = await verdict(baseUrl)
    expect(message.startsWith(`cannot reach the target at ${baseUrl}: `)).toBe(true)
    expect(message).toMatch(reason)
  })
})

describe('preflight: a service without the documented version prefix fails one check', () => {
  it('the interface at /pets, asked at /v1: the record of one failing check, its basis the servers URL', async () => {
    const s = await start({ fetch: target.withoutPrefix(createStub({ apiKeys: [KEY] }).fetch) })
    const { prefixMissing } = await preflight(config(s.url))
    expect(prefixMissing?.checks.map((c) => [c.id, c.severity, c.outcome])).toEqual([
      [PREFIX_CHECK_ID, 'fail', 'failed'],
    ])
    const [check] = prefixMissing!.checks
    expect(check!.basis?.map((b) => b.ref)).toEqual(['#/servers/0/url'])
    expect(check!.basis?.[0]?.text).not.toMatch(/not in this spec/)
    expect(check!.findings).toHaveLength(1)
    expect(check!.findings[0]!.message).toBe(
      `the documented version prefix /v1 is missing: GET ${s.origin}/pets?limit=1 (without /v1) answered 200 with the interface, where GET ${s.url}/pets?limit=1 answered 404`,
    )
    expect(check!.findings[0]!.exchange?.request.url).toBe(`${s.origin}/pets?limit=1`)
    expect(JSON.stringify(prefixMissing)).not.toContain(KEY)
  })

  it('the prefix is read from the spec', () => {
    expect(versionPrefix(spec())).toEqual({ prefix: '/v1', pointer: '#/servers/0/url' })
  })

  it.each([
    ['an HTML 404 everywhere', () => target.everything(404, target.HTML_404, 'text/html')],
    ['a JSON 404 everywhere', () => target.everything(404, '{"code":"not_found","message":"no","status":404}')],
  ])('%s, with or without the prefix: cannot run, as before', async (_name, handler) => {
    const s = await start({ fetch: handler() })
    expect(await verdict(s.url)).toMatch(/^the base URL does not serve the interface: /)
  })

  it('the prefix missing and the key wrong: nothing shows the interface is served, cannot run', async () => {
    const s = await start({ fetch: target.withoutPrefix(createStub({ apiKeys: ['another-key-99'] }).fetch) })
    expect(await verdict(s.url)).toMatch(/^the base URL does not serve the interface: /)
  })
})

describe('preflight: targets that answer, however badly, are for the checks to judge', () => {
  it.each([
    ['the stub', () => createStub({ apiKeys: [KEY] }).fetch],
    [
      'a JSON body too large to parse',
      () => target.hostile(createStub({ apiKeys: [KEY] }).fetch, 'huge-list', 5 * 1024 * 1024),
    ],
    ['a JSON body too deep to parse', () => target.hostile(createStub({ apiKeys: [KEY] }).fetch, 'deep', 100_000)],
    [
      'every answer a 500 with an Error body',
      () => target.everything(500, '{"code":"boom","message":"boom","status":500}'),
    ],
    [
      'JSON served as text/plain',
      () => async (request: Request) => {
        const response = await createStub({ apiKeys: [KEY] }).fetch(request)
        return new Response(await response.text(), {
          status: response.status,
          headers: { 'content-type': 'text/plain' },
        })
      },
    ],
  ])('%s', async (_name, handler) => {
    const s = await start({ fetch: handler() })
    expect(await verdict(s.url)).toBe('passes')
  })

  it('every documented GET redirected to its path with a trailing slash: it serves the interface, wrongly', async () => {
    const s = await start({ fetch: createStub({ apiKeys: [KEY], fault: 'slash-redirect' }).fetch })
    expect(await verdict(s.url)).toBe('passes')
  })

  it('a redirect out of the base URL (a login page) on everything: cannot run, the Location named', async () => {
    const s = await start({ fetch: async () => new Response('', { status: 302, headers: { location: '/login' } }) })
    expect(await verdict(s.url)).toBe(
      `the base URL does not serve the interface: GET ${s.url}/pets answered 302 with a body that is not JSON (text/plain;charset=UTF-8) (a redirect to /login); check --base-url (or PETSTORE_BASE_URL)`,
    )
  })

  it('a body over the 16 MiB cap: the target answered, the checks judge it', async () => {
    const s = await start({ serve: target.endlessBody })
    expect(await verdict(s.url)).toBe('passes')
  })
})
