/**
 * A wide set of revisions of the interface, beyond the four of tests/revisions.test.ts: each changes only the spec
 * (an enum, a bound, a format, a required or added property of any JSON Schema shape, a response header, a date).
 * For each, the stub serves it and the suite judges it in-process with no code edit: the correct stub must come out
 * conformant with every check judged, and every property the revision adds must reach the stub's store. In-process,
 * but about 40 runs long, so it runs with `npm run test:e2e`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseDocument, type Document } from 'yaml'
import { runConformance } from '../command/library.js'
import { SPEC_PATH } from '../spec/index.js'
import { createStub } from '../stub/index.js'

const work = mkdtempSync(join(tmpdir(), 'petstore-revisions-wide-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const KEY = 'revision-key'
const NEW_PET = ['components', 'schemas', 'NewPet']
const PROPERTY = [...NEW_PET, 'properties']
const STATUSES = ['components', 'schemas', 'PetStatus', 'enum']
const LIMIT = ['paths', '/pets', 'get', 'parameters', 0, 'schema']
const GET_PET = ['paths', '/pets/{petId}', 'get']

interface Revision {
  change: (doc: Document) => void
  /** Properties it adds to NewPet, which the run must get stored. */
  adds?: string[]
  /** The checks whose premise the revision itself rules out (a page of one pet holds no repeat, no room). */
  ruledOut?: string[]
}

const add = (name: string, schema: object): Revision => ({
  change: (doc) => doc.setIn([...PROPERTY, name], doc.createNode(schema)),
  adds: [name],
})

const REVISIONS: Record<string, Revision> = {
  'an int32 age with bounds': add('age', { type: 'integer', format: 'int32', minimum: 0, maximum: 50 }),
  'an int32 age, unbounded': add('age', { type: 'integer', format: 'int32' }),
  'a boolean': add('vaccinated', { type: 'boolean' }),
  'a number with bounds': add('weight', { type: 'number', minimum: 0, maximum: 500 }),
  'an array of short strings': add('tags', { type: 'array', items: { type: 'string', maxLength: 10 }, maxItems: 5 }),
  'a date': add('birthDate', { type: 'string', format: 'date' }),
  'a uuid': add('chip', { type: 'string', format: 'uuid' }),
  'an inline enumeration': add('size', { type: 'string', enum: ['small', 'medium', 'large'] }),
  'a pattern': add('code', { type: 'string', pattern: '^[A-Z]{3}-[0-9]{2}$' }),
  'an object': add('owner', { type: 'object', properties: { name: { type: 'string' } } }),
  'a nullable string': add('note', { type: ['string', 'null'], maxLength: 20 }),
  'a nullable bounded integer': add('rank', { type: ['integer', 'null'], minimum: 1, maximum: 9 }),
  'an array of objects': add('vets', {
    type: 'array',
    maxItems: 3,
    items: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'integer', format: 'int64' }, note: { type: 'string', maxLength: 5 } },
    },
  }),
  'a required date': {
    change: (doc) => {
      doc.setIn([...PROPERTY, 'birthDate'], doc.createNode({ type: 'string', format: 'date' }))
      doc.setIn([...NEW_PET, 'required'], doc.createNode(['name', 'categoryId', 'birthDate']))
    },
    adds: ['birthDate'],
  },
  'an optional Pet property the service may assign': {
    change: (doc) =>
      doc.setIn(
        ['components', 'schemas', 'Pet', 'allOf', 1, 'properties', 'createdAt'],
        doc.createNode({ type: 'string', format: 'date-time', readOnly: true }),
      ),
  },
  'a required Pet property the service assigns': {
    change: (doc) => {
      const part = ['components', 'schemas', 'Pet', 'allOf', 1]
      doc.setIn([...part, 'properties', 'createdAt'], doc.createNode({ type: 'string', format: 'date-time' }))
      doc.setIn([...part, 'required'], doc.createNode(['id', 'createdAt']))
    },
    adds: ['createdAt'],
  },
  'a status that may be null (anyOf)': {
    change: (doc) =>
      doc.setIn(
        [...PROPERTY, 'status'],
        doc.createNode({ anyOf: [{ $ref: '#/components/schemas/PetStatus' }, { type: 'null' }] }),
      ),
  },
  'a note of a string or null (oneOf)': add('note', { oneOf: [{ type: 'string', maxLength: 20 }, { type: 'null' }] }),
  'a description of at least 200 characters': add('description', { type: 'string', minLength: 200, maxLength: 400 }),
  "a format of the spec's own": add('phone', { type: 'string', format: 'phone', maxLength: 20 }),
  'an extension keyword on a property': add('tag', { type: 'string', maxLength: 10, 'x-internal': true }),
  'status required of every Pet by name only': {
    change: (doc) =>
      doc.setIn(['components', 'schemas', 'Pet', 'allOf', 1, 'required'], doc.createNode(['id', 'status'])),
  },
  'a Pet closed to undeclared properties': {
    change: (doc) => doc.setIn(['components', 'schemas', 'Pet', 'unevaluatedProperties'], false),
  },
  'a NewPet closed to undeclared properties (Pet takes it in)': {
    change: (doc) => doc.setIn([...NEW_PET, 'additionalProperties'], false),
  },
  'statuses no request of a run calls for alone (409, 500, default, a second 2xx, a 400 beside 404)': {
    change: (doc) => {
      const error = {
        description: 'An error.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      }
      doc.setIn(['paths', '/pets', 'post', 'responses', '409'], doc.createNode(error))
      doc.setIn(['paths', '/pets', 'post', 'responses', '200'], doc.createNode({ description: 'Already there.' }))
      doc.setIn(['paths', '/pets', 'get', 'responses', '500'], doc.createNode(error))
      doc.setIn(['paths', '/pets', 'get', 'responses', 'default'], doc.createNode(error))
      doc.setIn([...GET_PET, 'responses', '400'], doc.createNode(error))
    },
  },
  'a Pet closed beside its allOf': {
    change: (doc) => doc.setIn(['components', 'schemas', 'Pet', 'additionalProperties'], false),
  },
  'status required of every Pet, optional in a NewPet': {
    change: (doc) => {
      const part = ['components', 'schemas', 'Pet', 'allOf', 1]
      doc.setIn([...part, 'properties', 'status'], doc.createNode({ $ref: '#/components/schemas/PetStatus' }))
      doc.setIn([...part, 'required'], doc.createNode(['id', 'status']))
    },
  },
  'status required': {
    change: (doc) => doc.setIn([...NEW_PET, 'required'], doc.createNode(['name', 'categoryId', 'status'])),
  },
  'name of 1 to 40 characters': {
    change: (doc) => {
      doc.setIn([...PROPERTY, 'name', 'minLength'], 1)
      doc.setIn([...PROPERTY, 'name', 'maxLength'], 40)
    },
  },
  'name optional': { change: (doc) => doc.setIn([...NEW_PET, 'required'], doc.createNode(['categoryId'])) },
  'name of at least 3 characters': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'minLength'], 3) },
  'name of at most 16 characters': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'maxLength'], 16) },
  'name of at most 30 characters': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'maxLength'], 30) },
  'name with a pattern': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'pattern'], '^[A-Za-z0-9 -]+$') },
  'name of letters and spaces only': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'pattern'], '^[A-Za-z ]+$') },
  'name of capital letters only': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'pattern'], '^[A-Z]+$') },
  'name capitalised': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'pattern'], '^[A-Z][a-z]+$') },
  'name of at most 12 characters': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'maxLength'], 12) },
  'name of at most 8 characters': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'maxLength'], 8) },
  'name of at most 5 characters': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'maxLength'], 5) },
  'name of at most 4 characters': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'maxLength'], 4) },
  'name of at most 3 characters': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'maxLength'], 3) },
  'name of at most 2 characters': { change: (doc) => doc.setIn([...PROPERTY, 'name', 'maxLength'], 2) },
  'categoryId int32': { change: (doc) => doc.setIn([...PROPERTY, 'categoryId', 'format'], 'int32') },
  'categoryId with no format': { change: (doc) => doc.deleteIn([...PROPERTY, 'categoryId', 'format']) },
  'categoryId a uuid': {
    change: (doc) => doc.setIn([...PROPERTY, 'categoryId'], doc.createNode({ type: 'string', format: 'uuid' })),
  },
  'categoryId from 1 to 1000': {
    change: (doc) => {
      doc.setIn([...PROPERTY, 'categoryId', 'minimum'], 1)
      doc.setIn([...PROPERTY, 'categoryId', 'maximum'], 1000)
    },
  },
  'categoryId from 1 to 10': {
    change: (doc) => {
      doc.setIn([...PROPERTY, 'categoryId', 'minimum'], 1)
      doc.setIn([...PROPERTY, 'categoryId', 'maximum'], 10)
    },
  },
  'two statuses': { change: (doc) => doc.setIn(STATUSES, doc.createNode(['available', 'pending'])) },
  'one status': { change: (doc) => doc.setIn(STATUSES, doc.createNode(['available'])) },
  'statuses reordered, one added': {
    change: (doc) => doc.setIn(STATUSES, doc.createNode(['sold', 'pending', 'available', 'adopted'])),
  },
  'a default status': { change: (doc) => doc.setIn(['components', 'schemas', 'PetStatus', 'default'], 'pending') },
  'limit from 5 to 50, default 10': {
    change: (doc) => {
      doc.setIn([...LIMIT, 'minimum'], 5)
      doc.setIn([...LIMIT, 'maximum'], 50)
      doc.setIn([...LIMIT, 'default'], 10)
    },
  },
  'limit with no default': { change: (doc) => doc.deleteIn([...LIMIT, 'default']) },
  'limit from 0': { change: (doc) => doc.setIn([...LIMIT, 'minimum'], 0) },
  'limit from 10 to 100 in steps of 10 (multipleOf)': {
    change: (doc) => {
      doc.setIn([...LIMIT, 'minimum'], 10)
      doc.setIn([...LIMIT, 'multipleOf'], 10)
    },
  },
  'limit with exclusive bounds': {
    change: (doc) => {
      for (const bound of ['minimum', 'maximum']) doc.deleteIn([...LIMIT, bound])
      doc.setIn([...LIMIT, 'exclusiveMinimum'], 0)
      doc.setIn([...LIMIT, 'exclusiveMaximum'], 51)
    },
  },
  'one pet per page': {
    ruledOut: [
      'listPets.unique-in-page',
      'listPets.unfiltered-lists-all',
      'listPets.status-filter',
      'listPets.finds-created',
    ],
    change: (doc) => {
      doc.setIn([...LIMIT, 'maximum'], 1)
      doc.setIn([...LIMIT, 'default'], 1)
    },
  },
  'limit defaulting to its maximum': { change: (doc) => doc.setIn([...LIMIT, 'default'], 100) },
  'a required uuid header on 201': {
    change: (doc) =>
      doc.setIn(
        ['paths', '/pets', 'post', 'responses', '201', 'headers'],
        doc.createNode({ 'X-Request-Id': { required: true, schema: { type: 'string', format: 'uuid' } } }),
      ),
  },
  'a required enumerated header on getPet': {
    change: (doc) =>
      doc.setIn(
        [...GET_PET, 'responses', '200', 'headers', 'X-Cache'],
        doc.createNode({ required: true, schema: { type: 'string', enum: ['HIT', 'MISS'] } }),
      ),
  },
  'listPets deprecated too': {
    change: (doc) => {
      doc.setIn(['paths', '/pets', 'get', 'deprecated'], true)
      doc.setIn(['paths', '/pets', 'get', 'x-sunset'], '2032-01-01T00:00:00Z')
    },
  },
  'getPet no longer deprecated': {
    change: (doc) => {
      for (const key of ['deprecated', 'x-sunset', 'x-successor']) doc.deleteIn([...GET_PET, key])
    },
  },
  'another version': { change: (doc) => doc.setIn(['info', 'version'], '1.1.0') },
  'no removal date': { change: (doc) => doc.deleteIn([...GET_PET, 'x-sunset']) },
  'an earlier removal date': { change: (doc) => doc.setIn([...GET_PET, 'x-sunset'], '2029-01-15T00:00:00Z') },
  'Deprecation as an HTTP-date (an earlier draft of RFC 9745)': {
    change: (doc) =>
      doc.setIn(
        ['components', 'headers', 'Deprecation'],
        doc.createNode({
          description: 'When the operation was deprecated, an HTTP-date.',
          schema: {
            type: 'string',
            pattern:
              '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$',
          },
          example: 'Fri, 05 Dec 2025 00:00:00 GMT',
        }),
      ),
  },
  'Deprecation: true (an earlier draft of RFC 9745)': {
    change: (doc) =>
      doc.setIn(
        ['components', 'headers', 'Deprecation'],
        doc.createNode({ schema: { type: 'string', enum: ['true'] }, example: 'true' }),
      ),
  },
  'a write-only property (validated, never shown)': {
    change: (doc) =>
      doc.setIn([...PROPERTY, 'microchipSecret'], doc.createNode({ type: 'string', maxLength: 32, writeOnly: true })),
  },
  'a server URL that is a path alone': {
    change: (doc) =>
      doc.setIn(['servers'], doc.createNode([{ url: '/v2', description: 'Wherever the spec is served.' }])),
  },
}

function revision(name: string, change: (doc: Document) => void): string {
  const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'), { intAsBigInt: true })
  change(doc)
  const path = join(work, `${name.replace(/\W+/g, '-')}.yaml`)
  writeFileSync(path, doc.toString({ lineWidth: 0 }))
  return path
}

describe('revisions beyond the four of the issue: the stub serving each is conformant, every check judged', () => {
  it.each(Object.entries(REVISIONS))('%s', async (name, { change, adds = [], ruledOut = [] }) => {
    const path = revision(name, change)
    const stub = createStub({ apiKeys: [KEY], spec: path })
    const result = await runConformance({
      fetch: stub.fetch,
      apiKey: KEY,
      spec: path,
      runs: 1,
      seed: 7,
      concurrency: 16,
    })
    const notPassed = result.checks
      .filter((check) => check.outcome !== 'passed' && check.outcome !== 'skipped')
      .map((check) => `${check.id}: ${check.outcome} ${check.reason ?? ''}`)
    expect([result.verdict, notPassed, result.incomplete]).toEqual(['conformant', [], undefined])
    // Skips say why, and none is for a premise the correct stub could have given.
    for (const check of result.checks.filter((c) => c.outcome === 'skipped' && !ruledOut.includes(c.id)))
      expect(check.reason).toMatch(
        /not applicable|nothing to judge|no pets of its own|gave it nothing|no empty result to judge$|names no removal date|documents Deprecation in another form|every filtered page is full|has no room to show every pet$/,
      )
    const stored = new Set(stub.snapshot().pets.flatMap((pet) => Object.keys(pet)))
    for (const property of adds) expect([property, stored.has(property)]).toEqual([property, true])
  })
})
