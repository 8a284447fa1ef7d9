import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { parse as parseYaml } from 'yaml'
import { parseJson, SPEC_PATH, stringifyJson, validationView, type JsonValue } from '../spec/index.js'
import { ADMIN_SPEC_PATH, int64AsStrings } from './admin.js'
import type { AppResponse } from './app.js'
import { JOURNAL_DEFAULTS } from './journal.js'
import { createStub, type CreateStubOptions, type InProcessStub } from './stub.js'
import { AUTH, JSON_AUTH, KEY, fromFetch, type Answer } from './testing.js'

const ADMIN_DOC = parseYaml(readFileSync(ADMIN_SPEC_PATH, 'utf8'))
// Both documents by their place on disk, so the admin document's `../spec/petstore.yaml#...` refs resolve.
const ajv = new Ajv2020({ strict: false, validateFormats: false })
  .addSchema({ ...parseYaml(readFileSync(SPEC_PATH, 'utf8')), $id: 'https://kit.test/spec/petstore.yaml' })
  .addSchema({ ...ADMIN_DOC, $id: 'https://kit.test/stub/admin.yaml' })

/** Asserts an admin answer against the admin document: the documented status, and a body its schema accepts. */
function expectDocumented(path: string, method: string, answer: Answer): void {
  const response = ADMIN_DOC.paths[path][method.toLowerCase()].responses[String(answer.status)]
  expect(response, `${method} ${path} documents ${answer.status}: ${answer.text}`).toBeDefined()
  const pointer = response.$ref
    ? `${response.$ref}/content/application~1json/schema`
    : `#/paths/${path.replaceAll('/', '~1')}/${method.toLowerCase()}/responses/${answer.status}/content/application~1json/schema`
  const validate = ajv.getSchema(`https://kit.test/stub/admin.yaml${pointer}`)!
  expect(validate(validationView(answer.body!)), JSON.stringify(validate.errors)).toBe(true)
  expect(answer.headers['content-type']).toBe('application/json')
  expect(answer.headers['access-control-allow-origin']).toBeUndefined() // no page on another origin reads it
}

const stubWith = (options: CreateStubOptions = {}) => createStub({ apiKeys: [KEY], ...options })

async function admin(
  stub: InProcessStub,
  method: string,
  path: string,
  options: { body?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return fromFetch(
    await stub.fetch(
      new Request(`http://stub.test/__stub${path}`, {
        method,
        body: options.body,
        // A body sent as text/plain (what fetch gives a string) is refused: any page could send it.
        headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      }),
    ),
  )
}
const api = async (stub: InProcessStub, method: string, path: string, body?: string) =>
  fromFetch(
    await stub.fetch(new Request(`http://stub.test/v1${path}`, { method, headers: body ? JSON_AUTH : AUTH, body })),
  )

describe('the admin API document', () => {
  it('validates against the official OpenAPI 3.1 schema', async () => {
    const validator = new Validator()
    await validator.addSpecRef(parseYaml(readFileSync(SPEC_PATH, 'utf8')), '../spec/petstore.yaml') // the ref as the document writes it
    const result = await validator.validate(ADMIN_DOC)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  it('is served, with the interface spec beside it, both as YAML', async () => {
    const stub = stubWith()
    const own = await admin(stub, 'GET', '/admin.yaml')
    expect([own.status, own.headers['content-type']]).toEqual([200, 'application/yaml'])
    expect(
      parseYaml(own.text).paths['/state'].put.requestBody.content['application/json'].schema.anyOf[1].items.$ref,
    ).toBe('petstore.yaml#/components/schemas/Pet')
    const spec = await admin(stub, 'GET', '/petstore.yaml')
    expect(spec.text).toBe(readFileSync(SPEC_PATH, 'utf8'))
  })

  it('lists every operation it serves at the index, each documented', async () => {
    const index = await admin(stubWith(), 'GET', '/')
    expectDocumented('/', 'GET', index)
    const listed = (index.body as { operations: { method: string; path: string }[] }).operations.map(
      (op) => `${op.method} ${op.path.replace('/__stub', '') || '/'}`,
    )
    const documented = Object.entries<Record<string, unknown>>(ADMIN_DOC.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    )
    expect(listed.sort()).toEqual(documented.sort())
  })
})

describe('health, reset, snapshot and restore', () => {
  it('reports health', async () => {
    const answer = await admin(stubWith(), 'GET', '/health')
    expectDocumented('/health', 'GET', answer)
    expect(answer.body).toMatchObject({
      status: 'ok',
      journal: { maxEntries: JOURNAL_DEFAULTS.entries, maxBytes: JOURNAL_DEFAULTS.bytes },
    })
  })

  it('resets to the seed: pets and the next id', async () => {
    const stub = stubWith()
    const seedState = stub.snapshot()
    await api(stub, 'POST', '/pets', '{"name":"Extra","categoryId":1}')
    expect(stub.store.size).toBe(seedState.pets.length + 1)
    const answer = await admin(stub, 'POST', '/reset')
    expectDocumented('/reset', 'POST', answer)
    expect(answer.body).toEqual({ pets: seedState.pets.length })
    expect(stub.snapshot()).toEqual(seedState)
    expect((await api(stub, 'POST', '/pets', '{"name":"Again","categoryId":1}')).body).toMatchObject({
      id: seedState.nextId,
    })
    expect((await api(stub, 'GET', '/pets?limit=100')).body).toHaveLength(seedState.pets.length + 1) // no stale list page
  })

  it('round-trips a snapshot with int64 values exactly, through GET and PUT', async () => {
    const stub = stubWith({ seed: false })
    const text =
      '{"nextId":9223372036854775807,"pets":[{"id":-9223372036854775808,"name":"Min","categoryId":9223372036854775807,"status":"sold"},{"id":9007199254740993,"name":"Big","categoryId":-1}]}'
    const restored = await admin(stub, 'PUT', '/state', { body: text, headers: { 'content-type': 'application/json' } })
    expectDocumented('/state', 'PUT', restored)
    const state = await admin(stub, 'GET', '/state')
    expectDocumented('/state', 'GET', state)
    expect(state.text).toBe(text)
    expect((await api(stub, 'GET', '/pets/9007199254740993')).text).toBe(
      '{"id":9007199254740993,"name":"Big","categoryId":-1}',
    )
    expect((await api(stub, 'POST', '/pets', '{"name":"Last","categoryId":1}')).text).toContain(
      '"id":9223372036854775807',
    )
    // In-process, the same state and the same round trip.
    const again = stubWith({ seed: false })
    again.restore(stub.snapshot())
    expect(again.store.stateJson()).toBe(stub.store.stateJson())
  })

  it('streams a state of many chunks as it was asked for, in both forms, while creates go on', async () => {
    const stub = stubWith({ seed: false })
    // Pets of 60 KiB spread over several of the store's chunks; int64 values beyond 2^53 among them.
    const big = '9223372036854775807'
    const pets = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `${i}`.padEnd(60_000, 'é'), categoryId: i }))
    const text = `{"nextId":${big},"pets":[${pets.map((pet) => (pet.id === 7 ? JSON.stringify(pet).replace('"categoryId":6', `"categoryId":${big}`) : JSON.stringify(pet))).join(',')}]}`
    expect((await admin(stub, 'PUT', '/state', { body: text })).status).toBe(200)
    const asNumbers = await stub.fetch(new Request('http://stub.test/__stub/state'))
    const asStrings = await stub.fetch(new Request('http://stub.test/__stub/state?int64=string'))
    // Asked before these creates, both answers leave them out, however their bodies are read after.
    for (let i = 0; i < 5; i++) await api(stub, 'POST', '/pets', '{"name":"Later","categoryId":1}')
    const numbers = await fromFetch(asNumbers)
    expectDocumented('/state', 'GET', numbers)
    expect(numbers.text).toBe(text)
    expect(numbers.headers['content-length']).toBe(String(Buffer.byteLength(text)))
    const strings = await fromFetch(asStrings)
    expectDocumented('/state', 'GET', strings)
    const expected = parseJson(text) as { nextId: bigint; pets: Record<string, JsonValue>[] }
    expect(strings.text).toBe(
      stringifyJson({
        nextId: String(expected.nextId),
        pets: expected.pets.map((pet) => ({ ...pet, id: String(pet.id), categoryId: String(pet.categoryId) })),
      }),
    )
  })

  it('round-trips through JSON.parse with ?int64=string: int64 values as decimal strings, accepted back', async () => {
    const stub = stubWith()
    const exact = stub.store.stateJson()
    expect(exact).toContain('"categoryId":9223372036854775807') // a seed pet JSON.parse would round
    const asNumbers = await admin(stub, 'GET', '/state')
    const rounded = (await stub.fetch(new Request('http://stub.test/__stub/state')).then((r) => r.json())) as unknown
    const refused = await admin(stub, 'PUT', '/state', { body: JSON.stringify(rounded) })
    expect(refused.status).toBe(400) // what a JavaScript client meets without the option
    expect((refused.body as { message: string }).message).toMatch(
      /categoryId .*rounded by a JavaScript parser: read the state with GET \/__stub\/state\?int64=string .* PUT that back unchanged$/,
    )
    expect(asNumbers.text).toBe(exact)

    const strings = await admin(stub, 'GET', '/state?int64=string')
    expectDocumented('/state', 'GET', strings)
    const parsed = JSON.parse(strings.text) as { nextId: string; pets: Record<string, unknown>[] }
    expect(typeof parsed.nextId).toBe('string')
    expect(parsed.pets.some((pet) => pet.categoryId === '9223372036854775807')).toBe(true)
    expect(parsed.pets.every((pet) => typeof pet.id === 'string' && typeof pet.name === 'string')).toBe(true)

    await api(stub, 'POST', '/pets', '{"name":"Later","categoryId":1}') // the state moves on
    const restored = await admin(stub, 'PUT', '/state', { body: JSON.stringify(parsed) })
    expectDocumented('/state', 'PUT', restored)
    expect(restored.body).toEqual({ pets: parsed.pets.length })
    expect(stub.store.stateJson()).toBe(exact) // the very state, to the last digit
  })

  it('takes back, as strings, the state of a stub that has given every id (nextId 2^63)', async () => {
    const stub = stubWith()
    await admin(stub, 'PUT', '/state', { body: '{"nextId":"9223372036854775807","pets":[]}' })
    expect((await api(stub, 'POST', '/pets', '{"name":"Last","categoryId":1}')).status).toBe(201)
    const strings = await admin(stub, 'GET', '/state?int64=string')
    expect(JSON.parse(strings.text)).toMatchObject({ nextId: '9223372036854775808' })
    const restored = await admin(stub, 'PUT', '/state', { body: strings.text })
    expect([restored.status, restored.body]).toEqual([200, { pets: 1 }])
    const more = await api(stub, 'POST', '/pets', '{"name":"More","categoryId":1}')
    expect([more.status, (more.body as { code: string }).code]).toEqual([400, 'ids_exhausted']) // still no id left
    const past = await admin(stub, 'PUT', '/state', { body: '{"nextId":"9223372036854775809","pets":[]}' })
    expect(past.status).toBe(400)
  })

  it('refuses int64 strings that are no int64, and an int64 option it does not know', async () => {
    const stub = stubWith()
    for (const categoryId of ['9223372036854775808', '1.5', ' 1', '01', 'one']) {
      const answer = await admin(stub, 'PUT', '/state', {
        body: `{"pets":[{"id":"1","name":"A","categoryId":${JSON.stringify(categoryId)}}]}`,
      })
      expect(answer.status, categoryId).toBe(400)
      expect(answer.text).toContain('pets[0].categoryId')
    }
    const wrong = await admin(stub, 'GET', '/state?int64=bigint')
    expectDocumented('/state', 'GET', wrong)
    expect(wrong.status).toBe(400)
  })

  it('takes a bare array of pets too, and computes the next id', async () => {
    const stub = stubWith()
    expect((await admin(stub, 'PUT', '/state', { body: '[{"id":5,"name":"Five","categoryId":1}]' })).body).toEqual({
      pets: 1,
    })
    expect(stub.snapshot().nextId).toBe(6)
  })

  it.each([
    ['no JSON', '{"pets":', 'invalid_json', 'not valid JSON'],
    ['no pets', '{"nextId":3}', 'invalid_snapshot', 'pets is required'],
    ['an unknown field', '{"pets":[],"extra":1}', 'invalid_snapshot', 'unknown field "extra"'],
    [
      'a pet without a name',
      '{"pets":[{"id":1,"name":"a","categoryId":1},{"id":2,"categoryId":1}]}',
      'invalid_snapshot',
      "pets[1] must have required property 'name'",
    ],
    [
      'a status outside the enumeration',
      '{"pets":[{"id":1,"name":"a","categoryId":1,"status":"lost"}]}',
      'invalid_snapshot',
      'pets[0].status must be',
    ],
    [
      'an id beyond int64',
      '{"pets":[{"id":9223372036854775808,"name":"a","categoryId":1}]}',
      'invalid_snapshot',
      'pets[0].id',
    ],
    [
      'ids twice',
      '{"pets":[{"id":1,"name":"a","categoryId":1},{"id":1,"name":"b","categoryId":1}]}',
      'invalid_snapshot',
      'pets[1].id 1 is also the id of pets[0]',
    ],
    [
      'a nextId at or below an id',
      '{"nextId":2,"pets":[{"id":7,"name":"a","categoryId":1}]}',
      'invalid_snapshot',
      'the snapshot: nextId 2 must be above every pet id, the largest being 7',
    ],
    ['a nextId that is no integer', '{"nextId":"x","pets":[]}', 'invalid_snapshot', 'nextId must be an integer'],
    ['a key given twice', '{"nextId":100,"nextId":100,"pets":[]}', 'invalid_json', 'a key appears twice'],
    ['not an object', '"pets"', 'invalid_snapshot', 'must be an object'],
  ])('refuses a snapshot with %s, naming what is wrong, and changes nothing', async (_title, body, code, why) => {
    const stub = stubWith()
    const before = stub.store.stateJson()
    const answer = await admin(stub, 'PUT', '/state', { body })
    expectDocumented('/state', 'PUT', answer)
    expect([answer.status, (answer.body as { code: string }).code]).toEqual([400, code])
    expect((answer.body as { message: string }).message).toContain(why)
    expect(stub.store.stateJson()).toBe(before)
    // The library's restore takes a value, read by the caller: a snapshot's own faults are refused there too.
    if (code === 'invalid_snapshot') expect(() => stub.restore(parseJson(body))).toThrow()
  })

  it('refuses a snapshot that is not UTF-8, as a create is refused, rather than storing U+FFFD in its place', async () => {
    const stub = stubWith()
    const before = stub.store.stateJson()
    const body = Buffer.concat([
      Buffer.from('{"pets":[{"id":1,"name":"bad'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","categoryId":1}]}'),
    ])
    const answer = await admin(stub, 'PUT', '/state', { body: new Uint8Array(body) })
    expectDocumented('/state', 'PUT', answer)
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({ code: 'invalid_json', message: expect.stringContaining('not UTF-8') })
    expect(stub.store.stateJson()).toBe(before)
  })
})

describe('the journal', () => {
  it('answers the same read of an unchanged journal with the answer made before, a new one once it changed', async () => {
    const stub = stubWith()
    await api(stub, 'GET', '/pets')
    const read = () =>
      stub.handler.route({ method: 'GET', url: '/__stub/requests?limit=5', headers: {} }) as AppResponse
    const first = read()
    expect(read()).toBe(first) // one text for every client of the same read: two thousand made it anew for 40 s
    await api(stub, 'GET', '/pets/1')
    const after = read()
    expect(after).not.toBe(first)
    expect((JSON.parse(after.body) as { entries: unknown[] }).entries).toHaveLength(2)
    stub.clearRequests()
    expect((JSON.parse(read().body) as { entries: unknown[] }).entries).toEqual([])
  })

  it('records requests to /v1 newest first, never its own, with codes, preferences, bodies and redacted keys', async () => {
    const stub = stubWith()
    await api(stub, 'GET', '/pets?limit=2')
    await fromFetch(
      await stub.fetch(
        new Request('http://stub.test/v1/pets/424242', {
          headers: { authorization: `Bearer ${KEY}`, prefer: 'delay=1' },
        }),
      ),
    )
    await api(stub, 'POST', '/pets', '{"name":"Journaled","categoryId":1}')
    await admin(stub, 'GET', '/health')
    const answer = await admin(stub, 'GET', '/requests')
    expectDocumented('/requests', 'GET', answer)
    const { entries } = answer.body as { entries: Record<string, JsonValue>[] }
    expect(entries.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      'POST /v1/pets 201',
      'GET /v1/pets/424242 404',
      'GET /v1/pets 200',
    ])
    expect(entries[0]).toMatchObject({
      body: '{"name":"Journaled","categoryId":1}',
      bodyBytes: 35,
      bodyTruncated: false,
      headers: { 'content-type': 'application/json' },
    })
    expect(entries[1]).toMatchObject({
      code: 'pet_not_found',
      preferenceApplied: 'delay=1',
      headers: { authorization: 'Bearer [redacted]', prefer: 'delay=1' },
    })
    expect(entries[2]).toMatchObject({ query: 'limit=2' })
    expect(answer.text).not.toContain(KEY)
  })

  it('filters by method, path (exact or a prefix with *), status (exact or a class) and limit', async () => {
    const stub = stubWith()
    await api(stub, 'GET', '/pets')
    await api(stub, 'GET', '/pets/1')
    await api(stub, 'GET', '/pets/999999')
    await api(stub, 'POST', '/pets', '{"name":"a","categoryId":1}')
    const paths = async (query: string) =>
      (
        (await admin(stub, 'GET', `/requests?${query}`)).body as { entries: { path: string; status: number }[] }
      ).entries.map((e) => `${e.path} ${e.status}`)
    expect(await paths('method=post')).toEqual(['/v1/pets 201'])
    expect(await paths('path=/v1/pets')).toEqual(['/v1/pets 201', '/v1/pets 200'])
    expect(await paths('path=/v1/pets/*')).toEqual(['/v1/pets/999999 404', '/v1/pets/1 200'])
    expect(await paths('status=4xx')).toEqual(['/v1/pets/999999 404'])
    expect(await paths('status=200&limit=1')).toEqual(['/v1/pets/1 200'])
  })

  it.each(['status=abc', 'status=6xx', 'limit=0', 'limit=x', 'method=', 'method=GET&method=POST'])(
    'refuses the filter %s with 400 invalid_filter',
    async (query) => {
      const answer = await admin(stubWith(), 'GET', `/requests?${query}`)
      expectDocumented('/requests', 'GET', answer)
      expect((answer.body as { code: string }).code).toBe('invalid_filter')
    },
  )

  it('says of a filter it cannot percent-decode that it cannot, not that it is missing', async () => {
    const answer = await admin(stubWith(), 'GET', '/requests?path=/v1/pets/%*')
    expect(answer.body).toMatchObject({
      code: 'invalid_filter',
      message: 'path is not percent-encoded text (a % must start %XX)',
    })
  })

  it('is cleared by DELETE, and as a method', async () => {
    const stub = stubWith()
    await api(stub, 'GET', '/pets')
    await api(stub, 'GET', '/pets')
    const answer = await admin(stub, 'DELETE', '/requests')
    expectDocumented('/requests', 'DELETE', answer)
    expect(answer.body).toEqual({ cleared: 2 })
    expect(stub.requests()).toEqual([])
    await api(stub, 'GET', '/pets')
    expect(stub.clearRequests()).toBe(1)
  })

  it('can be turned off', async () => {
    const stub = stubWith({ journal: false })
    await api(stub, 'GET', '/pets')
    expect(stub.requests()).toEqual([])
  })
})

describe('admin routing and its key', () => {
  it('answers unknown admin paths 404 and wrong methods 405 with Allow, both Error bodies', async () => {
    const stub = stubWith()
    const missing = await admin(stub, 'GET', '/nope')
    expect([missing.status, (missing.body as { code: string }).code]).toEqual([404, 'not_found'])
    const wrong = await admin(stub, 'DELETE', '/state')
    expect([wrong.status, wrong.headers.allow]).toEqual([405, 'GET, PUT, OPTIONS'])
  })

  it('answers the preflight of an allowed origin with its methods, no key needed, and refuses other pages', async () => {
    const stub = stubWith({ adminKey: 'secret-admin', adminOrigins: ['http://page.test'] })
    const preflight = (origin: string) =>
      admin(stub, 'OPTIONS', '/reset', {
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      })
    const allowed = await preflight('http://page.test')
    expect(allowed.status).toBe(204)
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': 'http://page.test',
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': 'authorization',
    })
    // Another page's preflight is refused as its request would be (as /v1 refuses one), and names no origin.
    const foreign = await preflight('http://evil.test')
    expect([foreign.status, (foreign.body as { code: string }).code]).toEqual([403, 'origin_not_allowed'])
    expect(Object.keys(foreign.headers).filter((name) => name.startsWith('access-control-'))).toEqual([])
  })

  describe('a page on another site', () => {
    const simple = [
      ['POST', '/reset', { origin: 'http://evil.test' }],
      ['POST', '/reset', { 'content-type': 'text/plain' }], // an old browser that sends no Origin
      ['POST', '/reset', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['POST', '/reset', { 'content-type': 'multipart/form-data; boundary=x' }],
      ['DELETE', '/requests', { origin: 'http://evil.test' }],
      ['PUT', '/state', { origin: 'http://evil.test', 'content-type': 'application/json' }],
      ['GET', '/requests', { origin: 'http://evil.test' }],
      ['GET', '/state', { origin: 'null' }],
    ] as const
    it.each(simple)('cannot %s %s (%j): 403, nothing changed or shown', async (method, path, headers) => {
      const stub = stubWith()
      await api(stub, 'POST', '/pets', '{"name":"Mine","categoryId":1}')
      const before = stub.snapshot()
      const answer = await admin(stub, method, path, {
        headers: { ...headers },
        body: method === 'PUT' ? '{"pets":[]}' : undefined,
      })
      expect(answer.status).toBe(403)
      expect(answer.headers['access-control-allow-origin']).toBeUndefined()
      expect(answer.text).not.toContain('Mine')
      expectDocumented(path, method, answer)
      expect(stub.snapshot()).toEqual(before)
      expect(stub.requests()).toHaveLength(1)
    })

    it('is let in when named, and its answers name it (never *)', async () => {
      const stub = stubWith({ adminOrigins: ['http://localhost:5173'] })
      const answer = await admin(stub, 'POST', '/reset', { headers: { origin: 'http://localhost:5173' } })
      expect(answer.status).toBe(200)
      expect(answer.headers['access-control-allow-origin']).toBe('http://localhost:5173')
      expect(answer.headers.vary).toBe('Origin')
      expect(answer.headers['access-control-allow-credentials']).toBeUndefined()
    })

    it("is let in from the stub's own origin, and scripts with no Origin and no body as ever", async () => {
      const stub = stubWith()
      expect((await admin(stub, 'POST', '/reset', { headers: { origin: 'http://stub.test' } })).status).toBe(200)
      expect((await admin(stub, 'POST', '/reset')).status).toBe(200)
      expect((await admin(stub, 'DELETE', '/requests')).status).toBe(200)
    })
  })

  it('with an admin key, needs it on every operation, and never takes an API key instead', async () => {
    const stub = stubWith({ adminKey: 'secret-admin' })
    for (const headers of [{}, AUTH, { authorization: 'Bearer wrong' }, { authorization: 'Basic secret-admin' }]) {
      const answer = await admin(stub, 'POST', '/reset', { headers })
      expectDocumented('/reset', 'POST', answer)
      expect([answer.status, (answer.body as { code: string }).code, answer.headers['www-authenticate']]).toEqual([
        401,
        'admin_key_required',
        'Bearer realm="petstore-stub-admin"',
      ])
    }
    expect((await admin(stub, 'POST', '/reset', { headers: { authorization: 'Bearer secret-admin' } })).status).toBe(
      200,
    )
  })

  it('leaves /v1 as documented: an admin key does not open the interface', async () => {
    const stub = stubWith({ adminKey: 'secret-admin' })
    const answer = await fromFetch(
      await stub.fetch(new Request('http://stub.test/v1/pets', { headers: { authorization: 'Bearer secret-admin' } })),
    )
    expect(answer.status).toBe(401)
  })
})

describe('in-process admin methods', () => {
  it('reset, snapshot, restore and requests do what their endpoints do', async () => {
    const stub = stubWith()
    const seed = stub.snapshot()
    await api(stub, 'POST', '/pets', '{"name":"x","categoryId":1}')
    expect(stub.requests({ method: 'POST' })).toHaveLength(1)
    stub.restore({ pets: [{ id: 1, name: 'only', categoryId: 2 }] })
    expect(stringifyJson(stub.snapshot())).toBe('{"nextId":2,"pets":[{"id":1,"name":"only","categoryId":2}]}')
    stub.reset()
    expect(stub.snapshot()).toEqual(seed)
  })
})

describe('the state with int64 values as strings', () => {
  /** What the rewrite must give: each pet parsed and written again, its int64 members as strings. */
  const reference = (pets: string, names: ReadonlySet<string>) =>
    (parseJson(`[${pets}]`) as Record<string, JsonValue>[])
      .map((pet) =>
        stringifyJson(
          Object.fromEntries(Object.entries(pet).map(([k, v]) => [k, names.has(k) ? String(v) : v])) as JsonValue,
        ),
      )
      .join(',')

  it('writes them as parsing and writing each pet again would, but for names in strings and nested members', () => {
    const names = new Set(['id', 'categoryId'])
    const int64 = fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }))
    const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', ':', ',', '{', '}', '[', ']', '1', ' ', 'é', '\n') })
    const nested = fc.dictionary(fc.constantFrom('id', 'categoryId', 'x'), fc.oneof(int64, text), { maxKeys: 3 })
    const pet = fc.record(
      { id: int64, name: text, categoryId: int64, tags: fc.array(nested, { maxLength: 2 }), note: nested },
      { requiredKeys: ['id', 'name', 'categoryId'] },
    )
    fc.assert(
      fc.property(fc.array(pet, { minLength: 1, maxLength: 5 }), (pets) => {
        const joined = pets.map((p) => stringifyJson(p as JsonValue)).join(',')
        expect(int64AsStrings(joined, names)).toBe(reference(joined, names))
      }),
      { numRuns: 300 },
    )
    // A name inside a string, and a nested member of the same name, stay as they are.
    expect(int64AsStrings('{"id":1,"name":"\\",\\"id\\":2","n":{"id":3}}', names)).toBe(
      '{"id":"1","name":"\\",\\"id\\":2","n":{"id":3}}',
    )
  })
})
