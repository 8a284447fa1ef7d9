/**
 * A revised spec is an input: four revisions of the interface, each applied to a copy of spec/petstore.yaml, are
 * served by the stub and judged by the suite in-process with no code edit. The suite passes the stub serving the
 * revision, its requests carry the revision's new values, and it fails a stub that drops the added property.
 * The expected values below are the revisions' own (what each one changes), not the bundled spec's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { parseDocument, type Document } from 'yaml'
import { runConformance } from '../command/library.js'
import { UsageError } from '../command/usage-error.js'
import { resolveConfig as conformanceConfig } from '../command/conformance/config.js'
import { resolveConfig as stubConfig } from '../command/stub/config.js'
import { bundledSpec, loadSpec, OPERATION_IDS, SPEC_PATH, spec } from '../spec/index.js'
import { createStub } from '../stub/index.js'
import type { RunResult } from '../model/index.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterEach)

const work = mkdtempSync(join(tmpdir(), 'petstore-revisions-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const KEY = 'revision-key'

/** Writes a copy of the bundled spec changed by `change`, and returns its path. */
function revision(name: string, change: (doc: Document) => void): string {
  const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'), { intAsBigInt: true })
  change(doc)
  const path = join(work, `${name}.yaml`)
  writeFileSync(path, doc.toString({ lineWidth: 0 }))
  return path
}

const LIST_LIMIT = ['paths', '/pets', 'get', 'parameters', 0, 'schema']
const SUNSET = ['paths', '/pets/{petId}', 'get', 'x-sunset']

const REVISIONS = {
  reserved: revision('reserved', (doc) =>
    doc.setIn(
      ['components', 'schemas', 'PetStatus', 'enum'],
      doc.createNode(['available', 'pending', 'sold', 'reserved']),
    ),
  ),
  limit: revision('limit', (doc) => {
    doc.setIn([...LIST_LIMIT, 'maximum'], 200)
    doc.setIn([...LIST_LIMIT, 'default'], 25)
  }),
  tag: revision('tag', (doc) =>
    doc.setIn(
      ['components', 'schemas', 'NewPet', 'properties', 'tag'],
      doc.createNode({ type: 'string', maxLength: 64, description: 'A free label.' }),
    ),
  ),
  sunset: revision('sunset', (doc) => doc.setIn(SUNSET, '2031-06-30T00:00:00Z')),
  nameBounds: revision('name-bounds', (doc) => {
    doc.setIn(['components', 'schemas', 'NewPet', 'properties', 'name', 'minLength'], 1)
    doc.setIn(['components', 'schemas', 'NewPet', 'properties', 'name', 'maxLength'], 20)
  }),
  int32Required: revision('int32-required', (doc) => {
    doc.setIn(['components', 'schemas', 'NewPet', 'properties', 'categoryId', 'format'], 'int32')
    doc.setIn(['components', 'schemas', 'NewPet', 'required'], doc.createNode(['name', 'categoryId', 'status']))
  }),
  assigned: revision('assigned', (doc) => {
    const part = ['components', 'schemas', 'Pet', 'allOf', 1]
    doc.setIn(
      [...part, 'properties', 'createdAt'],
      doc.createNode({ type: 'string', format: 'date-time', readOnly: true }),
    )
    doc.setIn([...part, 'required'], doc.createNode(['id', 'createdAt']))
  }),
  deprecations: revision('deprecations', (doc) => {
    for (const key of ['deprecated', 'x-sunset', 'x-successor']) doc.deleteIn(['paths', '/pets/{petId}', 'get', key])
    doc.setIn(['paths', '/pets', 'get', 'deprecated'], true)
    doc.setIn(['paths', '/pets', 'get', 'x-sunset'], '2032-01-01T00:00:00Z')
  }),
  v2: revision('v2', (doc) => {
    doc.setIn(['info', 'version'], '2.0.0')
    const servers = doc.getIn(['servers']) as { items: unknown[] }
    for (let i = 0; i < servers.items.length; i++)
      doc.setIn(['servers', i, 'url'], String(doc.getIn(['servers', i, 'url'])).replace('/v1', '/v2'))
  }),
  error: revision('error', (doc) => {
    const error = ['components', 'schemas', 'Error']
    doc.setIn([...error, 'properties', 'traceId'], doc.createNode({ type: 'string', format: 'uuid' }))
    doc.setIn([...error, 'required'], doc.createNode(['code', 'message', 'status', 'traceId']))
    doc.setIn([...error, 'properties', 'code', 'enum'], doc.createNode(['bad_request', 'unauthorized', 'not_found']))
    doc.setIn([...error, 'properties', 'message', 'maxLength'], 30)
  }),
  closed: revision('closed', (doc) => doc.setIn(['components', 'schemas', 'NewPet', 'additionalProperties'], false)),
  added: revision('added', (doc) => {
    const unauthorized = { $ref: '#/components/responses/Unauthorized' }
    doc.setIn(
      ['paths', '/pets/{petId}', 'delete'],
      doc.createNode({ operationId: 'deletePet', responses: { '204': { description: 'Gone.' }, '401': unauthorized } }),
    )
    doc.setIn(
      ['paths', '/categories'],
      doc.createNode({ get: { operationId: 'listCategories', responses: { '200': { description: 'Names.' } } } }),
    )
  }),
  header: revision('header', (doc) =>
    doc.setIn(
      ['paths', '/pets', 'get', 'responses', '200', 'headers'],
      doc.createNode({
        'X-Total-Count': { required: true, description: 'Pets held.', schema: { type: 'integer', minimum: 0 } },
        'X-Request-Id': {
          required: true,
          description: 'A trace id.',
          schema: { type: 'string', pattern: '^[0-9a-f]{32}$' },
        },
      }),
    ),
  ),
}

interface Sent {
  method: string
  url: string
  body: string
}

/** Runs the suite in-process against `handler`, judged by the revision at `path`, and keeps every request sent. */
async function judge(
  path: string,
  handler: (request: Request) => Promise<Response>,
  options: { checks?: string[]; operations?: ('listPets' | 'createPet' | 'getPet')[] } = {},
): Promise<{ result: RunResult; sent: Sent[] }> {
  const sent: Sent[] = []
  const fetch = async (request: Request) => {
    const body = request.method === 'POST' ? await request.clone().text() : ''
    sent.push({ method: request.method, url: decodeURIComponent(request.url), body })
    return handler(request)
  }
  const result = await runConformance({ fetch, apiKey: KEY, spec: path, runs: 1, seed: 7, concurrency: 16, ...options })
  return { result, sent }
}

const outcomeOf = (result: RunResult, id: string) => result.checks.find((check) => check.id === id)?.outcome
const failing = (result: RunResult) =>
  result.checks.filter((check) => check.outcome === 'failed').map((check) => check.id)

describe('a revision of the interface, served by the stub and judged by the suite with no code edit', () => {
  it('a fourth PetStatus: the suite filters and creates with it, and passes the stub', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.reserved })
    const { result, sent } = await judge(REVISIONS.reserved, stub.fetch)
    expect([failing(result), result.incomplete]).toEqual([[], undefined])
    expect(result.verdict).toBe('conformant')
    expect(sent.some((r) => r.method === 'GET' && /[?&]status=reserved(&|$)/.test(r.url))).toBe(true)
    expect(sent.some((r) => r.method === 'POST' && r.body.includes('"status":"reserved"'))).toBe(true)
    expect(outcomeOf(result, 'listPets.status.filter')).toBe('passed')
  })

  it('limit maximum 200, default 25: the suite fills a page of 200 and judges the default 25', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.limit, seed: false })
    const { result, sent } = await judge(REVISIONS.limit, stub.fetch)
    expect([failing(result), result.incomplete]).toEqual([[], undefined])
    expect(result.verdict).toBe('conformant')
    expect(sent.some((r) => /[?&]limit=200(&|$)/.test(r.url))).toBe(true)
    expect(sent.some((r) => /[?&]limit=201(&|$)/.test(r.url))).toBe(true) // just outside the revised range
    expect(stub.store.size).toBeGreaterThanOrEqual(200) // the list allowance follows the bound: the page was filled
    expect(outcomeOf(result, 'listPets.limit.default')).toBe('passed')
    expect(outcomeOf(result, 'listPets.limit.fills')).toBe('passed')
  })

  it('an optional tag (maxLength 64): sent valid, at its bound and over it; a stub that drops it fails createPet.echo', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.tag })
    const { result, sent } = await judge(REVISIONS.tag, stub.fetch)
    expect([failing(result), result.incomplete]).toEqual([[], undefined])
    expect(result.verdict).toBe('conformant')
    const tags = sent
      .filter((r) => r.method === 'POST')
      .map((r) => /"tag":"([^"]*)"/.exec(r.body)?.[1])
      .filter((tag): tag is string => tag !== undefined)
    expect(tags.some((tag) => tag.length === 64)).toBe(true)
    expect(tags.some((tag) => tag.length === 65)).toBe(true)
    expect(tags.some((tag) => tag.length < 64)).toBe(true)
    // The stub keeps and serves the tag: what the suite sent comes back from getPet.
    const [pet] = stub.snapshot().pets.filter((p) => typeof p.tag === 'string')
    expect(pet).toBeDefined()

    const dropping = createStub({ apiKeys: [KEY], spec: REVISIONS.tag })
    const dropsTag = async (request: Request) => {
      const response = await dropping.fetch(request)
      if (request.method !== 'POST' || response.status !== 201) return response
      const { tag: _dropped, ...rest } = JSON.parse(await response.text()) as Record<string, unknown>
      return new Response(JSON.stringify(rest), { status: 201, headers: response.headers })
    }
    const faulty = await judge(REVISIONS.tag, dropsTag, { checks: ['createPet.echo'] })
    expect(outcomeOf(faulty.result, 'createPet.echo')).toBe('failed')
    expect(faulty.result.verdict).toBe('non-conformant')
  })

  it('name bounded to 1..20 characters: every name of the run fits, both bounds are sent, and a stub taking longer names fails', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.nameBounds })
    const { result, sent } = await judge(REVISIONS.nameBounds, stub.fetch)
    expect([failing(result), result.incomplete]).toEqual([[], undefined])
    expect(result.verdict).toBe('conformant')
    // Every pet the run created carries a name within the bound (labels cut to fit keep the run's prefix).
    const names = stub.snapshot().pets.map((pet) => String(pet.name))
    expect(names.length).toBeGreaterThan(40)
    expect(names.every((name) => [...name].length >= 1 && [...name].length <= 20)).toBe(true)
    const lengths = sent
      .filter((r) => r.method === 'POST')
      .map((r) => /^\{"name":"((?:[^"\\]|\\.)*)"/.exec(r.body)?.[1])
      .filter((name): name is string => name !== undefined)
      .map((name) => [...(JSON.parse(`"${name}"`) as string)].length)
    expect(lengths).toContain(20)
    expect(lengths).toContain(21)
    expect(lengths).toContain(0)
    expect(result.checks.find((check) => check.id === 'createPet.name.long')?.reason).toMatch(/bounds name at 20/)
    // The bundled stub takes any name: judged by the revision, a name of 21 characters must be refused.
    const stale = await judge(REVISIONS.nameBounds, createStub({ apiKeys: [KEY] }).fetch, {
      checks: ['createPet.rejects-invalid'],
    })
    expect(outcomeOf(stale.result, 'createPet.rejects-invalid')).toBe('failed')
  })

  it('categoryId int32 and status required: valid creates stay in int32 and carry a status; 2^31 is refused', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.int32Required })
    const { result, sent } = await judge(REVISIONS.int32Required, stub.fetch)
    expect([failing(result), result.incomplete]).toEqual([[], undefined])
    expect(result.verdict).toBe('conformant')
    const stored = stub.snapshot().pets
    expect(stored.length).toBeGreaterThan(40)
    expect(stored.every((pet) => typeof pet.status === 'string')).toBe(true)
    // Seed pets written without a status are kept, each given one, not dropped.
    const storedIds = new Set(stored.map((pet) => String(pet.id)))
    const statusless = createStub({ apiKeys: [KEY] })
      .snapshot()
      .pets.filter((pet) => pet.status === undefined)
      .map((pet) => String(pet.id))
    expect(statusless.length).toBeGreaterThan(0)
    expect(statusless.filter((id) => !storedIds.has(id))).toEqual([])
    const categoryIds = stored.map((pet) => BigInt(pet.categoryId as number | bigint))
    expect(categoryIds.every((id) => id >= -(2n ** 31n) && id < 2n ** 31n)).toBe(true)
    // So are seed pets whose int64 categoryId int32 refuses: each is given one it takes, the rest of the pet as it was.
    const bundled = createStub({ apiKeys: [KEY] }).snapshot().pets
    const wide = bundled.filter((pet) => BigInt(pet.categoryId as number | bigint) >= 2n ** 31n)
    expect(wide.length).toBeGreaterThan(0)
    for (const pet of wide) {
      const kept = stored.find((s) => s.id === pet.id)
      expect(kept).toMatchObject({ name: pet.name, categoryId: expect.any(Number) })
    }
    expect(sent.some((r) => r.method === 'POST' && r.body.includes(`"categoryId":${2n ** 31n}`))).toBe(true)
    expect(result.checks.find((check) => check.id === 'createPet.status.default')?.reason).toMatch(/requires status/)
  })

  it('a Pet property the service assigns (createdAt, required by Pet only): the stub assigns it, seed pets too', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.assigned })
    const before = Date.now()
    const created = await stub.fetch(
      new Request('http://stub.test/v1/pets', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: '{"name":"Rex","categoryId":1,"createdAt":"1999-01-01T00:00:00Z"}',
      }),
    )
    const pet = (await created.json()) as { createdAt: string }
    expect(created.status).toBe(201)
    expect(Date.parse(pet.createdAt)).toBeGreaterThanOrEqual(before - 1000) // assigned now, not taken from the body
    expect(stub.snapshot().pets.every((p) => typeof p.createdAt === 'string')).toBe(true)
    expect(stub.snapshot().pets.length).toBeGreaterThan(30) // the seed kept, each seed pet given its createdAt
    const { result } = await judge(REVISIONS.assigned, stub.fetch)
    expect([failing(result), result.verdict]).toEqual([[], 'conformant'])
    // A stub that does not assign it breaks the revision's Pet.
    const bare = createStub({ apiKeys: [KEY] })
    const stale = await judge(REVISIONS.assigned, bare.fetch, { checks: ['response.schema'] })
    expect(outcomeOf(stale.result, 'response.schema')).toBe('failed')
  })

  it('getPet no longer deprecated and listPets deprecated instead: the stub moves its headers, and a stub still deprecating getPet is told', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.deprecations })
    const headersOf = async (path: string) =>
      (await stub.fetch(new Request(`http://stub.test/v1${path}`, { headers: { authorization: `Bearer ${KEY}` } })))
        .headers
    const pet = await headersOf('/pets/1')
    expect([pet.get('deprecation'), pet.get('sunset'), pet.get('link')]).toEqual([null, null, null])
    const list = await headersOf('/pets')
    expect(list.get('deprecation')).toMatch(/^@\d+$/)
    expect(list.get('sunset')).toBe('Thu, 01 Jan 2032 00:00:00 GMT')
    const { result } = await judge(REVISIONS.deprecations, stub.fetch)
    expect([failing(result), result.verdict, result.incomplete]).toEqual([[], 'conformant', undefined])
    for (const id of ['getPet.deprecation-header', 'getPet.sunset-header', 'getPet.successor-link'])
      expect(result.checks.find((check) => check.id === id)?.reason).toMatch(/does not deprecate getPet/)
    // The bundled stub still calls getPet deprecated: judged by the revision, that is what the scope check reports.
    const stale = await judge(REVISIONS.deprecations, createStub({ apiKeys: [KEY] }).fetch, {
      checks: ['headers.deprecation-scoped'],
    })
    const scoped = stale.result.checks.find((check) => check.id === 'headers.deprecation-scoped')!
    expect(scoped.outcome).toBe('failed')
    expect(scoped.findings.map((finding) => finding.message).join('\n')).toMatch(/\(getPet, not deprecated\)/)
  })

  it('a removal date of 2031-06-30: the stub announces it and the suite judges Sunset by it', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.sunset })
    const answer = await stub.fetch(
      new Request('http://stub.test/v1/pets/1', { headers: { authorization: `Bearer ${KEY}` } }),
    )
    expect(answer.headers.get('sunset')).toBe('Mon, 30 Jun 2031 00:00:00 GMT')
    const { result } = await judge(REVISIONS.sunset, stub.fetch, { checks: ['getPet.sunset-header'] })
    expect(outcomeOf(result, 'getPet.sunset-header')).toBe('passed')
    // The bundled stub still says 5 December 2030: judged by the revision, that is a finding.
    const bundled = createStub({ apiKeys: [KEY] })
    const stale = await judge(REVISIONS.sunset, bundled.fetch, { checks: ['getPet.sunset-header'] })
    expect(outcomeOf(stale.result, 'getPet.sunset-header')).not.toBe('passed')
    expect(JSON.stringify(stale.result)).toContain('Mon, 30 Jun 2031 00:00:00 GMT')
  })

  it("a deprecation date of the spec's own: the stub sends its Deprecation header's example, never after the removal date", async () => {
    const deprecationOn = async (path: string) => {
      const answer = await createStub({ apiKeys: [KEY], spec: path }).fetch(
        new Request('http://stub.test/v1/pets/1', { headers: { authorization: `Bearer ${KEY}` } }),
      )
      return [answer.headers.get('deprecation'), answer.headers.get('sunset')]
    }
    const dated = revision('deprecation-date', (doc) =>
      doc.setIn(['components', 'headers', 'Deprecation', 'example'], '@1798761600'),
    )
    expect(await deprecationOn(dated)).toEqual(['@1798761600', 'Thu, 05 Dec 2030 00:00:00 GMT'])
    // A removal date before the example's: deprecated no later than removed (RFC 9745 §3), so the suite has no advice.
    const early = revision('early-sunset', (doc) => doc.setIn(SUNSET, '2025-06-01T00:00:00Z'))
    expect(await deprecationOn(early)).toEqual(['@1748736000', 'Sun, 01 Jun 2025 00:00:00 GMT'])
    const { result } = await judge(early, createStub({ apiKeys: [KEY], spec: early }).fetch, {
      checks: ['getPet.sunset-header', 'getPet.deprecation-header'],
    })
    expect(result.checks.map((check) => [check.id, check.outcome])).toEqual([
      ['getPet.deprecation-header', 'passed'],
      ['getPet.sunset-header', 'passed'],
    ])
  })

  it('version 2 under /v2: the stub serves it there, the suite and its embedded stub go there', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.v2 })
    const status = async (path: string) =>
      (await stub.fetch(new Request(`http://stub.test${path}`, { headers: { authorization: `Bearer ${KEY}` } }))).status
    expect([await status('/v2/pets'), await status('/v2/pets/1'), await status('/v1/pets')]).toEqual([200, 200, 404])
    expect(stub.basePath).toBe('/v2')
    const { result, sent } = await judge(REVISIONS.v2, stub.fetch)
    expect([failing(result), result.verdict, result.incomplete]).toEqual([[], 'conformant', undefined])
    expect(sent.every((request) => new URL(request.url).pathname.startsWith('/v2/'))).toBe(true)
    const embedded = await runConformance({ spec: REVISIONS.v2, runs: 1, seed: 7, checks: ['listPets.limit.default'] })
    expect([embedded.target.baseUrl, embedded.verdict]).toEqual(['http://stub.invalid/v2', 'conformant'])
    const running = await start({ stub: { spec: REVISIONS.v2 } })
    try {
      expect(new URL(running.url).pathname).toBe('/v2')
    } finally {
      await running.close()
    }
  })

  it('an Error that requires a traceId, lists its codes and bounds its message: the stub writes its errors so', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.error })
    const call = (path: string, init: RequestInit = {}) => stub.fetch(new Request(`http://stub.test/v1${path}`, init))
    const auth = { authorization: `Bearer ${KEY}` }
    const answers = [
      await call('/pets/999999', { headers: auth }),
      await call('/pets'),
      await call('/pets?limit=0', { headers: auth }),
      await call('/pets', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' }),
    ]
    const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as Record<string, unknown>[]
    expect(answers.map((answer) => answer.status)).toEqual([404, 401, 400, 400])
    expect(bodies.map((body) => body.code)).toEqual(['not_found', 'unauthorized', 'bad_request', 'bad_request'])
    for (const body of bodies) {
      expect(body.traceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect([...(body.message as string)].length).toBeLessThanOrEqual(30)
    }
    const { result } = await judge(REVISIONS.error, stub.fetch)
    expect([failing(result), result.verdict, result.incomplete]).toEqual([[], 'conformant', undefined])
    // The bundled stub writes no traceId: judged by the revision, its errors are not Errors.
    const stale = await judge(REVISIONS.error, createStub({ apiKeys: [KEY] }).fetch, { checks: ['error.body'] })
    expect(outcomeOf(stale.result, 'error.body')).toBe('failed')
  })

  it('required response headers, one with a pattern and no example: the stub sends them and the suite judges them', async () => {
    const stub = createStub({ apiKeys: [KEY], spec: REVISIONS.header })
    const answer = await stub.fetch(
      new Request('http://stub.test/v1/pets', { headers: { authorization: `Bearer ${KEY}` } }),
    )
    expect(answer.headers.get('x-total-count')).toMatch(/^\d+$/)
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/)
    const { result } = await judge(REVISIONS.header, stub.fetch, { checks: ['response.headers'] })
    expect([failing(result), result.verdict]).toEqual([[], 'conformant'])
    // The bundled stub does not send it: judged by the revision, that is a finding.
    const stale = await judge(REVISIONS.header, createStub({ apiKeys: [KEY] }).fetch, { checks: ['response.headers'] })
    expect(outcomeOf(stale.result, 'response.headers')).toBe('failed')
  })

  it('a NewPet closed to undeclared properties: Pet, which takes it in, is read as closed as a whole, and an undeclared field must be refused', async () => {
    // Taken literally, NewPet's additionalProperties refuses Pet's own id: every Pet would be invalid.
    expect(loadSpec(REVISIONS.closed).readings.map((reading) => reading.pointer)).toEqual(['#/components/schemas/Pet'])
    const { result, sent } = await judge(REVISIONS.closed, createStub({ apiKeys: [KEY], spec: REVISIONS.closed }).fetch)
    expect([failing(result), result.incomplete, result.verdict]).toEqual([[], undefined, 'conformant'])
    expect(result.notices).toEqual([expect.stringMatching(/NewPet would refuse "id".*unevaluatedProperties: false/)])
    expect(sent.some((r) => r.method === 'POST' && r.body.includes('"undeclared":"x"'))).toBe(true)
    // No longer a choice the interface leaves open: refused by the spec, so judged by rejects-invalid.
    expect(outcomeOf(result, 'createPet.unknown-field')).toBe('skipped')
    // A stub still taking undeclared fields (the bundled one, whose NewPet is open) fails.
    const stale = await judge(REVISIONS.closed, createStub({ apiKeys: [KEY] }).fetch, {
      checks: ['createPet.rejects-invalid'],
    })
    expect(outcomeOf(stale.result, 'createPet.rejects-invalid')).toBe('failed')
    // The finding says what of the interface the body breaks.
    expect(JSON.stringify(stale.result.checks.find((check) => check.id === 'createPet.rejects-invalid'))).toContain(
      'which #/components/schemas/NewPet does not declare and is closed to',
    )
  })

  it('an operation that is not one of the interface: neither served nor judged, and the reports say so', async () => {
    const { result, sent } = await judge(REVISIONS.added, createStub({ apiKeys: [KEY], spec: REVISIONS.added }).fetch)
    // Documented, so never probed as an undocumented method; DELETE on /pets, which it does not document, still is.
    const deletes = sent.filter((r) => r.method === 'DELETE').map((r) => new URL(r.url).pathname)
    expect([deletes.includes('/v1/pets'), deletes.filter((path) => path.startsWith('/v1/pets/'))]).toEqual([true, []])
    // Before, coverage.documented-statuses failed every service: no scenario could meet listCategories' 200.
    expect([failing(result), result.incomplete, result.verdict]).toEqual([[], undefined, 'conformant'])
    expect(result.notices).toEqual([
      expect.stringMatching(
        /^#\/paths\/~1pets~1\{petId\}\/delete: deletePet \(DELETE \/pets\/\{petId\}\) is not an operation/,
      ),
      expect.stringMatching(
        /^#\/paths\/~1categories\/get: listCategories \(GET \/categories\) is not an operation .* neither serves nor judges it$/,
      ),
    ])
    expect(Object.keys(loadSpec(REVISIONS.added).operations)).toEqual(['listPets', 'createPet', 'getPet'])
  })

  it('the default stays the bundled spec after a revision was used', async () => {
    await judge(REVISIONS.reserved, createStub({ apiKeys: [KEY], spec: REVISIONS.reserved }).fetch, {
      checks: ['listPets.status.filter'],
    })
    const result = await runConformance({
      fetch: createStub({ apiKeys: [KEY] }).fetch,
      apiKey: KEY,
      runs: 1,
      seed: 3,
      checks: ['listPets.status.filter'],
    })
    expect(spec().enumOf('PetStatus')).toEqual(loadSpec(SPEC_PATH).enumOf('PetStatus'))
    expect(result.verdict).toBe('conformant')
  })
})

describe('a spec that is not a revision of this interface', () => {
  it('is refused with one line: an operation missing, no OpenAPI 3.1, a property of the record or the status values gone', async () => {
    const missing = revision('no-get-pet', (doc) => doc.deleteIn(['paths', '/pets/{petId}']))
    const notOpenApi = join(work, 'not-openapi.yaml')
    writeFileSync(notOpenApi, 'swagger: "2.0"\n')
    const noCategory = revision('no-category', (doc) => {
      doc.deleteIn(['components', 'schemas', 'NewPet', 'properties', 'categoryId'])
      doc.setIn(['components', 'schemas', 'NewPet', 'required'], doc.createNode(['name']))
    })
    const noStatus = revision('no-status', (doc) =>
      doc.deleteIn(['components', 'schemas', 'NewPet', 'properties', 'status']),
    )
    const numbered = revision('numbered-status', (doc) =>
      doc.setIn(['components', 'schemas', 'PetStatus'], doc.createNode({ type: 'integer', enum: [0, 1, 2] })),
    )
    expect(() => loadSpec(noCategory)).toThrow(
      /is not a revision of the Pet Store interface: NewPet declares no categoryId$/,
    )
    expect(() => loadSpec(noStatus)).toThrow(/NewPet declares no status$/)
    expect(() => loadSpec(numbered)).toThrow(/PetStatus does not list its values as an enum of strings$/)
    for (const path of [missing, notOpenApi, noCategory, noStatus, numbered]) {
      const refused = runConformance({ fetch: createStub({ apiKeys: [KEY] }).fetch, apiKey: KEY, spec: path })
      await expect(refused).rejects.toBeInstanceOf(UsageError)
      await expect(refused).rejects.toThrow(/^[^\n]+$/)
      expect(() => createStub({ spec: path })).toThrow(/not (a revision of the Pet Store interface|an OpenAPI 3\.1)/)
    }
  })

  it('--spec on both commands: a revision is taken, anything else is one line of UsageError', () => {
    expect(conformanceConfig(['--spec', REVISIONS.reserved], {}).spec.enumOf('PetStatus')).toContain('reserved')
    expect(conformanceConfig(['--spec', REVISIONS.limit], {}).allowances.list).toBe(200 + 3 * 3 + 5)
    expect(stubConfig(['--spec', REVISIONS.tag], {}).spec?.propertiesOf('NewPet')).toHaveProperty('tag')
    const missing = revision('no-list-pets', (doc) => doc.deleteIn(['paths', '/pets', 'get']))
    for (const resolve of [conformanceConfig, stubConfig]) {
      expect(() => resolve(['--spec', missing], {})).toThrow(UsageError)
      expect(() => resolve(['--spec', missing], {})).toThrow(/^--spec: .* has no operation listPets \(GET \/pets\)$/)
      expect(() => resolve(['--spec', join(work, 'absent.yaml')], {})).toThrow(/^--spec: cannot read the spec at /)
    }
    // A limit with no maximum leaves no largest page to fill: refused, not judged wrongly.
    const unbounded = revision('unbounded-limit', (doc) => doc.deleteIn([...LIST_LIMIT, 'maximum']))
    expect(() => conformanceConfig(['--spec', unbounded], {})).toThrow(/listPets' limit needs a minimum and a maximum/)
    // Exclusive bounds are the inclusive ones they mean.
    const exclusive = revision('exclusive-limit', (doc) => {
      for (const bound of ['minimum', 'maximum']) doc.deleteIn([...LIST_LIMIT, bound])
      doc.setIn([...LIST_LIMIT, 'exclusiveMinimum'], 0)
      doc.setIn([...LIST_LIMIT, 'exclusiveMaximum'], 51)
    })
    const { minimum, maximum } = loadSpec(exclusive).parameter('listPets', 'limit')
    expect([minimum, maximum]).toEqual([1, 50])
  })
})

describe('the operations of the interface', () => {
  it('are the ones the kit types (OperationId), pinned to the bundled spec on purpose', () => {
    expect(Object.keys(bundledSpec().operations).sort()).toEqual([...OPERATION_IDS].sort())
  })
})
