import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseDocument, type Document } from 'yaml'
import { readClosedCompositions } from './closed.js'
import { parseSpec, SPEC_PATH } from './index.js'

const SCHEMAS = ['components', 'schemas']
const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' }

/** The bundled spec changed by `change`, parsed as the kit parses a revision. */
function revised(change: (doc: Document) => void) {
  const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'))
  change(doc)
  return parseSpec(doc.toString())
}

describe('a composition closed against itself', () => {
  it('is none in the bundled spec, which is left as it is', () => {
    const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8')).toJS()
    const read = readClosedCompositions(doc)
    expect(read.readings).toEqual([])
    expect(read.doc).toBe(doc)
  })

  it('a Pet closed beside its allOf: read as closed as a whole, so a pet is valid and an undeclared field is not', () => {
    const spec = revised((doc) => doc.setIn([...SCHEMAS, 'Pet', 'additionalProperties'], false))
    expect(spec.readings).toEqual([
      {
        pointer: '#/components/schemas/Pet',
        text: '#/components/schemas/Pet: additionalProperties: false at #/components/schemas/Pet would refuse "name", "categoryId", "status" and "id", which Pet declares; read as closing the whole of Pet (unevaluatedProperties: false)',
      },
    ])
    expect(spec.schema('Pet')(PET)).toEqual([])
    expect(spec.schema('Pet')({ ...PET, extra: 1 })).toEqual(['Pet must NOT have unevaluated properties'])
    expect(spec.response('getPet', 200)!({ ...PET, extra: 1 })).not.toEqual([])
    expect(spec.response('listPets', 200)!([PET])).toEqual([])
    // The document as written is what the rest of the kit reads.
    expect(spec.doc.components.schemas.Pet.additionalProperties).toBe(false)
  })

  it('a closed NewPet inside Pet: Pet is read as closed as a whole; NewPet alone still refuses an undeclared field', () => {
    const spec = revised((doc) => doc.setIn([...SCHEMAS, 'NewPet', 'additionalProperties'], false))
    expect(spec.readings.map((reading) => reading.text)).toEqual([
      expect.stringContaining('at #/components/schemas/NewPet would refuse "id", which Pet declares'),
    ])
    expect(spec.schema('Pet')(PET)).toEqual([])
    expect(spec.schema('Pet')({ ...PET, extra: 1 })).not.toEqual([])
    expect(spec.schema('NewPet')({ name: 'Rex', categoryId: 1, extra: 1 })).toEqual([
      'NewPet must NOT have additional properties',
    ])
    expect(spec.schema('NewPet')({ name: 'Rex', categoryId: 1 })).toEqual([])
  })

  it('is none where the closing schema declares every property, a pattern takes them, or unevaluatedProperties closes it', () => {
    const everyProperty = revised((doc) => {
      doc.setIn([...SCHEMAS, 'Pet', 'additionalProperties'], false)
      for (const name of ['id', 'name', 'categoryId', 'status'])
        doc.setIn([...SCHEMAS, 'Pet', 'properties', name], true)
    })
    const patterns = revised((doc) => {
      doc.setIn([...SCHEMAS, 'Pet', 'additionalProperties'], false)
      doc.setIn([...SCHEMAS, 'Pet', 'patternProperties'], doc.createNode({ '^[a-zA-Z]+$': true }))
    })
    const unevaluated = revised((doc) => doc.setIn([...SCHEMAS, 'Pet', 'unevaluatedProperties'], false))
    for (const spec of [everyProperty, patterns, unevaluated]) {
      expect(spec.readings).toEqual([])
      expect(spec.schema('Pet')(PET)).toEqual([])
    }
    expect(unevaluated.schema('Pet')({ ...PET, extra: 1 })).not.toEqual([])
  })

  it('follows a cycle of allOf references without looping', () => {
    const doc = {
      components: {
        schemas: {
          A: { allOf: [{ $ref: '#/components/schemas/B' }], additionalProperties: false },
          B: { allOf: [{ $ref: '#/components/schemas/A' }], properties: { b: {} }, required: ['b'] },
        },
      },
    }
    const { readings } = readClosedCompositions(doc)
    // Each takes in the other, so A's additionalProperties refuses B's "b" in both.
    expect(readings.map((reading) => reading.pointer)).toEqual(['#/components/schemas/A', '#/components/schemas/B'])
  })
})
