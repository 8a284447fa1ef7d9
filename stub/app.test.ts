import { describe, expect, it } from 'vitest'
import { Spec, spec, stringifyJson, type JsonValue } from '../spec/index.js'
import { App, BASE_PATH, DEPRECATION, type AppResponse } from './app.js'
import { logLine } from './log.js'
import { loadSeed } from './seed.js'
import { PetStore } from './store.js'
import {
  AUTH,
  JSON_AUTH,
  KEY,
  NEW_PETS,
  call,
  exampleText,
  expectDocumented,
  expectError,
  makeApp,
  toAnswer,
  type Answer,
} from './testing.js'

const SEED = loadSeed(undefined)
const LIMIT = spec().parameter('listPets', 'limit')
const STATUSES = spec().enumOf('PetStatus')
const SUNSET = spec().operation('getPet').sunset!.toUTCString()

const ids = (answer: Answer) => (answer.body as { id: number }[]).map((p) => p.id)
const create = (app: App, body: JsonValue | string, headers: Record<string, string> = JSON_AUTH) =>
  call(app, 'POST', '/v1/pets', { headers, body: typeof body === 'string' ? body : stringifyJson(body) })

describe('listPets', () => {
  const app = makeApp()

  it("refuses a limit that is not a multiple of a revision's multipleOf", async () => {
    const doc = structuredClone(spec().doc)
    Object.assign(doc.paths['/pets'].get.parameters[0].schema, { minimum: 10, multipleOf: 10 })
    const revised = makeApp({ spec: new Spec(doc) })
    expect((await call(revised, 'GET', '/v1/pets?limit=30', { headers: AUTH })).status).toBe(200)
    const refused = await call(revised, 'GET', '/v1/pets?limit=15', { headers: AUTH })
    expectError(refused, 400, 'invalid_limit')
    expect((refused.body as { message: string }).message).toBe(
      'limit must be an integer from 10 to 100, a multiple of 10; got "15"',
    )
  })

  it('answers the first 20 pets (the spec default), ids ascending, as a bare array', async () => {
    const answer = await call(app, 'GET', '/v1/pets', { headers: AUTH })
    expectDocumented('listPets', answer)
    expect(answer.status).toBe(200)
    expect(Array.isArray(answer.body)).toBe(true)
    expect(ids(answer)).toEqual(SEED.slice(0, Number(LIMIT.default)).map((p) => p.id))
  })

  it('honours every limit from the minimum to the maximum', async () => {
    for (let limit = LIMIT.minimum!; limit <= LIMIT.maximum!; limit++) {
      const answer = await call(app, 'GET', `/v1/pets?limit=${limit}`, { headers: AUTH })
      expect(answer.status).toBe(200)
      expect(ids(answer)).toEqual(SEED.slice(0, limit).map((p) => p.id))
    }
  })

  it('filters by each status, in id order, leaving out pets without status', async () => {
    for (const status of STATUSES) {
      const answer = await call(app, 'GET', `/v1/pets?status=${status}&limit=100`, { headers: AUTH })
      expectDocumented('listPets', answer)
      expect(ids(answer)).toEqual(SEED.filter((p) => p.status === status).map((p) => p.id))
    }
    const all = await call(app, 'GET', '/v1/pets?limit=100', { headers: AUTH })
    expect((all.body as { status?: string }[]).filter((p) => p.status === undefined).length).toBeGreaterThan(0)
  })

  it('keeps int64 categoryIds exact', async () => {
    const answer = await call(app, 'GET', '/v1/pets?limit=100', { headers: AUTH })
    expect(answer.text).toContain('"categoryId":9223372036854775807')
    expect(answer.text).toContain('"categoryId":-9223372036854775808')
  })

  it.each([
    ['0', 'limit=0'],
    ['above the maximum', `limit=${LIMIT.maximum! + 1}`],
    ['negative', 'limit=-1'],
    ['not a number', 'limit=abc'],
    ['a fraction', 'limit=1.5'],
    ['empty', 'limit='],
    ['bare name', 'limit'],
    ['repeated', 'limit=5&limit=6'],
    ['huge', 'limit=99999999999999999999'],
    ['exponent', 'limit=1e1'],
    ['signed', 'limit=%2B5'],
    ['malformed percent-encoding', 'limit=%zz'],
  ])('answers 400 invalid_limit for a limit %s', async (_title, query) => {
    // Outside the contract: the spec records this answer of the stub in listPets' x-outside-contract.
    const answer = await call(app, 'GET', `/v1/pets?${query}`, { headers: AUTH })
    expectError(answer, 400, 'invalid_limit')
    expect((answer.body as { message: string }).message).toMatch(/limit/)
  })

  it.each([
    ['unknown', 'status=lost'],
    ['in the wrong case', 'status=Available'],
    ['empty', 'status='],
    ['repeated', 'status=sold&status=sold'],
    ['malformed percent-encoding', 'status=%E0%A4%A'],
  ])('answers 400 invalid_status for a status %s', async (_title, query) => {
    const answer = await call(app, 'GET', `/v1/pets?${query}`, { headers: AUTH })
    expectError(answer, 400, 'invalid_status')
  })

  it('ignores unknown query parameters, even malformed ones', async () => {
    const answer = await call(app, 'GET', '/v1/pets?limit=2&page=3&%zz=1&sort=-id', { headers: AUTH })
    expect(ids(answer)).toEqual([1, 2])
  })

  it('decodes percent-encoded parameters', async () => {
    const answer = await call(app, 'GET', '/v1/pets?lim%69t=%33&status=s%6Fld', { headers: AUTH })
    expect(ids(answer)).toEqual(
      SEED.filter((p) => p.status === 'sold')
        .slice(0, 3)
        .map((p) => p.id),
    )
  })

  it('serves a new pet in the next list (prepared pages follow the store)', async () => {
    const local = makeApp({ seed: false })
    expect((await call(local, 'GET', '/v1/pets', { headers: AUTH })).text).toBe('[]')
    await create(local, { name: 'First', categoryId: 1, status: 'sold' })
    expect(ids(await call(local, 'GET', '/v1/pets', { headers: AUTH }))).toEqual([1])
    expect(ids(await call(local, 'GET', '/v1/pets?status=sold', { headers: AUTH }))).toEqual([1])
  })

  it('answers each query string by its own parameters, repeated or not, however many were asked', async () => {
    const local = makeApp()
    const sold = SEED.filter((p) => p.status === 'sold').map((p) => p.id)
    for (let round = 0; round < 2; round++) {
      expect(ids(await call(local, 'GET', '/v1/pets?limit=2', { headers: AUTH }))).toEqual([1, 2])
      expect(ids(await call(local, 'GET', '/v1/pets?limit=3', { headers: AUTH }))).toEqual([1, 2, 3])
      expect(ids(await call(local, 'GET', '/v1/pets?limit=2&status=sold', { headers: AUTH }))).toEqual(sold.slice(0, 2))
      expectError(await call(local, 'GET', '/v1/pets?limit=0', { headers: AUTH }), 400, 'invalid_limit')
    }
    for (let i = 1; i <= 150; i++) {
      const limit = (i % LIMIT.maximum!) + 1
      expect(ids(await call(local, 'GET', `/v1/pets?limit=${limit}&n=${i}`, { headers: AUTH }))).toEqual(
        SEED.slice(0, limit).map((p) => p.id),
      )
    }
  })

  it('costs the same with many pets: only `limit` of them are touched', async () => {
    const store = new PetStore()
    for (let i = 0; i < 200_000; i++) store.add({ name: `Pet ${i}`, categoryId: i, status: STATUSES[i % 3] })
    const big = new App({ store, apiKeys: [KEY] })
    const answer = await call(big, 'GET', '/v1/pets?limit=100&status=sold', { headers: AUTH })
    expect(ids(answer)).toHaveLength(100)
    expect(ids(answer)[99]).toBe(300)
  })
})

describe('createPet', () => {
  it.each(NEW_PETS.valid.map((e) => [e.title, e] as const))(
    'stores and echoes a valid pet: %s',
    async (_title, example) => {
      const app = makeApp()
      const answer = await create(app, exampleText(example))
      expectDocumented('createPet', answer)
      expect(answer.status).toBe(201)
      const echoed = answer.body as Record<string, JsonValue>
      expect(echoed).toEqual({ ...(example.body as object), id: SEED.length + 1 })
      const fetched = await call(app, 'GET', `/v1/pets/${echoed.id}`, { headers: AUTH })
      expect(fetched.text).toBe(answer.text)
    },
  )

  it.each(NEW_PETS.invalid.map((e) => [e.title, e] as const))(
    'answers 400 with a distinct code: %s',
    async (_title, example) => {
      const app = makeApp()
      const answer = await create(app, exampleText(example))
      expectDocumented('createPet', answer)
      expectError(answer, 400, example.stubCode!)
      expect(app.store.size).toBe(SEED.length)
    },
  )

  it('validates a write-only property of a revision, and never shows it', async () => {
    const doc = structuredClone(spec().doc)
    doc.components.schemas.NewPet.properties.secret = { type: 'string', maxLength: 8, writeOnly: true }
    const app = makeApp({ spec: new Spec(doc) })
    const answer = await create(app, { name: 'Rex', categoryId: 1, secret: 'hush' })
    expect(answer.status).toBe(201)
    expect(answer.body).toEqual({ id: SEED.length + 1, name: 'Rex', categoryId: 1 })
    const fetched = await call(app, 'GET', `/v1/pets/${SEED.length + 1}`, { headers: AUTH })
    expect(fetched.body).toEqual(answer.body)
    expect((await create(app, { name: 'Rex', categoryId: 1, secret: 'far too long' })).status).toBe(400)
    expect(app.store.size).toBe(SEED.length + 1)
  })

  it('names the field and what was wrong in each message', async () => {
    const app = makeApp()
    const message = async (body: string) => ((await create(app, body)).body as { message: string }).message
    expect(await message('{"categoryId":1}')).toMatch(/name is required/)
    expect(await message('{"name":"x","categoryId":"1"}')).toMatch(/categoryId must be an int64 integer; got a string/)
    expect(await message('{"name":"x","categoryId":1,"status":"lost"}')).toMatch(
      /status must be one of available, pending, sold; got "lost"/,
    )
    expect(await message('{"name":"x","categoryId":9223372036854775808}')).toMatch(
      /categoryId .* got 9223372036854775808/,
    )
  })

  it('treats integers written as 1.0 or 1e2 as integers, and 1e400 as out of range', async () => {
    const app = makeApp({ seed: false })
    expect((await create(app, '{"name":"a","categoryId":1.0}')).body).toEqual({ id: 1, name: 'a', categoryId: 1 })
    expect((await create(app, '{"name":"b","categoryId":1e2}')).body).toEqual({ id: 2, name: 'b', categoryId: 100 })
    expectError(await create(app, '{"name":"c","categoryId":1e400}'), 400, 'out_of_range')
    expectError(await create(app, '{"name":"c","categoryId":-1e19}'), 400, 'out_of_range')
  })

  it('ignores unknown fields and does not store them', async () => {
    const app = makeApp({ seed: false })
    const answer = await create(app, { name: 'Rex', categoryId: 1, color: 'red', id: 999, tags: [1] })
    expect(answer.body).toEqual({ id: 1, name: 'Rex', categoryId: 1 })
    expect((await call(app, 'GET', '/v1/pets/1', { headers: AUTH })).body).toEqual({
      id: 1,
      name: 'Rex',
      categoryId: 1,
    })
  })

  it('stores a pet without status without it, and no status filter finds it', async () => {
    const app = makeApp({ seed: false })
    expect((await create(app, { name: 'Coco', categoryId: 2 })).text).toBe('{"id":1,"name":"Coco","categoryId":2}')
    for (const status of STATUSES)
      expect((await call(app, 'GET', `/v1/pets?status=${status}`, { headers: AUTH })).text).toBe('[]')
  })

  it('keeps int64 extremes exact through create, get and list', async () => {
    const app = makeApp({ seed: false })
    for (const digits of ['9223372036854775807', '-9223372036854775808', '9007199254740993']) {
      const answer = await create(app, `{"name":"Big","categoryId":${digits}}`)
      expect(answer.text).toContain(`"categoryId":${digits}}`)
      const id = (answer.body as { id: number }).id
      expect((await call(app, 'GET', `/v1/pets/${id}`, { headers: AUTH })).text).toContain(`"categoryId":${digits}}`)
    }
    const list = await call(app, 'GET', '/v1/pets', { headers: AUTH })
    expect(list.text).toContain('9223372036854775807')
    expect(list.text).toContain('-9223372036854775808')
  })

  it.each([
    ['9007199254740993.0', '9007199254740993'],
    ['9.007199254740993e15', '9007199254740993'],
    ['9223372036854775807.000', '9223372036854775807'],
    ['922337203685477580.7E1', '9223372036854775807'],
    ['-9.223372036854775808e18', '-9223372036854775808'],
    ['1e2', '100'],
    ['100E-2', '1'],
    ['-0.0', '0'],
  ])('reads the integer categoryId %s exactly, whatever its notation: %s', async (literal, digits) => {
    const answer = await create(makeApp({ seed: false }), `{"name":"Exact","categoryId":${literal}}`)
    expect(answer.status).toBe(201)
    expect(answer.text).toBe(`{"id":1,"name":"Exact","categoryId":${digits}}`)
  })

  it.each([
    ['9223372036854775808.0', 'out_of_range', '9223372036854775808.0'],
    ['9.3e18', 'out_of_range', '9.3e18'],
    ['-9223372036854775809e0', 'out_of_range', '-9223372036854775809e0'],
    ['1e400', 'out_of_range', '1e400'],
    ['of 50,000 nines', 'out_of_range', '9'.repeat(50_000)],
    ['1.5e0', 'wrong_type', '1.5e0'],
    ['12345678901234567.5', 'wrong_type', '12345678901234567.5'],
    ['1e-400', 'wrong_type', '1e-400'],
  ])('refuses the categoryId %s with %s, in a message of bounded length', async (_title, code, literal) => {
    const answer = await create(makeApp({ seed: false }), `{"name":"Exact","categoryId":${literal}}`)
    expectError(answer, 400, code)
    expect(answer.text.length).toBeLessThan(300)
  })

  it('accepts JSON with a charset, +json types and a byte order mark', async () => {
    const app = makeApp({ seed: false })
    for (const type of ['application/json; charset=utf-8', 'application/vnd.petstore+json', 'APPLICATION/JSON']) {
      expect((await create(app, '{"name":"a","categoryId":1}', { ...AUTH, 'content-type': type })).status, type).toBe(
        201,
      )
    }
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"b","categoryId":1}')])
    expect((await call(app, 'POST', '/v1/pets', { headers: JSON_AUTH, body: bom })).status).toBe(201)
  })

  it.each([
    ['no Content-Type', undefined],
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['a charset other than UTF-8', 'application/json; charset=iso-8859-1'],
  ])('answers 400 unsupported_media_type for %s', async (_title, type) => {
    const app = makeApp()
    const headers: Record<string, string> = type === undefined ? { ...AUTH } : { ...AUTH, 'content-type': type }
    const answer = await create(app, '{"name":"Rex","categoryId":1}', headers)
    expectDocumented('createPet', answer)
    expectError(answer, 400, 'unsupported_media_type')
  })

  it('answers 400 unsupported_media_type for a compressed body', async () => {
    const answer = await create(makeApp(), '{"name":"Rex","categoryId":1}', {
      ...JSON_AUTH,
      'content-encoding': 'gzip',
    })
    expectError(answer, 400, 'unsupported_media_type')
    expect((answer.body as { message: string }).message).toContain('Content-Encoding')
    expect(
      (await create(makeApp(), '{"name":"Rex","categoryId":1}', { ...JSON_AUTH, 'content-encoding': 'identity' }))
        .status,
    ).toBe(201)
  })

  it('answers 400 invalid_json for bytes that are not UTF-8, and for nesting too deep to parse', async () => {
    const app = makeApp()
    expectError(
      await call(app, 'POST', '/v1/pets', { headers: JSON_AUTH, body: Buffer.from([0x7b, 0xff, 0x7d]) }),
      400,
      'invalid_json',
    )
    expectError(await create(app, '['.repeat(60_000)), 400, 'invalid_json')
    expectError(await create(app, '{"name":"a","name":"b","categoryId":1}'), 400, 'invalid_json')
  })

  it.each([
    ['a duplicate key after an escaped quote', '{"name":"a\\":b","name":"c","categoryId":1}'],
    ['a duplicate key after colons and braces in strings', '{"name":"{:}[:]","categoryId":1,"categoryId":2}'],
    ['a duplicate key spelled with an escape', '{"name":"a","n\\u0061me":"b","categoryId":1}'],
    ['a duplicate __proto__ key', '{"__proto__":1,"name":"a","categoryId":1,"__proto__":2}'],
    ['a key given twice with one value', '{"name":"k","name":"k","categoryId":1}'],
    ['a key given twice with one value in two notations', '{"name":"k","categoryId":1,"categoryId":1.0}'],
    ['a trailing second object', '{"name":"a","categoryId":1}{"name":"b"}'],
  ])('answers 400 invalid_json for a flat object with %s', async (_title, body) => {
    expectError(await create(makeApp({ seed: false }), body), 400, 'invalid_json')
  })

  it.each([
    [
      'colons, braces and escaped quotes in the name',
      '{"name":"a\\":{[b]}:","categoryId":7}',
      '"name":"a\\":{[b]}:","categoryId":7',
    ],
    [
      'a scalar __proto__ key, ignored',
      '{"__proto__":"x","name":"p","categoryId":1,"status":"sold"}',
      '"name":"p","categoryId":1,"status":"sold"',
    ],
    [
      '15-digit numbers',
      '{"name":"n","categoryId":123456789012345,"x":1.23456789012345}',
      '"name":"n","categoryId":123456789012345',
    ],
  ])('creates from a flat object with %s', async (_title, body, expected) => {
    const answer = await create(makeApp({ seed: false }), body)
    expect(answer.status).toBe(201)
    expect(answer.text).toBe(`{"id":1,${expected}}`)
    expect(Object.prototype).not.toHaveProperty('name')
  })

  it('refuses a 16-digit fraction that a double rounds to an integer', async () => {
    expectError(
      await create(makeApp({ seed: false }), '{"name":"f","categoryId":1234567890.0000001}'),
      400,
      'wrong_type',
    )
  })

  it('answers 400 missing_body for a body of blanks only', async () => {
    expectError(await create(makeApp(), ' \n\t '), 400, 'missing_body')
  })

  it('answers 400 body_too_large over the limit, and closes the connection', async () => {
    const app = makeApp({ maxBody: 100 })
    const answer = await create(app, `{"name":"${'x'.repeat(100)}","categoryId":1}`)
    expectDocumented('createPet', answer)
    expectError(answer, 400, 'body_too_large')
    expect(answer.headers.connection).toBe('close')
    expect((await create(app, '{"name":"x","categoryId":1}')).status).toBe(201)
  })

  it('keeps prototypes clean: __proto__ and constructor keys are plain data, never stored', async () => {
    const app = makeApp({ seed: false })
    const payloads = [
      '{"name":"p","categoryId":1,"__proto__":{"polluted":true}}',
      '{"name":"p","categoryId":1,"constructor":{"prototype":{"polluted":true}}}',
      '{"__proto__":{"name":"p","categoryId":1}}',
      '{"name":"p","categoryId":1,"__proto__":{"status":"lost"}}',
    ]
    const statuses = []
    for (const payload of payloads) statuses.push((await create(app, payload)).status)
    expect(statuses).toEqual([201, 201, 400, 201])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
    expect(Object.prototype).not.toHaveProperty('status')
    const list = await call(app, 'GET', '/v1/pets', { headers: AUTH })
    expect(list.text).not.toMatch(/polluted|__proto__|constructor|lost/)
  })

  it('assigns ids from the largest seed id + 1', async () => {
    const app = makeApp()
    const first = await create(app, { name: 'a', categoryId: 1 })
    const second = await create(app, { name: 'b', categoryId: 1 })
    const maxSeed = Math.max(...SEED.map((p) => Number(p.id)))
    expect([(first.body as { id: number }).id, (second.body as { id: number }).id]).toEqual([maxSeed + 1, maxSeed + 2])
  })
})

describe('getPet', () => {
  const app = makeApp()

  it('answers 200 with the pet, and the deprecation headers', async () => {
    const answer = await call(app, 'GET', '/v1/pets/7', { headers: AUTH })
    expectDocumented('getPet', answer)
    expect(answer.text).toBe('{"id":7,"name":"Lucy","categoryId":9223372036854775807,"status":"available"}')
    expect(answer.headers).toMatchObject({
      deprecation: DEPRECATION,
      sunset: SUNSET,
      link: '</v1/pets>; rel="successor-version"',
    })
  })

  it('answers 200 for every seed pet, exactly as seeded', async () => {
    for (const pet of SEED) {
      const answer = await call(app, 'GET', `/v1/pets/${pet.id}`, { headers: AUTH })
      expect(answer.body).toEqual(pet)
    }
  })

  it.each([
    '999',
    '0',
    '-1',
    'abc',
    '1.5',
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775809',
    '1e3',
    '%20',
    'Rex',
    '%',
    '%zz',
    '1%2',
  ])('answers 404 with the deprecation headers for petId %s', async (petId) => {
    const answer = await call(app, 'GET', `/v1/pets/${petId}`, { headers: AUTH })
    expectDocumented('getPet', answer)
    expectError(answer, 404, 'pet_not_found')
    expect(answer.headers).toMatchObject({ deprecation: DEPRECATION, sunset: SUNSET })
  })

  it('states the deprecation date the stub chose (2025-12-05) and the spec’s sunset (2030-12-05)', () => {
    expect(new Date(Number(DEPRECATION.slice(1)) * 1000).toISOString()).toBe('2025-12-05T00:00:00.000Z')
    expect(SUNSET).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
  })

  it("writes the deprecation date in the form a revision's Deprecation header documents (an earlier draft's)", async () => {
    for (const [schema, example, sent] of [
      [{ type: 'string', pattern: ' GMT$' }, 'Fri, 05 Dec 2025 00:00:00 GMT', 'Fri, 05 Dec 2025 00:00:00 GMT'],
      [{ type: 'string', pattern: ' GMT$' }, 'Mon, 01 Jan 2029 00:00:00 GMT', 'Mon, 01 Jan 2029 00:00:00 GMT'],
      [{ type: 'string', enum: ['true'] }, 'true', 'true'],
      [{ type: 'string', pattern: '^@[0-9]+$' }, '@1735689600', '@1735689600'],
    ] as const) {
      const doc = structuredClone(spec().doc)
      doc.components.headers.Deprecation = { schema, example }
      const revised = makeApp({ spec: new Spec(doc) })
      for (const id of ['1', '999']) {
        const answer = await call(revised, 'GET', `/v1/pets/${id}`, { headers: AUTH })
        expect(answer.headers).toMatchObject({ deprecation: sent, sunset: SUNSET })
      }
    }
  })

  it('is the only operation with Deprecation or Sunset', async () => {
    for (const answer of [
      await call(app, 'GET', '/v1/pets', { headers: AUTH }),
      await call(app, 'GET', '/v1/pets'),
      await create(makeApp(), { name: 'x', categoryId: 1 }),
      await create(makeApp(), '{'),
      await call(app, 'DELETE', '/v1/pets/1', { headers: AUTH }),
    ]) {
      expect(answer.headers.deprecation).toBeUndefined()
      expect(answer.headers.sunset).toBeUndefined()
    }
  })
})

describe('authentication', () => {
  const operations = [
    ['listPets', 'GET', '/v1/pets'],
    ['createPet', 'POST', '/v1/pets'],
    ['getPet', 'GET', '/v1/pets/1'],
  ] as const
  const body = '{"name":"Intruder","categoryId":1}'

  for (const [operationId, method, url] of operations) {
    describe(operationId, () => {
      it.each([
        ['no Authorization header', {}, 'missing_credentials', 'Bearer realm="petstore"'],
        ['an empty Authorization header', { authorization: '' }, 'missing_credentials', 'Bearer realm="petstore"'],
        [
          'Bearer with no token',
          { authorization: 'Bearer' },
          'invalid_token',
          'Bearer realm="petstore", error="invalid_token"',
        ],
        [
          'Bearer with a blank token',
          { authorization: 'Bearer   ' },
          'invalid_token',
          'Bearer realm="petstore", error="invalid_token"',
        ],
        [
          'a wrong key',
          { authorization: 'Bearer wrong-key' },
          'invalid_token',
          'Bearer realm="petstore", error="invalid_token"',
        ],
        [
          'the key with a suffix',
          { authorization: `Bearer ${KEY}x` },
          'invalid_token',
          'Bearer realm="petstore", error="invalid_token"',
        ],
        [
          'the Basic scheme',
          { authorization: `Basic ${Buffer.from(`user:${KEY}`).toString('base64')}` },
          'unsupported_scheme',
          'Bearer realm="petstore"',
        ],
        ['the key with no scheme', { authorization: KEY }, 'unsupported_scheme', 'Bearer realm="petstore"'],
      ])(
        'answers 401 for %s, with an RFC 6750 challenge, and does nothing',
        async (_title, headers, code, challenge) => {
          const app = makeApp()
          const answer = await call(app, method, url, {
            headers: { ...headers, 'content-type': 'application/json' },
            body,
          })
          expectDocumented(operationId, answer)
          expectError(answer, 401, code)
          expect(answer.headers['www-authenticate']).toBe(challenge)
          expect(app.store.size).toBe(SEED.length)
          if (operationId === 'getPet') expect(answer.headers.deprecation).toBe(DEPRECATION)
        },
      )

      it.each([
        ['valid, then wrong', [`Bearer ${KEY}`, 'Bearer wrong-key']],
        ['wrong, then valid', ['Bearer wrong-key', `Bearer ${KEY}`]],
        ['valid twice', [`Bearer ${KEY}`, `Bearer ${KEY}`]],
      ])(
        'answers 401 for two Authorization headers (%s): ambiguous credentials, and does nothing',
        async (_title, values) => {
          const app = makeApp()
          const connection = {}
          await app.handle({ method: 'GET', url: '/v1/pets', headers: AUTH, connection }) // a key this connection already proved
          const answer = toAnswer(
            await app.handle({
              method,
              url,
              headers: { authorization: values, 'content-type': 'application/json' },
              body,
              connection,
            }),
          )
          expectDocumented(operationId, answer)
          expectError(answer, 401, 'multiple_credentials')
          expect(answer.headers['www-authenticate']).toBe('Bearer realm="petstore", error="invalid_request"')
          expect(app.store.size).toBe(SEED.length)
        },
      )

      it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts the scheme written %s', async (scheme) => {
        const answer = await call(makeApp(), method, url, {
          headers: { authorization: `${scheme} ${KEY}`, 'content-type': 'application/json' },
          body,
        })
        expect(answer.status).toBeLessThan(300)
      })
    })
  }

  it('accepts every configured key, and remembers a proved key per connection only', async () => {
    const app = new App({ store: new PetStore(), apiKeys: ['one', 'two'] })
    const connection = {}
    for (const key of ['one', 'two', 'one']) {
      const answer = toAnswer(
        app.route({ method: 'GET', url: '/v1/pets', headers: { authorization: `Bearer ${key}` }, connection }) as never,
      )
      expect(answer.status).toBe(200)
    }
    const wrong = toAnswer(
      app.route({ method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer on' }, connection }) as never,
    )
    expect(wrong.status).toBe(401)
  })
})

describe('routing', () => {
  const app = makeApp()

  it.each([
    '/',
    '/v1',
    '/v1/',
    '/pets',
    '/v2/pets',
    '/v1/pets/',
    '/v1/pets/1/extra',
    '/v1/petsx',
    '/V1/pets',
    '/v1/p%zzets',
    '/v1//pets',
    '*',
  ])('answers 404 Error for the unknown path %s, with or without a key', async (path) => {
    for (const headers of [{}, AUTH]) expectError(await call(app, 'GET', path, { headers }), 404, 'not_found')
  })

  it('says of a path it cannot percent-decode what is wrong with it, not where the operations live', async () => {
    const answer = await call(app, 'GET', '/v1/p%ets', { headers: AUTH })
    expectError(answer, 404, 'not_found')
    expect((answer.body as { message: string }).message).toBe(
      'no resource at "/v1/p%ets"; its segment "p%ets" is not percent-encoded text (a % must start %XX, XX two hex digits of UTF-8)',
    )
    // A parameter that is no such text is the operation's all the same: its key first, then no pet of that id.
    expectError(await call(app, 'GET', '/v1/pets/%'), 401, 'missing_credentials')
    expect(((await call(app, 'GET', '/v1/petz', { headers: AUTH })).body as { message: string }).message).toContain(
      'the operations live under /v1',
    )
  })

  it.each([
    ['DELETE', '/v1/pets/1', 'GET, OPTIONS'],
    ['PUT', '/v1/pets/1', 'GET, OPTIONS'],
    ['POST', '/v1/pets/1', 'GET, OPTIONS'],
    ['PATCH', '/v1/pets', 'GET, POST, OPTIONS'],
    ['DELETE', '/v1/pets', 'GET, POST, OPTIONS'],
    ['HEAD', '/v1/pets', 'GET, POST, OPTIONS'],
  ])('answers %s %s with 405 Error and Allow: %s, with or without a key', async (method, path, allow) => {
    for (const headers of [{}, AUTH]) {
      const answer = await call(app, method, path, { headers })
      expectError(answer, 405, 'method_not_allowed')
      expect(answer.headers.allow).toBe(allow)
    }
  })

  it('routes percent-encoded literal segments like their plain form', async () => {
    expect((await call(app, 'GET', '/v1/p%65ts/%31', { headers: AUTH })).body).toMatchObject({ id: 1 })
  })

  it('serves the operations under the version prefix of the spec’s local server', () => {
    const local = (spec().doc.servers as { url: string }[])
      .map((s) => s.url)
      .find((u) => u.startsWith('http://127.0.0.1'))
    expect(new URL(local!).pathname).toBe(BASE_PATH)
  })

  it.each([
    ['/v1/pets', 'GET, POST, OPTIONS'],
    ['/v1/pets/1', 'GET, OPTIONS'],
  ])('answers the CORS preflight on %s with 204 and its methods, no key needed', async (path, methods) => {
    const answer = await call(app, 'OPTIONS', path, {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    })
    expect(answer.status).toBe(204)
    expect(answer.text).toBe('')
    expect(answer.headers).toMatchObject({
      'content-type': 'application/json', // every answer says JSON, even one with no body
      'access-control-allow-origin': '*',
      'access-control-allow-methods': methods,
      'access-control-allow-headers': 'authorization, content-type, prefer',
      'access-control-max-age': '600',
    })
  })

  it('allows every well-formed header a preflight asks for, tracing headers included, and says so for the log', async () => {
    const asked =
      'Authorization, Content-Type, Prefer, X-Request-Id, sentry-trace, baggage, b3, traceparent, request-id, Bad Name'
    const answer = await call(app, 'OPTIONS', '/v1/pets', {
      headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': asked },
    })
    const allowed =
      'authorization, content-type, prefer, x-request-id, sentry-trace, baggage, b3, traceparent, request-id'
    expect(answer.headers['access-control-allow-headers']).toBe(allowed)
    expect(answer.headers.vary).toBe('Access-Control-Request-Headers')
    const routed = app.route({
      method: 'OPTIONS',
      url: '/v1/pets',
      headers: { authorization: undefined, 'access-control-request-headers': asked },
    })
    expect(logLine({ method: 'OPTIONS', url: '/v1/pets' }, routed as AppResponse, 1)).toBe(
      `OPTIONS /v1/pets 204 allow-headers="${allowed}" 1.0ms`,
    )
  })

  it('puts the CORS headers and the JSON content type on every answer, exposing the headers each one carries', async () => {
    const answers: [Answer, string | undefined][] = [
      [await call(app, 'GET', '/v1/pets', { headers: AUTH }), undefined],
      [await call(app, 'GET', '/v1/pets?limit=0', { headers: AUTH }), undefined],
      [await call(app, 'GET', '/v1/pets/1', { headers: AUTH }), 'Deprecation, Link, Sunset'],
      [await call(app, 'GET', '/v1/pets/1'), 'Deprecation, Link, Sunset, WWW-Authenticate'],
      [
        await call(app, 'GET', '/v1/pets', { headers: { ...AUTH, prefer: 'code=429' } }),
        'Retry-After, Preference-Applied',
      ],
      [await call(app, 'GET', '/nowhere'), undefined],
      [await call(app, 'PUT', '/v1/pets'), 'Allow'],
      [await create(makeApp(), { name: 'x', categoryId: 1 }), undefined],
    ]
    for (const [answer, exposed] of answers) {
      expect(answer.headers['access-control-allow-origin']).toBe('*')
      expect(answer.headers['access-control-expose-headers']).toBe(exposed)
      expect(answer.headers['content-type']).toBe('application/json')
      expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.text))
    }
  })

  it('exposes a response header a revision declares, so that a page can read it', async () => {
    const doc = structuredClone(spec().doc)
    doc.paths['/pets'].get.responses['200'].headers = {
      'X-Total-Count': { required: true, schema: { type: 'integer', minimum: 0 }, example: 36 },
    }
    const answer = await call(makeApp({ spec: new Spec(doc) }), 'GET', '/v1/pets', { headers: AUTH })
    expect(answer.headers['x-total-count']).toBe('36')
    expect(answer.headers['access-control-expose-headers']).toBe('X-Total-Count')
  })
})

describe('undeclared fields', () => {
  it('are dropped alike at every depth: top level, nested objects, arrays of objects', async () => {
    const doc = structuredClone(spec().doc)
    const owner = { type: 'object', properties: { name: { type: 'string' } } }
    doc.components.schemas.NewPet.properties.owner = owner
    doc.components.schemas.NewPet.properties.vets = { type: 'array', items: owner }
    doc.components.schemas.NewPet.properties.labels = { type: 'object', additionalProperties: { type: 'string' } }
    const app = makeApp({ spec: new Spec(doc) })
    const sent = {
      name: 'Rex',
      categoryId: 1,
      extra: 1,
      owner: { name: 'Ann', extra: 2 },
      vets: [{ name: 'Bo', extra: 3 }],
      labels: { colour: 'red' },
    }
    const created = await create(app, sent)
    expect(created.status).toBe(201)
    const { id, ...pet } = created.body as Record<string, JsonValue>
    expect(pet).toEqual({
      name: 'Rex',
      categoryId: 1,
      owner: { name: 'Ann' },
      vets: [{ name: 'Bo' }],
      labels: { colour: 'red' },
    })
    const got = await call(app, 'GET', `/v1/pets/${String(id)}`, { headers: AUTH })
    expect(got.body).toEqual(created.body)
  })
})

describe('response headers a revision declares', () => {
  const revised = (headers: Record<string, unknown>) => {
    const doc = structuredClone(spec().doc)
    doc.paths['/pets'].get.responses['200'].headers = headers
    return makeApp({ spec: new Spec(doc) })
  }
  const list = async (app: ReturnType<typeof makeApp>, query = '') =>
    (await call(app, 'GET', `/v1/pets${query}`, { headers: AUTH })).headers

  it('a format: uuid header differs between answers, also for the same page asked again', async () => {
    const app = revised({ 'X-Request-Id': { required: true, schema: { type: 'string', format: 'uuid' } } })
    const ids = [await list(app), await list(app), await list(app, '?limit=5')].map((h) => h['x-request-id'])
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(new Set(ids).size).toBe(3)
  })

  it('a count header of a list says how many pets the query matches, as pets are added', async () => {
    const app = revised({
      'X-Total-Count': { required: true, description: 'The number of pets held.', schema: { type: 'integer' } },
    })
    const held = app.store.size
    expect((await list(app))['x-total-count']).toBe(String(held))
    expect((await list(app, '?status=sold&limit=1'))['x-total-count']).toBe(String(app.store.count('sold')))
    await create(app, { name: 'x', categoryId: 1 })
    expect((await list(app))['x-total-count']).toBe(String(held + 1))
  })

  it('a header with nothing documented to send gets a value generated from its schema, per answer', async () => {
    const app = revised({ 'X-Trace': { required: true, schema: { type: 'string', pattern: '^[0-9a-f]{32}$' } } })
    const traces = await Promise.all([1, 2, 3].map(async () => (await list(app))['x-trace']))
    for (const trace of traces) expect(trace).toMatch(/^[0-9a-f]{32}$/)
    expect(new Set(traces).size).toBeGreaterThan(1)
  })
})

describe('the catch-all', () => {
  class BrokenStore extends PetStore {
    override page(): string[] {
      throw new TypeError('broken page')
    }
    override find(): string | undefined {
      throw new TypeError('broken find')
    }
    override add(): never {
      throw new TypeError('broken add')
    }
  }
  const app = new App({ store: new BrokenStore(), apiKeys: [KEY] })

  it.each([
    ['listPets', 'GET', '/v1/pets', 400],
    ['getPet', 'GET', '/v1/pets/1', 404],
    ['createPet', 'POST', '/v1/pets', 400],
  ] as const)(
    'answers %s with 400 (404 on getPet) and no stack trace when something breaks',
    async (operationId, method, url, status) => {
      const answer = await call(app, method, url, { headers: JSON_AUTH, body: '{"name":"x","categoryId":1}' })
      if (spec().statuses(operationId).includes(String(status))) expectDocumented(operationId, answer) // listPets documents no 400
      expectError(answer, status, 'unexpected_error')
      expect(answer.text).not.toMatch(/broken|TypeError|at /)
    },
  )

  it('answers 400 store_full once the pets take the most the store keeps, naming what frees room', async () => {
    const store = new PetStore([])
    store.maxBytes = 120
    const full = new App({ store, apiKeys: [KEY] })
    expect((await create(full, { name: 'x'.repeat(80), categoryId: 1 })).status).toBe(201) // 111 bytes
    const answer = await create(full, { name: 'x', categoryId: 1 }) // 32 bytes more would take it past 120
    expectDocumented('createPet', answer)
    expectError(answer, 400, 'store_full')
    expect(answer.text).toContain('reset the stub (POST /__stub/reset)')
    expect(store.size).toBe(1)
  })

  it('answers 400 ids_exhausted when no int64 id is left', async () => {
    const full = new App({ store: new PetStore([{ id: 2n ** 63n - 1n, name: 'Last', categoryId: 1 }]), apiKeys: [KEY] })
    const answer = await create(full, { name: 'x', categoryId: 1 })
    expectDocumented('createPet', answer)
    expectError(answer, 400, 'ids_exhausted')
  })
})
