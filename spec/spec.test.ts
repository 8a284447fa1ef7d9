import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Validator } from '@seriousme/openapi-schema-validator'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { runProcess } from '../test-support/run-command.js'
import { parseJson, parseSpec, SPEC_PATH, spec, stringifyJson, validationView, versionPrefix } from './index.js'

/** One request/response pair in Specmatic's external example format. */
interface ExternalExample {
  'http-request': { method: string; path: string; headers?: Record<string, string>; body?: any }
  'http-response': { status: number; headers?: Record<string, string>; body: any }
}

describe('spec/petstore.yaml', () => {
  it('validates against the official OpenAPI 3.1 schema', async () => {
    const validator = new Validator()
    const result = await validator.validate(SPEC_PATH)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it("lints clean with Spectral's oas ruleset: no errors, no warnings", async () => {
    // Spectral's CLI run by this Node (its .bin shim is a shell script, or a .cmd on Windows).
    const spectral = createRequire(import.meta.url).resolve('@stoplight/spectral-cli/dist/index.js')
    const args = [spectral, 'lint', SPEC_PATH, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet']
    // Spectral exits non-zero when it finds something; its findings are still the JSON on stdout.
    const { stdout } = await runProcess(process.execPath, args).catch(() => ({ stdout: '' }))
    // A CLI that did not run prints no JSON: that is no clean lint.
    const findings = JSON.parse(stdout) as { severity: number; code: string; message: string }[]
    expect(Array.isArray(findings)).toBe(true)
    // severity 0 = error, 1 = warning
    expect(findings.filter((f) => f.severity <= 1).map((f) => `${f.code}: ${f.message}`)).toEqual([])
  }, 60_000)

  it('describes the interface: version, operations, statuses, limits, deprecation', () => {
    const s = spec()
    expect(s.version).toBe('1.0.0')
    expect(s.statuses('listPets')).toEqual(['200', '401'])
    expect(s.statuses('createPet')).toEqual(['201', '400', '401'])
    expect(s.statuses('getPet')).toEqual(['200', '401', '404'])
    expect(s.parameter('listPets', 'limit')).toMatchObject({ minimum: 1, maximum: 100, default: 20 })
    expect(s.parameter('listPets', 'status').enum).toEqual(['available', 'pending', 'sold'])
    expect(s.operation('getPet').deprecated).toBe(true)
    expect(s.operation('getPet').sunset?.toUTCString()).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
    expect(s.operation('listPets').deprecated).toBe(false)
    for (const op of Object.values(s.doc.paths).flatMap((item: any) => Object.values(item)) as any[]) {
      expect(op.security).toEqual([{ bearerAuth: [] }])
    }
  })
})

describe('the spec as a contract for other tools', () => {
  const s = spec()
  const EXAMPLES_DIR = new URL('./petstore_examples/', import.meta.url)
  const files = readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.json'))
  const external = files.map((file) => ({
    file,
    ...(JSON.parse(readFileSync(new URL(file, EXAMPLES_DIR), 'utf8')) as ExternalExample),
  }))
  const operationOf = (method: string, path: string) =>
    Object.values(s.operations).find(
      (op) => op.method === method && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
    )

  it('shows the /v1 prefix on every server, production and staging with a variable host', () => {
    const servers = s.doc.servers as { url: string; variables?: Record<string, { default: string }> }[]
    for (const server of servers) expect(server.url).toMatch(/\/v1$/)
    expect(servers.slice(0, 2).map((server) => server.variables?.host?.default)).toEqual([
      'api.petstore.invalid',
      'staging.petstore.invalid',
    ])
  })

  it("takes what OpenAPI 3.1 allows in a revision's schemas, and still refuses a misspelt keyword", () => {
    const revised = (change: (doc: ReturnType<typeof parseDocument>) => void) => {
      const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'))
      change(doc)
      return () => parseSpec(doc.toString()).schema('Pet')
    }
    const property = ['components', 'schemas', 'NewPet', 'properties', 'extra']
    const pet = ['components', 'schemas', 'Pet']
    expect(revised((d) => d.setIn(property, d.createNode({ type: 'string', format: 'phone' })))).not.toThrow()
    expect(revised((d) => d.setIn(property, d.createNode({ type: 'string', 'x-internal': true })))).not.toThrow()
    expect(revised((d) => d.setIn([...pet, 'allOf', 1, 'required'], d.createNode(['id', 'status'])))).not.toThrow()
    expect(revised((d) => d.setIn([...pet, 'unevaluatedProperties'], false))).not.toThrow()
    expect(revised((d) => d.setIn(property, d.createNode({ type: 'string', maxLenght: 5 })))).toThrow(/maxLenght/)
  })

  it('gives the version prefix of its first server with a path, absolute or not, a path variable read at its default', () => {
    expect(versionPrefix(spec())).toEqual({ prefix: '/v1', pointer: '#/servers/0/url' })
    const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'))
    doc.setIn(['servers', 0, 'url'], 'https://{host}/{version}/')
    doc.setIn(['servers', 0, 'variables'], doc.createNode({ host: { default: 'a.test' }, version: { default: 'v3' } }))
    expect(versionPrefix(parseSpec(doc.toString()))).toEqual({ prefix: '/v3', pointer: '#/servers/0/url' })
    doc.setIn(['servers'], doc.createNode([{ url: 'https://a.test' }, { url: 'https://b.test/api/v4' }]))
    expect(versionPrefix(parseSpec(doc.toString()))).toEqual({ prefix: '/api/v4', pointer: '#/servers/1/url' })
    // A URL without a scheme, or a path alone (relative to wherever the spec is served).
    doc.setIn(['servers'], doc.createNode([{ url: '/v2/' }]))
    expect(versionPrefix(parseSpec(doc.toString()))).toEqual({ prefix: '/v2', pointer: '#/servers/0/url' })
    doc.setIn(['servers'], doc.createNode([{ url: '/' }, { url: '//b.test/v5' }]))
    expect(versionPrefix(parseSpec(doc.toString()))).toEqual({ prefix: '/v5', pointer: '#/servers/1/url' })
  })

  it("documents exactly the statuses of the interface; the stub's out-of-range answer stays outside the contract", () => {
    expect(s.statuses('listPets')).toEqual(['200', '401'])
    const outside = s.doc.paths['/pets'].get['x-outside-contract']
    expect(outside.stub.status).toBe(400)
    expect(s.schema('Error')(outside.stub.example)).toEqual([])
    for (const op of Object.values(s.operations)) expect(op.silentStatuses).toEqual([])
  })

  it('pairs each inline request example with the response example of the same name, which echoes it', () => {
    for (const op of Object.values(s.operations)) {
      const operation = s.doc.paths[op.path][op.method.toLowerCase()]
      const requestNames = [
        ...Object.values<any>(operation.parameters ?? []).flatMap((p: any) => Object.keys(p.examples ?? {})),
        ...Object.keys(operation.requestBody?.content?.['application/json']?.examples ?? {}),
      ]
      const responses = Object.entries<any>(operation.responses).map(([status, r]) => ({
        status,
        examples: s.resolve<any>(r).content?.['application/json']?.examples ?? {},
      }))
      for (const name of new Set(requestNames)) {
        const paired = responses.filter((r) => name in r.examples)
        expect(
          paired.map((r) => r.status),
          `${op.operationId} ${name}`,
        ).toHaveLength(1)
        const sent = operation.requestBody?.content?.['application/json']?.examples?.[name]?.value
        const answered = paired[0]!.examples[name].value
        // No example implies an undocumented default: the answer shows exactly what was sent, plus the id.
        if (sent)
          expect(
            Object.keys(answered)
              .filter((k) => k !== 'id')
              .sort(),
            `${op.operationId} ${name}`,
          ).toEqual(Object.keys(sent).sort())
      }
    }
  })

  it('has an example pair for every documented status of every operation (inline, or in petstore_examples/)', () => {
    const covered = new Set(
      external.map(
        (e) =>
          `${operationOf(e['http-request'].method, e['http-request'].path)?.operationId} ${e['http-response'].status}`,
      ),
    )
    for (const op of Object.values(s.operations)) {
      const operation = s.doc.paths[op.path][op.method.toLowerCase()]
      const requestNames = new Set([
        ...Object.values<any>(operation.parameters ?? []).flatMap((p: any) => Object.keys(p.examples ?? {})),
        ...Object.keys(operation.requestBody?.content?.['application/json']?.examples ?? {}),
      ])
      for (const [status, r] of Object.entries<any>(operation.responses)) {
        if (
          Object.keys(s.resolve<any>(r).content?.['application/json']?.examples ?? {}).some((name) =>
            requestNames.has(name),
          )
        )
          covered.add(`${op.operationId} ${status}`)
      }
      for (const status of op.statuses)
        expect(covered.has(`${op.operationId} ${status}`), `${op.operationId} ${status}`).toBe(true)
    }
  })

  it('keeps each external example pair valid: a documented operation and status, a body of the documented schema', () => {
    expect(files.length).toBeGreaterThan(0)
    for (const { file, 'http-request': request, 'http-response': response } of external) {
      const op = operationOf(request.method, request.path)
      expect(op, file).toBeDefined()
      expect(op!.statuses, file).toContain(String(response.status))
      expect(s.response(op!.operationId, response.status)!(response.body), file).toEqual([])
      const auth = Object.entries(request.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')
      // A 401 pair carries a wrong key in place of the real one; the others leave the key to the tool.
      expect(auth === undefined, file).toBe(response.status !== 401)
      if (request.body !== undefined && response.status < 300)
        expect(s.schema('NewPet')(request.body), file).toEqual([])
      if (response.status === 400) expect(s.schema('NewPet')(request.body ?? null), file).not.toEqual([])
    }
  })

  it('describes response headers with precise patterns: an sf-date, an IMF-fixdate, link-values', () => {
    const headers = Object.fromEntries(s.responseHeaders('getPet', 200).map((h) => [h.name, h]))
    expect(Object.keys(headers)).toEqual(['Deprecation', 'Sunset', 'Link'])
    expect(headers.Deprecation!.validate('@1764892800')).toEqual([])
    expect(headers.Deprecation!.validate('true')).toEqual(['Deprecation header must match pattern "^@-?[0-9]{1,15}$"'])
    expect(headers.Sunset!.validate('Thu, 05 Dec 2030 00:00:00 GMT')).toEqual([])
    for (const bad of ['YQNUJ', '2030-12-05T00:00:00Z', 'Thu, 5 Dec 2030 00:00:00 GMT'])
      expect(headers.Sunset!.validate(bad)).toHaveLength(1)
    for (const good of [
      '</v1/pets>; rel="successor-version"',
      '</v1/pets>;rel=successor-version, <https://a.example/b>; rel="alternate"; title="a \\"b\\""',
    ]) {
      expect(headers.Link!.validate(good), good).toEqual([])
    }
    for (const bad of ['/v1/pets; rel="successor-version"', '</v1/pets> rel=x', '</v1/pets>; rel="x', ''])
      expect(headers.Link!.validate(bad), bad).toHaveLength(1)
    expect(s.responseHeaders('listPets', 401).map((h) => h.name)).toEqual(['WWW-Authenticate'])
    expect(s.responseHeaders('listPets', 200)).toEqual([])
    expect(s.responseHeaders('listPets', 500)).toEqual([])
  })
})

describe('validators compiled from the spec', () => {
  const s = spec()
  const newPet = s.schema('NewPet')

  it('accepts the extremes of int64 and rejects one beyond', () => {
    expect(newPet(parseJson('{"name":"a","categoryId":9223372036854775807}'))).toEqual([])
    expect(newPet(parseJson('{"name":"a","categoryId":-9223372036854775808}'))).toEqual([])
    expect(newPet(parseJson('{"name":"a","categoryId":9223372036854775808}'))).toEqual([
      'NewPet/categoryId must match format "int64"',
    ])
    expect(newPet(parseJson('{"name":"a","categoryId":-9223372036854775809}'))).toHaveLength(1)
  })

  it('names each broken rule', () => {
    expect(newPet(parseJson('{"categoryId":"1","status":"lost"}'))).toEqual([
      "NewPet must have required property 'name'",
      'NewPet/categoryId must be integer',
      'NewPet/status must be equal to one of the allowed values (available, pending, sold)',
    ])
  })

  it('validates each documented response body by operation and status', () => {
    expect(s.response('listPets', 200)!(parseJson('[{"id":1,"name":"a","categoryId":2}]'))).toEqual([])
    expect(s.response('listPets', 200)!(parseJson('{"pets":[]}'))).toEqual(['listPets 200 body must be array'])
    expect(s.response('getPet', 404)!(parseJson('{"code":"x","message":"y","status":404}'))).toEqual([])
    expect(s.response('createPet', 401)!(parseJson('{"code":"x","message":"y"}'))).toEqual([
      "createPet 401 body must have required property 'status'",
    ])
    expect(s.response('createPet', 201)!(parseJson('{"name":"a","categoryId":1}'))).toEqual([
      "createPet 201 body must have required property 'id'",
    ])
    expect(s.response('getPet', 500)).toBeUndefined()
    expect(s.responseSchemaName('listPets', 200)).toBe('Pets')
  })

  it('names the operation asked for, even for a response component every operation shares', () => {
    const body = parseJson('{"message":"y","status":401}')
    const messages = (['listPets', 'createPet', 'getPet'] as const).map((op) => s.response(op, 401)!(body))
    expect(messages).toEqual([
      ["listPets 401 body must have required property 'code'"],
      ["createPet 401 body must have required property 'code'"],
      ["getPet 401 body must have required property 'code'"],
    ])
  })

  it('parses and writes JSON without losing int64 digits', () => {
    const text = '{"id":9223372036854775807,"categoryId":-9223372036854775808,"n":1.5}'
    expect(stringifyJson(parseJson(text))).toBe(text)
  })

  it('reads an integer written with a fraction or exponent exactly', () => {
    expect(parseJson('9007199254740993.0')).toBe(9007199254740993n)
    expect(parseJson('1e2')).toBe(100)
  })

  it('keeps __proto__ keys as own properties', () => {
    const value = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.keys(value)).toEqual(['__proto__'])
  })
})

describe('validationView', () => {
  it('keeps a __proto__ key as an own property that the schema sees', () => {
    const view = validationView(parseJson('{"__proto__":{"name":1},"categoryId":1}')) as Record<string, unknown>
    expect(Object.getPrototypeOf(view)).toBe(Object.prototype)
    expect(Object.keys(view)).toEqual(['__proto__', 'categoryId'])
    expect((view as { name?: unknown }).name).toBeUndefined()
  })

  it('is the value itself without a bigint, and a copy with every nested bigint as a number otherwise', () => {
    const plain = parseJson('{"name":"Rex","categoryId":1,"tags":[{"id":2}]}')
    expect(validationView(plain)).toBe(plain)
    const big = parseJson('{"name":"Rex","tags":[{"id":9007199254740993},{"id":9223372036854775808}]}')
    expect(validationView(big)).toEqual({ name: 'Rex', tags: [{ id: 9007199254740992 }, { id: 2 ** 64 }] })
    expect((big as { tags: { id: unknown }[] }).tags[1]!.id).toBe(9223372036854775808n) // the value is left as it was
  })
})
