import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { Validator } from '@seriousme/openapi-schema-validator'
import { describe, expect, it } from 'vitest'
import { parseJson, SPEC_PATH, spec, stringifyJson, validationView } from './index.js'

const run = promisify(execFile)

describe('spec/petstore.yaml', () => {
  it('validates against the official OpenAPI 3.1 schema', async () => {
    const validator = new Validator()
    const result = await validator.validate(SPEC_PATH)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it("lints clean with Spectral's oas ruleset: no errors, no warnings", async () => {
    const spectral = new URL('../node_modules/.bin/spectral', import.meta.url).pathname
    const { stdout } = await run(spectral, ['lint', SPEC_PATH, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'], {
      cwd: new URL('..', import.meta.url).pathname,
    }).catch((error: { stdout: string }) => error) // spectral exits non-zero when it finds something
    const findings = JSON.parse(stdout || '[]') as { severity: number; code: string; message: string }[]
    // severity 0 = error, 1 = warning
    expect(findings.filter((f) => f.severity <= 1).map((f) => `${f.code}: ${f.message}`)).toEqual([])
  }, 60_000)

  it('describes the interface: version, operations, statuses, limits, deprecation', () => {
    const s = spec()
    expect(s.version).toBe('1.0.0')
    expect(s.statuses('listPets')).toEqual(['200', '400', '401'])
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

describe('validators compiled from the spec', () => {
  const s = spec()
  const newPet = s.schema('NewPet')

  it('accepts the extremes of int64 and rejects one beyond', () => {
    expect(newPet(parseJson('{"name":"a","categoryId":9223372036854775807}'))).toEqual([])
    expect(newPet(parseJson('{"name":"a","categoryId":-9223372036854775808}'))).toEqual([])
    expect(newPet(parseJson('{"name":"a","categoryId":9223372036854775808}'))).toEqual(['NewPet/categoryId must match format "int64"'])
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
})
