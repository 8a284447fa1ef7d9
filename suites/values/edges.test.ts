import { describe, expect, it } from 'vitest'
import { Spec, spec, stringifyJson } from '../../spec/index.js'
import { bodyEdges, queryEdges } from './index.js'

const s = spec()

/** The value a JSON pointer into the spec names, or undefined. */
const at = (doc: object, pointer: string) =>
  pointer
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc)

/** The bundled spec with `properties` added to NewPet. */
function revised(properties: Record<string, object>): Spec {
  const doc = structuredClone(s.doc)
  Object.assign(doc.components.schemas.NewPet.properties, properties)
  return new Spec(doc)
}

describe('the values at each keyword edge of NewPet', () => {
  it('are each judged by the spec as the case says, and name a keyword the spec has where it says', () => {
    for (const judged of [s, revised({ tags: { type: 'array', maxItems: 2, items: { type: 'string' } } })]) {
      const validate = judged.schema('NewPet')
      const cases = bodyEdges(judged)
      expect(cases.length).toBeGreaterThan(10)
      for (const edge of cases) {
        expect(validate(edge.body).length === 0, edge.why).toBe(edge.expect === 'ok')
        expect(at(judged.doc, edge.pointer), edge.pointer).toBeDefined()
        expect(edge.pointer.endsWith(`/${edge.keyword}`)).toBe(true)
        expect(edge.why).toContain(edge.pointer)
      }
    }
  })

  it('reach both sides of int64, each enum value, and a value outside it, on the bundled spec', () => {
    const values = bodyEdges(s)
      .filter((edge) => edge.at !== '')
      .map((edge) => `${edge.expect} ${edge.at} ${stringifyJson(edge.body[edge.at.slice(1)] ?? null)}`)
    expect(values).toEqual(
      expect.arrayContaining([
        'ok /categoryId 9223372036854775807',
        'refused /categoryId 9223372036854775808',
        'ok /categoryId -9223372036854775808',
        'refused /categoryId -9223372036854775809',
        'ok /status "pending"',
        'refused /status "AVAILABLE"',
      ]),
    )
  })

  it('come from the keywords, not the names: the same rules under another name give the same values', () => {
    const rules = {
      type: 'object',
      additionalProperties: false,
      properties: {
        born: { type: 'string', format: 'date' },
        chips: {
          type: 'array',
          maxItems: 3,
          uniqueItems: true,
          items: { type: ['string', 'null'], pattern: '^[0-9]{4}$' },
        },
        weight: { type: 'integer', exclusiveMinimum: 0, multipleOf: 5, maximum: 100 },
      },
    }
    const shape = (name: string) =>
      bodyEdges(revised({ [name]: rules }))
        .filter((edge) => edge.at.startsWith(`/${name}`))
        .map(
          (edge) =>
            `${edge.expect} ${edge.keyword} ${edge.at.slice(name.length + 1)} ${stringifyJson(at(edge.body, `#${edge.at}`) as never)}`,
        )
    const a = shape('owner')
    expect(a).toEqual(shape('zzz'))
    expect(a).toEqual(
      expect.arrayContaining([
        'ok format /born "2024-02-29"',
        'refused format /born "2023-02-29"',
        'refused format /born "2023-13-01"',
      ]),
    )
    const keywords = new Set(a.map((line) => line.split(' ')[1]))
    for (const keyword of [
      'type',
      'format',
      'maxItems',
      'uniqueItems',
      'pattern',
      'exclusiveMinimum',
      'multipleOf',
      'maximum',
      'additionalProperties',
    ])
      expect(keywords.has(keyword), keyword).toBe(true)
  })
})

describe('the values at the edges of a query parameter', () => {
  it('are each bound of limit and each status value, all inside the documented range', () => {
    const { minimum, maximum } = s.parameter('listPets', 'limit')
    expect(queryEdges(s, 'listPets').map(({ name, value }) => `${name}=${value}`)).toEqual([
      `limit=${minimum}`,
      `limit=${maximum}`,
      ...s.enumOf('PetStatus').map((status) => `status=${status}`),
    ])
  })
})
