import { describe, expect, it } from 'vitest'
import {
  RFC_REFERENCE,
  RFC_SECTIONS,
  basisFor,
  everyOperation,
  parameterPointer,
  renderBasis,
  resolvePointer,
  type BasisLine,
} from './basis.js'
import { Spec, spec } from './index.js'

const s = spec()
const texts = (lines: BasisLine[]) => lines.map((l) => l.text)

describe('resolvePointer', () => {
  it('names a value of the loaded document, escapes read and $refs followed on the way', () => {
    expect(resolvePointer(s.doc, '#/paths/~1pets/get/parameters/0/schema/maximum')).toEqual({ value: 100 })
    expect(resolvePointer(s.doc, '#/components/schemas/NewPet/required')?.value).toEqual(['name', 'categoryId'])
    // 401 is a $ref to components/responses/Unauthorized.
    expect(resolvePointer(s.doc, '#/paths/~1pets/get/responses/401/description')?.value).toBe(
      s.doc.components.responses.Unauthorized.description,
    )
  })
  it('names nothing for a missing key, an index out of range or a pointer that is no fragment', () => {
    expect(resolvePointer(s.doc, '#/paths/~1pets/delete')).toBeUndefined()
    expect(resolvePointer(s.doc, '#/paths/~1pets/get/parameters/9')).toBeUndefined()
    expect(resolvePointer(s.doc, '/paths')).toBeUndefined()
  })
})

describe('renderBasis', () => {
  it("renders the spec's words at each pointer", () => {
    const lines = renderBasis(s, [
      { spec: '#/paths/~1pets/get/responses' },
      { spec: '#/components/schemas/NewPet/required' },
      { spec: parameterPointer(s, 'listPets', 'limit', 'schema', 'maximum') },
      { spec: parameterPointer(s, 'listPets', 'limit', 'schema', 'default') },
      { spec: '#/paths/~1pets/post/responses/400/description' },
      { spec: '#/components/schemas/Error/properties/status/description' },
      { spec: '#/paths/~1pets/post/requestBody' },
      { rfc: 'RFC 9110 §15.6' },
    ])
    expect(texts(lines)).toEqual([
      'listPets documents 200 and 401',
      'NewPet requires name and categoryId',
      'limit: maximum 100',
      'limit: default 20',
      'createPet 400: Body missing, required fields (`name`, `categoryId`) missing, or values invalid.',
      'Error.status: The HTTP status code, repeated.',
      'createPet request body: NewPet as application/json, required; NewPet requires name and categoryId',
      `RFC 9110 §15.6: ${RFC_SECTIONS['RFC 9110 §15.6']}`,
    ])
    expect(lines[0]).toMatchObject({ ref: '#/paths/~1pets/get/responses', operationId: 'listPets' })
    expect(lines[4]).toMatchObject({ operationId: 'createPet', status: '400' })
  })

  it("renders a request body's media type, examples and anything else in words, never as a dump of the spec", () => {
    const body = '#/paths/~1pets/post/requestBody/content/application~1json'
    const lines = renderBasis(s, [
      { spec: body },
      { spec: `${body}/examples` },
      { spec: `${body}/examples/created` },
      { spec: '#/paths/~1pets/post/requestBody/content' },
      { spec: '#/components/securitySchemes' },
    ])
    expect(texts(lines)).toEqual([
      'createPet request body as application/json: NewPet, which requires name and categoryId',
      'createPet request body: examples created and largeCategory',
      'createPet request body: example created (With a status)',
      'createPet request body: application/json',
      expect.not.stringMatching(/[{}"]/),
    ])
  })
  it('reads a revision of the spec, and says when a pointer names nothing in it', () => {
    const doc = structuredClone(s.doc)
    doc.paths['/pets'].get.parameters[0].schema.maximum = 200
    doc.paths['/pets'].get.responses['429'] = { description: 'Too many requests.' }
    const revised = new Spec(doc)
    expect(
      texts(renderBasis(revised, [{ spec: parameterPointer(revised, 'listPets', 'limit', 'schema', 'maximum') }])),
    ).toEqual(['limit: maximum 200'])
    expect(texts(renderBasis(revised, everyOperation(revised, 'responses')))[0]).toBe(
      'listPets documents 200, 401 and 429',
    )
    expect(texts(renderBasis(s, [{ spec: '#/paths/~1pets/delete' }]))).toEqual([
      '#/paths/~1pets/delete: not in this spec',
    ])
  })
})

describe('RFC references', () => {
  it('are well-formed, each with its line', () => {
    for (const [ref, words] of Object.entries(RFC_SECTIONS)) {
      expect(ref).toMatch(RFC_REFERENCE)
      expect(words.length).toBeGreaterThan(10)
    }
    for (const bad of ['RFC9110 §15.6', 'RFC 9110 15.6', 'rfc 9110 §15.6', 'RFC 9110 §15.', 'RFC 0 §1'])
      expect(bad).not.toMatch(RFC_REFERENCE)
  })
})

describe('basisFor', () => {
  const lines = renderBasis(s, everyOperation(s, 'responses'))
  const byStatus = renderBasis(s, [
    { spec: '#/paths/~1pets/post/responses/201/content' },
    { spec: '#/paths/~1pets/post/responses/400/content' },
    { spec: '#/components/schemas/Error/description' },
  ])
  it("keeps the lines about the finding's operation", () => {
    expect(texts(basisFor(lines, { operationId: 'getPet' }))).toEqual(['getPet documents 200, 401 and 404'])
    expect(basisFor(lines, {})).toHaveLength(3)
  })
  it('and among them those about its status, when one is', () => {
    expect(texts(basisFor(byStatus, { operationId: 'createPet', status: 400 }))).toEqual([
      'createPet 400: application/json',
      'Error: The body of every error response.',
    ])
    // A status no line names: every line of the operation.
    expect(basisFor(byStatus, { operationId: 'createPet', status: 415 })).toHaveLength(3)
  })
})
