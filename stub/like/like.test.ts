import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { createStub } from '../stub.js'
import { readAnswer } from './answer.js'
import { compareObservations } from './fidelity.js'
import { KIT_VERSION, LikeError, readLikeness, type ReportData } from './likeness.js'

const KEY = 'like-key-1'
const auth = { authorization: `Bearer ${KEY}` }

/** A report as a conformance run writes it, with the observations given. */
function report(observations: [string, string, string][], more: Partial<ReportData> = {}): ReportData {
  return {
    tool: { name: 'petstore-conformance', version: KIT_VERSION },
    target: { baseUrl: 'http://service.test/v1' },
    specVersion: spec().version,
    verdict: 'conformant',
    checks: [],
    observations: observations.map(([id, subject, behaviour]) => ({ id, subject, behaviour })),
    ...more,
  }
}

const SERVICE = report([
  ['createPet.status.default', 'POST /pets without status', 'status "pending"'],
  ['createPet.id-scheme', 'ids of the pets this run created, in order', 'descending integers, step 1, beyond 2^53'],
  ['listPets.ordering', 'order of GET /pets?limit=100', 'descending by id'],
  ['listPets.limit.out-of-range', 'GET /pets?limit=0', '200, 1 pet'],
  ['listPets.limit.out-of-range', 'GET /pets?limit=abc', '422 Error (code "INVALID_LIMIT")'],
  ['listPets.status.out-of-range', 'GET /pets?status=lost', '200, 0 pets'],
  ['createPet.unknown-field', 'POST /pets with an undescribed field "nickname"', '201 Pet (id 5) (echoed back)'],
  ['createPet.media-type', 'POST /pets with text/plain', 'text/plain -> 415 Error (code "UNSUPPORTED_MEDIA_TYPE")'],
  ['getPet.invalid-id', 'GET /pets/{petId} with a petId that is not an integer', '400 Error (code "INVALID_ID")'],
  ['methods.undocumented', 'PUT /pets without a key', '401 Error (code "UNAUTHORIZED")'],
  ['methods.undocumented', 'OPTIONS /pets', '200 (Allow: GET, HEAD, POST)'],
  ['paths.variant', 'GET /pets with a trailing slash', '200, 20 pets'],
  ['paths.variant', 'GET /pets in upper case', '404 {"detail":"Not Found"}'],
  [
    'paths.variant',
    'GET /pets/{petId} with its slash percent-encoded without a key',
    '401 Error (code "UNAUTHORIZED")',
  ],
  ['paths.variant', 'GET /pets/{petId} with its slash percent-encoded', '200 Pet (id 1)'],
  ['paths.variant', 'GET /pets with a percent-encoded letter without a key', '404 Error (code "NOT_FOUND")'],
  ['paths.variant', 'GET /pets/{petId} with its digits percent-encoded', '404 Error (code "NOT_FOUND")'],
  ['pet.extra-fields', 'Pet bodies', 'extra fields: createdAt'],
  ['createPet.large-body', 'POST /pets with a valid NewPet of 1 MiB', '1 MiB -> 413 Error (code "TOO_LARGE")'],
])

describe('a size limit seen only on an invalid body', () => {
  it('refuses a body over the limit as the service did, valid or not', async () => {
    const like = readLikeness(
      report([
        [
          'createPet.large-body',
          'POST /pets with an invalid body of 1 MiB',
          '1 MiB -> 413 Error (code "FST_ERR_CTP_BODY_TOO_LARGE")',
        ],
      ]),
      spec(),
    )
    expect(like.traits.tooLarge).toMatchObject({ status: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' })
    const twin = createStub({ apiKeys: [KEY], like })
    const body = JSON.stringify({ name: 'x'.repeat(1024 * 1024), categoryId: 1 })
    const answer = await twin.fetch(
      new Request('http://stub.test/v1/pets', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      }),
    )
    expect([answer.status, ((await answer.json()) as { code: string }).code]).toEqual([
      413,
      'FST_ERR_CTP_BODY_TOO_LARGE',
    ])
  })
})

describe('reading what a report observed', () => {
  it('reads the report’s words for an answer', () => {
    expect(readAnswer('400 Error (code "invalid_limit")')).toEqual({
      status: 400,
      kind: 'error',
      code: 'invalid_limit',
    })
    expect(readAnswer('200, 3 pets (clamped to the maximum?)')).toEqual({ status: 200, kind: 'pets' })
    expect(readAnswer('405 (Allow: GET, POST)')).toEqual({ status: 405, kind: 'bare', allow: 'GET, POST' })
    expect(readAnswer('404 {"detail":"Not Found"}')).toEqual({
      status: 404,
      kind: 'json',
      body: '{"detail":"Not Found"}',
    })
    expect(readAnswer('no answer (timeout)')).toBeUndefined()
  })

  it('refuses, in one line, a report of another kit version, another spec revision, or no report at all', () => {
    const older = { ...SERVICE, tool: { name: 'petstore-conformance', version: '0.9.0' } }
    expect(() => readLikeness(older, spec())).toThrow(LikeError)
    expect(() => readLikeness(older, spec())).toThrow(/0\.9\.0.*run this kit's petstore-conformance/)
    expect(() => readLikeness({ ...SERVICE, specVersion: '0.1.0' }, spec())).toThrow(/version 0\.1\.0 of the interface/)
    expect(() => readLikeness({ hello: 'world' } as never, spec())).toThrow(/not a conformance report/)
    expect(() => readLikeness('/nonexistent/report.json', spec())).toThrow(/cannot read/)
  })

  it('reads a report hand-edited to be hostile without a crash, an escape sequence or a header it could not send', async () => {
    // Values that are no text: one line, as for any file that is no report (they threw a TypeError, exit 1).
    const odd = { toString: 1 } as never
    expect(() => readLikeness({ ...SERVICE, tool: { name: 'petstore-conformance', version: odd } }, spec())).toThrow(
      /names no version/,
    )
    expect(() => readLikeness({ ...SERVICE, specVersion: odd }, spec())).toThrow(/names no version/)
    expect(() => readLikeness({ ...SERVICE, checks: 1 as never }, spec())).toThrow(/checks that are no list/)
    const nulls = readLikeness({ ...SERVICE, checks: [null as never], target: { baseUrl: odd } }, spec())
    expect(nulls.source.baseUrl).toBeUndefined()
    // A name with an escape sequence and a line break: shown escaped, on one line.
    const forged = { ...SERVICE, tool: { name: 'evil\u001b[2J\nLike: all fine', version: KIT_VERSION } }
    expect(() => readLikeness(forged, spec())).toThrow(LikeError)
    try {
      readLikeness(forged, spec())
    } catch (error) {
      expect((error as Error).message).not.toMatch(/[\u0000-\u001f]/)
    }
    // Answers the twin could not give, or that would reach the log as escape sequences: not adopted, named.
    for (const words of ['404 Error (code "a\tb")', '404 Error (code "\u001b[2J")', '405 (Allow: GET\r\nX: y)'])
      expect(readAnswer(words)).toBeUndefined()
    const like = readLikeness(
      report(
        [
          ['listPets.limit.out-of-range', 'GET /pets?limit=0', '100'],
          ['listPets.limit.out-of-range', 'GET /pets?limit=abc', '304 {"a":1}'],
          ['listPets.status.out-of-range', 'GET /pets?status=lost', '404 Error (code "x\u001b[31m\nFORGED")'],
        ],
        { target: { baseUrl: 'http://a\u001b[2J/v1' } },
      ),
      spec(),
    )
    expect(like.traits.queries?.byQuery.size ?? 0).toBe(0)
    const { likenessLines } = await import('./summary.js')
    for (const line of likenessLines(like)) expect(line).not.toMatch(/[\u0000-\u001f\u007f]/)
  })

  it('does not copy what the service fails, says which advice it keeps, and names every observation it cannot read', () => {
    const like = readLikeness(
      {
        ...SERVICE,
        checks: [
          { id: 'response.schema', severity: 'fail', outcome: 'failed' },
          { id: 'getPet.deprecation-header', severity: 'advice', outcome: 'failed' },
        ],
        observations: [
          ...SERVICE.observations,
          { id: 'listPets.limit.out-of-range', subject: 'GET /pets?limit=-1', behaviour: '500 Error (code "boom")' },
          { id: 'some.new-check', subject: 'GET /pets', behaviour: 'something' },
        ],
      },
      spec(),
    )
    const reasons = like.notMimicked.map((n) => `${n.checkId}: ${n.reason}`)
    expect(reasons).toContainEqual(expect.stringMatching(/^response\.schema: the service fails this check/))
    expect(reasons).toContainEqual(expect.stringMatching(/^getPet\.deprecation-header: advice/))
    expect(reasons).toContainEqual(expect.stringMatching(/^listPets\.limit\.out-of-range: 500 is never a reasonable/))
    expect(reasons).toContainEqual(expect.stringMatching(/^some\.new-check: an observation this stub does not know/))
    expect(like.traits.queries?.byQuery.has('limit=-1')).toBe(false)
  })

  it('adopts no order when the same listing came back in different orders, and says so', () => {
    const like = readLikeness(
      report([
        ['listPets.ordering', 'order of GET /pets?limit=100', 'ascending by id (first ids 1, 2, 3)'],
        ['listPets.ordering', 'order of GET /pets?limit=100', 'not ordered by id (first ids 7, 2, 9)'],
      ]),
      spec(),
    )
    expect(like.adopted.map((a) => a.checkId)).not.toContain('listPets.ordering')
    expect(like.notMimicked).toContainEqual(
      expect.objectContaining({
        checkId: 'listPets.ordering',
        reason: "the service's order varied (ascending by id; not ordered by id)",
      }),
    )
  })
})

describe('a twin answers as the service did where the interface is silent', () => {
  const twin = () => createStub({ apiKeys: [KEY], like: SERVICE })
  const call = async (stub: ReturnType<typeof twin>, method: string, path: string, init: RequestInit = {}) => {
    const response = await stub.fetch(new Request(`http://twin.test${path}`, { method, ...init }))
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined }
  }

  it('default status, descending ids from 2^63 - 1, newest first, kept fields and extra ones', async () => {
    const stub = twin()
    const created = await call(stub, 'POST', '/v1/pets', {
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":1,"nickname":"R"}',
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ name: 'Rex', status: 'pending', nickname: 'R' })
    expect(created.text).toMatch(/^\{"id":9223372036854775\d{3},/)
    expect(created.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/)
    const id = /^\{"id":(\d+)/.exec(created.text)![1]
    const read = await call(stub, 'GET', `/v1/pets/${id}`, { headers: auth })
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ name: 'Rex', nickname: 'R' })
    // Descending ids listed in descending order: as the service listed them, the oldest (largest id) first.
    const list = await call(stub, 'GET', '/v1/pets?limit=100', { headers: auth })
    const ids = [...list.text.matchAll(/\{"id":(\d+)/g)].map((m) => BigInt(m[1]!))
    expect(ids.length).toBeGreaterThan(2)
    expect(ids.every((v, i) => i === 0 || v < ids[i - 1]!)).toBe(true)
    expect(ids.at(-1)).toBe(BigInt(id!))
  })

  it('out-of-range queries, media types, ids, methods and paths as the report showed', async () => {
    const stub = twin()
    expect((await call(stub, 'GET', '/v1/pets?limit=0', { headers: auth })).body).toHaveLength(1)
    expect(await call(stub, 'GET', '/v1/pets?limit=abc', { headers: auth })).toMatchObject({
      status: 422,
      body: { code: 'INVALID_LIMIT', status: 422 },
    })
    expect(await call(stub, 'GET', '/v1/pets?status=lost', { headers: auth })).toMatchObject({ status: 200, body: [] })
    // Without a key the documented 401 comes first, in the service's code.
    expect(await call(stub, 'GET', '/v1/pets?limit=abc')).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } })
    const plain = { headers: { ...auth, 'content-type': 'text/plain' }, body: '{"name":"Rex","categoryId":1}' }
    expect(await call(stub, 'POST', '/v1/pets', plain)).toMatchObject({
      status: 415,
      body: { code: 'UNSUPPORTED_MEDIA_TYPE' },
    })
    expect(await call(stub, 'GET', '/v1/pets/abc', { headers: auth })).toMatchObject({
      status: 400,
      body: { code: 'INVALID_ID' },
    })
    expect(await call(stub, 'PUT', '/v1/pets')).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } })
    const options = await call(stub, 'OPTIONS', '/v1/pets', { headers: auth })
    expect([options.status, options.headers.get('allow')]).toEqual([200, 'GET, HEAD, POST'])
    expect((await call(stub, 'GET', '/v1/pets/', { headers: auth })).body).toHaveLength(20)
    expect(await call(stub, 'GET', '/v1/PETS', { headers: auth })).toMatchObject({
      status: 404,
      body: { detail: 'Not Found' },
    })
    // A slash sent as %2F reaches the pet, as it did on the service; without a key, its 401 comes first.
    const listed = await stub.fetch(new Request('http://stub.test/v1/pets?limit=1', { headers: auth }))
    const id = /"id":(\d+)/.exec(await listed.text())![1]! // beyond 2^53: read as written, not as a double
    const pet = await stub.fetch(new Request(`http://stub.test/v1/pets%2F${id}`, { headers: auth }))
    expect([pet.status, /"id":(\d+)/.exec(await pet.text())?.[1]]).toEqual([200, id])
    expect(await call(stub, 'GET', `/v1/pets%2F${id}`)).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHORIZED' },
    })
    // Other letters or digits percent-encoded, which the stub itself decodes: answered as the service did.
    expect(await call(stub, 'GET', '/v1/%70ets')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } })
    expect(await call(stub, 'GET', '/v1/%70ets', { headers: auth })).toMatchObject({ status: 200 })
    const digits = [...id].map((d) => `%3${d}`).join('')
    expect(await call(stub, 'GET', `/v1/pets/${digits}`, { headers: auth })).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    })
    expect(await call(stub, 'GET', `/v1/pets/${digits}`)).toMatchObject({ status: 401 })
    expect(await call(stub, 'GET', '/v1/nothing/here', { headers: auth })).toMatchObject({
      status: 404,
      body: { detail: 'Not Found' },
    })
    // Documented errors keep their status, in the service's style of code.
    expect(
      await call(stub, 'POST', '/v1/pets', { headers: { ...auth, 'content-type': 'application/json' }, body: '{}' }),
    ).toMatchObject({
      status: 400,
      body: { code: 'MISSING_FIELD', status: 400 },
    })
  })

  it('says what it adopted and what it could not mimic at GET /__stub/like; a stub that is no twin answers 404', async () => {
    const like = await call(twin(), 'GET', '/__stub/like')
    expect(like.status).toBe(200)
    expect(like.body.source).toMatchObject({ tool: 'petstore-conformance', baseUrl: 'http://service.test/v1' })
    expect(like.body.adopted).toContainEqual({
      checkId: 'createPet.status.default',
      subject: 'POST /pets without status',
      choice: 'a NewPet without status gets status "pending"',
    })
    expect(like.body.notMimicked.map((n: { checkId: string }) => n.checkId)).toContain('pet.extra-fields')
    expect((await call(createStub(), 'GET', '/__stub/like')).status).toBe(404)
  })
})

describe('comparing a service’s observations with its twin’s', () => {
  it('counts subjects alike with ids and sizes aside, and lists the others', () => {
    const service = report([
      ['listPets.limit.out-of-range', 'GET /pets?limit=0', '200, 20 pets (default page?)'],
      ['createPet.unknown-field', 'POST /pets with an undescribed field "x"', '201 Pet (id 99) (echoed back)'],
      ['listPets.status.out-of-range', 'GET /pets?status=lost', '400 Error (code "bad")'],
      ['methods.undocumented', 'TRACE /pets', '405'],
    ])
    const twin = report([
      ['listPets.limit.out-of-range', 'GET /pets?limit=0', '200, 7 pets'],
      ['createPet.unknown-field', 'POST /pets with an undescribed field "x"', '201 Pet (id 1) (echoed back)'],
      ['listPets.status.out-of-range', 'GET /pets?status=lost', '400 Error (code "invalid_status")'],
    ])
    const fidelity = compareObservations(service, twin)
    expect(fidelity).toMatchObject({ total: 3, alike: 2, unseen: 1 })
    expect(fidelity.differences).toEqual([
      {
        checkId: 'listPets.status.out-of-range',
        subject: 'GET /pets?status=lost',
        service: ['400 Error (code "bad")'],
        twin: ['400 Error (code "invalid_status")'],
      },
    ])
  })
})
