import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { Spec, spec, type OperationId } from '../spec/index.js'
import { JSON_TYPE } from './app.js'
import { specExamples } from './examples.js'
import { generate } from './generate.js'
import { CHAOS_STATUSES, MAX_DELAY_MS, statusesOf } from './prefer.js'
import { SOCKET_DIRECTIVES } from './socket.js'
import { createStub, type CreateStubOptions, type InProcessStub } from './stub.js'
import { AUTH, JSON_AUTH, KEY, fromFetch, type Answer } from './testing.js'

const PATHS: Record<OperationId, { method: string; path: string; body?: string }> = {
  listPets: { method: 'GET', path: '/v1/pets' },
  createPet: { method: 'POST', path: '/v1/pets', body: '{"name":"Rex","categoryId":1}' },
  getPet: { method: 'GET', path: '/v1/pets/1' },
}
const OPERATIONS = Object.keys(PATHS) as OperationId[]

const stubWith = (options: CreateStubOptions = {}) => createStub({ apiKeys: [KEY], ...options })

/** Sends an operation's request with `prefer` (and the key unless `headers` say otherwise). */
async function send(
  stub: InProcessStub,
  operationId: OperationId,
  prefer?: string,
  headers: Record<string, string> = JSON_AUTH,
): Promise<Answer> {
  const { method, path, body } = PATHS[operationId]
  const all = prefer === undefined ? headers : { ...headers, prefer }
  return fromFetch(await stub.fetch(new Request(`http://stub.test${path}`, { method, headers: all, body })))
}

/** What must hold of every forced answer: the status asked for, a body and headers the spec accepts. */
function expectSpecValid(operationId: OperationId, answer: Answer, status: number): void {
  expect(answer.status).toBe(status)
  expect(answer.headers['content-type']).toBe(JSON_TYPE)
  const validate = (CHAOS_STATUSES as readonly number[]).includes(status)
    ? spec().schema('Error')
    : spec().response(operationId, status)!
  expect(validate(answer.body!), answer.text).toEqual([])
  if (status >= 400) expect((answer.body as { status: number }).status).toBe(status)
  if (operationId === 'getPet') expect(answer.headers.deprecation).toBeDefined()
}

describe('Prefer: code=', () => {
  it.each(OPERATIONS)(
    '%s: answers every status the spec documents, and 429 and 503, with a spec-valid body',
    async (operationId) => {
      const stub = stubWith()
      const before = stub.store.state()
      for (const status of statusesOf(operationId)) {
        const answer = await send(stub, operationId, `code=${status}`)
        expectSpecValid(operationId, answer, status)
        expect(answer.headers['preference-applied']).toBe(`code=${status}`)
        if (status === 429 || status === 503) expect(answer.headers['retry-after']).toBe('1')
        if (status === 401) expect(answer.headers['www-authenticate']).toMatch(/^Bearer realm=/)
      }
      expect(stub.store.state()).toEqual(before) // forced answers never touch the pets
    },
  )

  it('answers every status a revised spec documents (403 on createPet), and lists them when refusing', async () => {
    const doc = structuredClone(spec().doc)
    doc.paths['/pets'].post.responses['403'] = {
      description: 'Forbidden.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }
    const stub = stubWith({ spec: new Spec(doc) })
    const answer = await send(stub, 'createPet', 'code=403')
    expect(answer.status).toBe(403)
    expect(spec().schema('Error')(answer.body!)).toEqual([])
    expect((answer.body as { status: number }).status).toBe(403)
    const refused = await send(stub, 'createPet', 'code=402')
    expect(refused.status).toBe(400)
    expect((refused.body as { message: string }).message).toMatch(/code=201\|400\|401\|403\|429\|503/)
    // The bundled spec documents no 403: there it is refused.
    expect((await send(stubWith(), 'createPet', 'code=403')).status).toBe(400)
  })

  it('checks credentials first, unless the client asks for the 401 itself', async () => {
    const stub = stubWith()
    expect((await send(stub, 'getPet', 'code=200', {})).status).toBe(401)
    expect((await send(stub, 'getPet', 'code=404', { authorization: 'Bearer wrong' })).status).toBe(401)
    expectSpecValid('getPet', await send(stub, 'getPet', 'code=401', {}), 401)
  })

  it('creates nothing when a create is forced, even a 201', async () => {
    const stub = stubWith()
    const answer = await send(stub, 'createPet', 'code=201')
    expectSpecValid('createPet', answer, 201)
    expect(stub.store.size).toBe(stubWith().store.size)
  })
})

describe('Prefer: example=', () => {
  it.each(OPERATIONS)('%s: answers each named example of the spec exactly, with its status', async (operationId) => {
    const examples = specExamples().of(operationId)
    expect(examples.length).toBeGreaterThan(0)
    for (const example of examples) {
      const answer = await send(stubWith(), operationId, `example=${example.name}`)
      expectSpecValid(operationId, answer, example.status)
      expect(answer.body).toEqual(example.value)
      // code= and example= together must agree.
      expect((await send(stubWith(), operationId, `code=${example.status}, example=${example.name}`)).status).toBe(
        example.status,
      )
    }
  })

  it('refuses an example of another status than code=, and lists what is available', async () => {
    const [first] = specExamples().of('getPet')
    const other = statusesOf('getPet').find((status) => status !== first!.status)!
    const answer = await send(stubWith(), 'getPet', `code=${other}, example=${first!.name}`)
    expect([answer.status, (answer.body as { code: string }).code]).toEqual([400, 'invalid_preference'])
  })
})

describe('Prefer: dynamic=true', () => {
  it.each(OPERATIONS)('%s: generates bodies that the spec accepts, for every status', async (operationId) => {
    let seed = 1
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646 // reproducible
    const stub = stubWith({ random })
    for (const status of statusesOf(operationId)) {
      for (let run = 0; run < 20; run++)
        expectSpecValid(operationId, await send(stub, operationId, `code=${status}, dynamic=true`), status)
    }
  })

  it('generates int64 values beyond 2^53, kept exact', () => {
    const examples = specExamples()
    const schema = spec().doc.components.schemas.Pet
    const values = Array.from(
      { length: 200 },
      () => generate(schema, (node) => examples.resolve(node)) as { id: unknown },
    )
    expect(values.some((value) => typeof value.id === 'bigint')).toBe(true)
    for (const value of values) expect(spec().schema('Pet')(value as never)).toEqual([])
  })

  it('generates strings of the formats a revision may give a property or a header', () => {
    const ajv = new Ajv2020()
    ;(addFormatsModule as unknown as typeof addFormatsModule.default)(ajv)
    for (const format of ['uuid', 'date-time', 'date', 'time', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'byte']) {
      const schema = { type: 'string', format }
      const check = ajv.compile(schema)
      for (let run = 0; run < 20; run++)
        expect([format, check(generate(schema, (node) => node))]).toEqual([format, true])
    }
  })
})

describe('Prefer: delay= and fault=', () => {
  it('delays the real answer, which is still the real one', async () => {
    const stub = stubWith()
    const started = performance.now()
    const answer = await send(stub, 'createPet', 'delay=80')
    expect(performance.now() - started).toBeGreaterThanOrEqual(75)
    expect(answer.status).toBe(201)
    expect(answer.headers['preference-applied']).toBe('delay=80')
    expect(stub.store.size).toBe(stubWith().store.size + 1)
  })

  it.each(['reset', 'empty'])(
    'fault=%s: the request fails as a network error, nothing stored, the journal says no status',
    async (fault) => {
      const stub = stubWith()
      await expect(send(stub, 'createPet', `fault=${fault}`)).rejects.toThrow('fetch failed')
      expect(stub.store.size).toBe(stubWith().store.size)
      expect(stub.requests()[0]).toMatchObject({ status: null, socket: fault, preferenceApplied: `fault=${fault}` })
    },
  )

  it('fault=hang: no answer until the client gives up', async () => {
    const request = new Request('http://stub.test/v1/pets', {
      headers: { ...AUTH, prefer: 'fault=hang' },
      signal: AbortSignal.timeout(50),
    })
    await expect(stubWith().fetch(request)).rejects.toThrow(/aborted|timed out/)
  })

  it('fault=malformed-chunk and fault=trickle break or slow the body of the answer asked for', async () => {
    const broken = await stubWith().fetch(
      new Request('http://stub.test/v1/pets/1', { headers: { ...AUTH, prefer: 'code=404, fault=malformed-chunk' } }),
    )
    expect(broken.status).toBe(404)
    await expect(broken.text()).rejects.toThrow(TypeError)
    const slow = await stubWith().fetch(
      new Request('http://stub.test/v1/pets/1', { headers: { ...AUTH, prefer: 'fault=trickle' } }),
    )
    expect(spec().response('getPet', 200)!(JSON.parse(await slow.text()))).toEqual([])
  })
})

describe('Prefer: bad input', () => {
  it.each([
    ['an unknown preference', 'colour=blue', 'unknown preference "colour"'],
    ['an undocumented status', 'code=500', 'names no status'],
    ['a status that is no number', 'code=abc', 'names no status'],
    ['an unknown example', 'example=nope', 'names no example'],
    ['dynamic neither true nor false', 'dynamic=yes', 'dynamic is true or false'],
    ['a negative delay', 'delay=-1', 'delay is a whole number'],
    ['a delay too long', `delay=${MAX_DELAY_MS + 1}`, 'delay is a whole number'],
    ['an unknown fault', 'fault=explode', 'names no fault'],
  ])('answers %s with 400 invalid_preference listing what is available', async (_title, prefer, why) => {
    const stub = stubWith()
    const answer = await send(stub, 'listPets', prefer)
    expect([answer.status, (answer.body as { code: string }).code]).toEqual([400, 'invalid_preference'])
    const message = (answer.body as { message: string }).message
    expect(message).toContain(why)
    for (const item of [
      'code=200|',
      'example=',
      'dynamic=true|false',
      'delay=0..',
      `fault=${SOCKET_DIRECTIVES.join('|')}`,
    ])
      expect(message).toContain(item)
    expect(answer.headers['preference-applied']).toBeUndefined()
  })

  it("ignores RFC 7240's own preferences and parameters, and takes the first of a repeated one", async () => {
    const stub = stubWith()
    const answer = await send(stub, 'getPet', 'return=minimal, code=404; why="test, really", code=200, respond-async')
    expect(answer.status).toBe(404)
    expect(answer.headers['preference-applied']).toBe('code=404')
    expect((await send(stub, 'listPets', 'return=representation')).status).toBe(200) // nothing applied, the real answer
  })

  it('leaves requests without Prefer exactly as before: the same answer, no Preference-Applied', async () => {
    const answer = await send(stubWith(), 'getPet')
    expect(answer.status).toBe(200)
    expect(answer.headers['preference-applied']).toBeUndefined()
  })
})

describe('global chaos', () => {
  it('--fail-rate 1 answers every request with the failure status and Retry-After, and stores nothing', async () => {
    for (const failStatus of [429, 503] as const) {
      const stub = stubWith({ chaos: { failRate: 1, failStatus } })
      for (const operationId of OPERATIONS) expectSpecValid(operationId, await send(stub, operationId), failStatus)
      expect(stub.store.size).toBe(stubWith().store.size)
      expect((await send(stub, 'listPets')).headers['retry-after']).toBe('1')
    }
  })

  it('fails the share of requests asked for, and an explicit Prefer wins over chaos', async () => {
    const rolls = [0.05, 0.5, 0.09, 0.95]
    const stub = stubWith({ chaos: { failRate: 0.1 }, random: () => rolls.shift() ?? 0.99 })
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await send(stub, 'getPet')).status)
    expect(statuses).toEqual([503, 200, 503, 200])
    expect((await send(stubWith({ chaos: { failRate: 1 } }), 'getPet', 'code=404')).status).toBe(404)
  })

  it('--latency delays every answer by a time within its range; Prefer: delay= overrides it', async () => {
    const stub = stubWith({ chaos: { latencyMs: [60, 100] }, random: () => 0.5 })
    let started = performance.now()
    expect((await send(stub, 'listPets')).status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(75)
    started = performance.now()
    await send(stub, 'listPets', 'delay=0')
    expect(performance.now() - started).toBeLessThan(60)
  })

  it('is off by default: no delay, no failure', async () => {
    const stub = stubWith()
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(stub, 'getPet')))
    expect(answers.every((answer) => answer.status === 200 && answer.headers['retry-after'] === undefined)).toBe(true)
  })
})
