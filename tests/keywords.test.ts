/**
 * Teeth that do not depend on the seed: a revision adds properties whose rules go beyond the JSON type (a date, an
 * array bounded and unique, a nullable pattern, a closed nested object, an exclusive minimum and a multipleOf, a
 * nested array of objects). The stub serving it passes with every check judged; a stub lenient on exactly one of its
 * keywords (the stub serving a copy without that keyword) is caught on every seed tried, the finding naming the
 * keyword's pointer; a service storing what a refused body held before its trailing data is caught too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseDocument, type Document } from 'yaml'
import { runConformance } from '../command/library.js'
import type { RunResult } from '../model/index.js'
import { loadSpec, SPEC_PATH } from '../spec/index.js'
import { createStub } from '../stub/index.js'
import { skippedForState } from '../test-support/premises.js'

const work = mkdtempSync(join(tmpdir(), 'petstore-keywords-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const KEY = 'keywords-key'
const SEEDS = [1380555682, 1, 42, 20301205, 777]
const NEW_PET = ['components', 'schemas', 'NewPet', 'properties']

/** The bundled spec with the revision's properties added to NewPet, each keyword listed in `without` left out. */
function revision(name: string, without: (string | number)[][] = []): string {
  const doc: Document = parseDocument(readFileSync(SPEC_PATH, 'utf8'), { intAsBigInt: true })
  const add = (property: string, schema: object) => doc.setIn([...NEW_PET, property], doc.createNode(schema))
  add('birthDate', { type: 'string', format: 'date' })
  add('tags', { type: 'array', maxItems: 5, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 20 } })
  add('microchip', { type: ['string', 'null'], pattern: '^[0-9]{15}$' })
  add('owner', {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: { name: { type: 'string', minLength: 1, maxLength: 40 }, email: { type: 'string', format: 'email' } },
  })
  add('weight', { type: 'integer', exclusiveMinimum: 0, maximum: 1000, multipleOf: 5 })
  add('vets', {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'integer', format: 'int32', minimum: 1 },
        since: { type: 'string', format: 'date-time' },
      },
    },
  })
  for (const path of without) doc.deleteIn([...NEW_PET, ...path])
  const file = join(work, `${name}.yaml`)
  writeFileSync(file, doc.toString({ lineWidth: 0 }))
  return file
}

// Loaded once: each run reuses its compiled validators and its walked edge cases.
const REVISION = loadSpec(revision('revision'))

/** Each keyword of the revision, by its place under NewPet's properties. */
const KEYWORDS: (string | number)[][] = [
  ['birthDate', 'format'],
  ['tags', 'maxItems'],
  ['tags', 'uniqueItems'],
  ['tags', 'items', 'minLength'],
  ['tags', 'items', 'maxLength'],
  ['microchip', 'pattern'],
  ['owner', 'additionalProperties'],
  ['owner', 'required'],
  ['owner', 'properties', 'name', 'maxLength'],
  ['owner', 'properties', 'email', 'format'],
  ['weight', 'exclusiveMinimum'],
  ['weight', 'multipleOf'],
  ['vets', 'minItems'],
  ['vets', 'items', 'required'],
  ['vets', 'items', 'properties', 'id', 'minimum'],
]

const failing = (result: RunResult) =>
  result.checks.filter((check) => check.outcome === 'failed').map((check) => check.id)
// The seeded stub holds pets of every status, so no listing can be empty: that one premise is said, not judged.
const notPassed = (result: RunResult) =>
  result.checks
    .filter((check) => check.outcome !== 'passed' && !skippedForState(check))
    .map((check) => `${check.id} ${check.outcome}`)

describe('a revision whose NewPet has rules beyond the JSON type', () => {
  it('is served conformantly by the stub: every check judged, and both sides of each rule sent', async () => {
    const sent: string[] = []
    const stub = createStub({ apiKeys: [KEY], spec: REVISION })
    const fetch = async (request: Request) => {
      if (request.method === 'POST') sent.push(await request.clone().text())
      return stub.fetch(request)
    }
    const result = await runConformance({ fetch, apiKey: KEY, spec: REVISION, runs: 2, seed: SEEDS[0] })
    expect([failing(result), notPassed(result), result.incomplete, result.verdict]).toEqual([
      [],
      [],
      undefined,
      'conformant',
    ])
    for (const value of ['"birthDate":"2023-02-29"', '"birthDate":"2024-02-29"', '"microchip":null', '"email":"x"'])
      expect(
        sent.some((body) => body.includes(value)),
        value,
      ).toBe(true)
    expect(sent.some((body) => /"tags":\[("[^"]*",){5}"[^"]*"\]/.test(body))).toBe(true) // six tags
  })

  for (const keyword of KEYWORDS) {
    const pointer = `#/components/schemas/NewPet/properties/${keyword.join('/')}`
    it(`catches a service lenient on ${pointer} alone, on every seed, the finding naming it`, async () => {
      const lenient = loadSpec(revision(`without-${keyword.join('-')}`, [keyword]))
      for (const seed of SEEDS) {
        const stub = createStub({ apiKeys: [KEY], spec: lenient })
        const result = await runConformance({
          fetch: stub.fetch,
          apiKey: KEY,
          spec: REVISION,
          runs: 1,
          seed,
          checks: ['createPet.rejects-invalid'],
        })
        const check = result.checks.find((c) => c.id === 'createPet.rejects-invalid')!
        expect([seed, check.outcome, result.verdict]).toEqual([seed, 'failed', 'non-conformant'])
        expect(check.findings.map((finding) => finding.message).join('\n')).toContain(pointer)
      }
    })
  }
})

describe('a body with data after its JSON value', () => {
  it('refused with 400 but stored all the same: caught by createPet.invalid-stores-nothing on every seed', async () => {
    for (const seed of SEEDS) {
      const stub = createStub({ apiKeys: [KEY], fault: 'trailing-data-stored' })
      const result = await runConformance({ fetch: stub.fetch, apiKey: KEY, runs: 1, seed })
      expect([seed, failing(result)]).toEqual([seed, ['createPet.invalid-stores-nothing']])
    }
  })
})
