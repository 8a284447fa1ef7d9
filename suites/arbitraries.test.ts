import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseJson, Spec, spec } from '../spec/index.js'
import {
  asJson,
  categoryId,
  categoryIdEdges,
  codePoint,
  fitNewPet,
  integerBounds,
  invalidBody,
  runPrefix,
  invalidNumbers,
  labelOf,
  leewayNumbers,
  listLimit,
  malformedJson,
  markLabel,
  newPet,
  oddLimits,
  oddStatuses,
  outOfRangeLimits,
  renderInvalid,
} from './arbitraries.js'
import { queryOutsideRange } from './checks/util.js'

const s = spec()
const validNewPet = s.schema('NewPet')

describe('arbitraries built from the spec', () => {
  it('make NewPets that validate, named with the prefix', () => {
    fc.assert(
      fc.property(newPet(s, 'pcs-test-'), (pet) => {
        expect(validNewPet(asJson(pet))).toEqual([])
        expect(String(pet[labelOf(s)]).startsWith('pcs-test-')).toBe(true)
      }),
      { numRuns: 300, seed: 1 },
    )
  })
  it('reach both ends of int64 and every status, and omit status sometimes', () => {
    const ids = fc.sample(categoryId(s), { numRuns: 500, seed: 2 })
    expect(ids).toContain(2n ** 63n - 1n)
    expect(ids).toContain(-(2n ** 63n))
    const pets = fc.sample(newPet(s, ''), { numRuns: 300, seed: 3 })
    expect(new Set(pets.map((p) => p.status))).toEqual(new Set([undefined, ...s.enumOf('PetStatus')]))
  })
  it('make invalid bodies that never validate, whatever the marker', () => {
    fc.assert(
      fc.property(invalidBody(s), (invalid) => {
        const text = renderInvalid(invalid, 'pcs-x-bad-0-', s)
        if (text === undefined) return // no body at all
        let value
        try {
          value = parseJson(text)
        } catch {
          return // not JSON: invalid by construction
        }
        expect(validNewPet(value), `${invalid.why}: ${text}`).not.toEqual([])
      }),
      { numRuns: 500, seed: 4 },
    )
  })
  it('keep limits inside the documented range and list the ones outside it', () => {
    const { minimum, maximum } = s.parameter('listPets', 'limit')
    for (const limit of fc.sample(listLimit(s), { numRuns: 200, seed: 5 })) {
      expect(limit).toBeGreaterThanOrEqual(Number(minimum))
      expect(limit).toBeLessThanOrEqual(Number(maximum))
    }
    expect(outOfRangeLimits(s)).toEqual(expect.arrayContaining(['0', '101']))
  })
  it('keep limits to the multiples of a multipleOf', () => {
    const doc = structuredClone(s.doc)
    Object.assign(doc.paths['/pets'].get.parameters[0].schema, { minimum: 10, multipleOf: 10 })
    const limits = fc.sample(listLimit(new Spec(doc)), { numRuns: 200, seed: 6 })
    expect(limits.every((limit) => limit % 10 === 0 && limit >= 10 && limit <= 100)).toBe(true)
    expect(new Set(limits).size).toBeGreaterThan(5)
  })
})

describe('one code point', () => {
  it('reaches every plane, is never a lone surrogate, and unmaps what it made', () => {
    const seen = fc.sample(codePoint, { numRuns: 5000, seed: 7 })
    expect(seen.every((c) => [...c].length === 1 && !/[\uD800-\uDFFF]/u.test(c))).toBe(true)
    expect(seen.some((c) => c.codePointAt(0)! > 0xffff)).toBe(true)
    expect(seen.some((c) => c.codePointAt(0)! < 0x80)).toBe(true)
    for (const c of ['\u0000', '\ud7ff', '\ue000', '🐈', '\u{10ffff}'])
      expect(codePoint.canShrinkWithoutContext(c)).toBe(true)
    for (const c of ['\ud800', 'ab', '', 7]) expect(codePoint.canShrinkWithoutContext(c)).toBe(false)
  })
})

describe('wider probes built from the spec', () => {
  const body = (categoryId: string) => `{"name":"pcs-x-Rex","categoryId":${categoryId}}`
  /** The NewPet a text is, or undefined when it is no JSON at all. */
  const read = (text: string) => {
    try {
      return parseJson(text)
    } catch {
      return undefined
    }
  }

  it('puts categoryId at the int64 edges, every one a valid NewPet', () => {
    const edges = categoryIdEdges(s)
    expect(edges).toContain(2n ** 53n)
    expect(edges).toContain(2n ** 63n - 2n)
    for (const id of edges) expect(validNewPet(asJson({ name: 'x', categoryId: id }))).toEqual([])
  })
  it('writes invalid categoryIds that no reading accepts: no JSON, or a NewPet the schema refuses', () => {
    for (const { why, text } of invalidNumbers(s)) {
      const value = read(body(text))
      if (value !== undefined) expect(validNewPet(value), why).not.toEqual([])
    }
  })
  it('writes integers with a fraction or an exponent that read as the integer they say, within int64', () => {
    for (const { why, text, value } of leewayNumbers(s)) {
      const pet = read(body(text)) as { categoryId: unknown }
      expect(BigInt(pet.categoryId as number | bigint), why).toBe(value)
      expect(validNewPet(asJson({ name: 'x', categoryId: value })), why).toEqual([])
    }
  })
  it('shapes JSON that is never one NewPet', () => {
    for (const { why, render } of malformedJson()) {
      const value = read(render(body('1')))
      if (value !== undefined) expect(validNewPet(value), why).not.toEqual([])
    }
  })
  it('writes limit and status values outside the documented ones', () => {
    const url = (name: string, value: string) => `http://x.invalid/v1/pets?${name}=${encodeURIComponent(value)}`
    for (const limit of oddLimits(s))
      expect(queryOutsideRange(s, 'listPets', url('limit', limit)), limit).toEqual(['limit'])
    for (const status of oddStatuses(s))
      expect(queryOutsideRange(s, 'listPets', url('status', status)), status).toEqual(['status'])
  })
})

describe('hand-written bodies under a revision that bounds the label or requires more', () => {
  const doc = structuredClone(s.doc)
  doc.components.schemas.NewPet.properties.name = { type: 'string', minLength: 2, maxLength: 20 }
  doc.components.schemas.NewPet.required = ['name', 'categoryId', 'status']
  const revised = new Spec(doc)
  const valid = revised.schema('NewPet')

  it('fits a label past maxLength: the prefix kept, distinct labels still distinct, and required fields filled', () => {
    const a = fitNewPet(revised, { name: 'pcs-abc-media-t0-as application/json', categoryId: 1n }, 'pcs-abc-')
    const b = fitNewPet(revised, { name: 'pcs-abc-media-t1-as application/json', categoryId: 1n }, 'pcs-abc-')
    for (const body of [a, b]) {
      expect(valid(body)).toEqual([])
      expect(String((body as { name: string }).name)).toMatch(/^pcs-abc-/)
    }
    expect((a as { name: string }).name).not.toBe((b as { name: string }).name)
    expect((a as { status?: string }).status).toBe(revised.enumOf('PetStatus')[0])
    // Values past a revision's bounds or outside its enumeration are brought within them.
    const narrow = structuredClone(doc)
    Object.assign(narrow.components.schemas.NewPet.properties.categoryId, { minimum: 1, maximum: 10 })
    narrow.components.schemas.PetStatus.enum = ['available', 'pending']
    const fittedIn = fitNewPet(new Spec(narrow), { name: 'pcs-abc-y', categoryId: 80n, status: 'sold' }, 'pcs-abc-')
    expect(fittedIn).toEqual({ name: 'pcs-abc-y', categoryId: 10n, status: 'available' })
    // A body that already fits comes back as it was.
    const fits = { name: 'pcs-abc-x', categoryId: 1n, status: 'sold' }
    expect(fitNewPet(revised, fits, 'pcs-abc-')).toBe(fits)
  })

  it('marks an invalid body only when the mark keeps it invalid', () => {
    const tooShort = { name: 'x', categoryId: 1n, status: 'sold' }
    expect(markLabel(revised, tooShort, 'pcs-bad-0-')).toBe(tooShort) // marked, it would become valid
    const wrongType = { name: 'Rex', categoryId: 'one', status: 'sold' }
    expect(markLabel(revised, wrongType, 'pcs-bad-1-')).toEqual({ ...wrongType, name: 'pcs-bad-1-Rex' })
    expect(renderInvalid({ why: 'name under minLength 2', body: tooShort }, 'pcs-bad-0-', revised)).toBe(
      '{"name":"x","categoryId":1,"status":"sold"}',
    )
  })

  it('reads integer bounds from the format and the bounds: int32, int64, none', () => {
    expect(integerBounds({ format: 'int32' })).toEqual({ min: -(2n ** 31n), max: 2n ** 31n - 1n })
    expect(integerBounds({ format: 'int64', minimum: 1, exclusiveMaximum: 1000 })).toEqual({ min: 1n, max: 999n })
    expect(integerBounds({})).toEqual({ min: -(2n ** 53n - 1n), max: 2n ** 53n - 1n })
  })
})

describe('NewPets of a revision whose added properties have formats, patterns, null, arrays and objects', () => {
  const doc = structuredClone(s.doc)
  Object.assign(doc.components.schemas.NewPet.properties, {
    birthDate: { type: 'string', format: 'date' },
    chip: { type: 'string', format: 'uuid' },
    code: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{2}$' },
    rank: { type: ['integer', 'null'], minimum: 1, maximum: 9 },
    vets: {
      type: 'array',
      maxItems: 3,
      items: { type: 'object', required: ['id'], properties: { id: { type: 'integer', format: 'int64' } } },
    },
  })
  doc.components.schemas.NewPet.required = ['name', 'categoryId', 'birthDate']
  const revised = new Spec(doc)
  const valid = revised.schema('NewPet')

  it('are valid, carry every added property in some of them, and null where the type allows it', () => {
    const pets = fc.sample(newPet(revised, 'pcs-r-'), { numRuns: 300, seed: 5 })
    for (const pet of pets) expect(valid(asJson(pet))).toEqual([])
    for (const name of ['birthDate', 'chip', 'code', 'rank', 'vets'])
      expect(pets.some((pet) => pet[name] !== undefined && pet[name] !== null)).toBe(true)
    expect(pets.some((pet) => pet.rank === null)).toBe(true)
    expect(valid(fitNewPet(revised, { name: 'pcs-r-x', categoryId: 1n }, 'pcs-r-'))).toEqual([])
  })

  it('are made invalid only by values the schema refuses (null is no wrong value of a nullable rank)', () => {
    fc.assert(
      fc.property(invalidBody(revised), (invalid) => {
        if (invalid.body !== undefined && invalid.cut === undefined)
          expect(valid(invalid.body).length).toBeGreaterThan(0)
      }),
      { numRuns: 300, seed: 6 },
    )
  })
})

describe('NewPets of a revision with anyOf and oneOf properties and a long minLength', () => {
  const doc = structuredClone(s.doc)
  Object.assign(doc.components.schemas.NewPet.properties, {
    status: { anyOf: [{ $ref: '#/components/schemas/PetStatus' }, { type: 'null' }] },
    note: {
      oneOf: [
        { type: 'string', maxLength: 20 },
        { type: 'integer', minimum: 1000 },
      ],
    },
    description: { type: 'string', minLength: 300, maxLength: 400 },
  })
  const revised = new Spec(doc)
  const valid = revised.schema('NewPet')

  it('are valid and reach every alternative, null included', () => {
    const pets = fc.sample(newPet(revised, 'pcs-r-'), { numRuns: 300, seed: 7 })
    for (const pet of pets) expect(valid(asJson(pet))).toEqual([])
    expect(pets.some((pet) => pet.status === null)).toBe(true)
    expect(pets.some((pet) => typeof pet.status === 'string')).toBe(true)
    expect(pets.some((pet) => typeof pet.note === 'string')).toBe(true)
    expect(pets.some((pet) => typeof pet.note === 'bigint')).toBe(true)
  })

  it('are made invalid without drawing forever: null is no wrong value of a status that takes it', () => {
    const bodies = fc.sample(invalidBody(revised), { numRuns: 300, seed: 8 })
    for (const invalid of bodies)
      if (invalid.body !== undefined && invalid.cut === undefined) expect(valid(invalid.body).length).toBeGreaterThan(0)
    expect(bodies.some((invalid) => invalid.why === 'status is null')).toBe(false)
  })
})

describe('the run prefix under a revision whose name refuses pcs-<runId>-', () => {
  const revised = (name: object) => {
    const doc = structuredClone(s.doc)
    doc.components.schemas.NewPet.properties.name = { type: 'string', ...name }
    return new Spec(doc)
  }

  it('stays pcs-<runId>- where the name takes it, and turns to letters or a shorter form where it does not', () => {
    expect(runPrefix(s, '0pb7hum')).toBe('pcs-0pb7hum-')
    expect(runPrefix(revised({ pattern: '^[A-Za-z ]+$' }), '0pb7hum')).toBe('pcsapbhhum')
    expect(runPrefix(revised({ pattern: '^[A-Z]+$' }), '0pb7hum')).toBe('PCSAPBHHUM')
    expect(runPrefix(revised({ maxLength: 8 }), '0pb7hum')).toBe('0pb7')
  })

  it('keeps room for distinct labels under a maxLength below 8, down to no mark at all', () => {
    const rests = ['sentinel-bad-before', 'fill-1', 'fill-2', 'get', 'coverage', 'in-order-0', 'in-order-1']
    for (const [max, expected] of [
      [7, '0pb7'],
      [6, '0pb'],
      [5, '0p'],
      [4, '0'],
      [3, ''],
      [2, ''],
    ] as const) {
      const spec = revised({ maxLength: max })
      const prefix = runPrefix(spec, '0pb7hum')
      expect([max, prefix]).toEqual([max, expected])
      const labels = rests.map(
        (rest) => (fitNewPet(spec, { name: prefix + rest, categoryId: 1n }, prefix) as { name: string }).name,
      )
      for (const label of labels) expect(label.startsWith(prefix) && [...label].length <= max).toBe(true)
      if (max >= 3) expect([max, new Set(labels).size]).toEqual([max, labels.length])
    }
  })

  it('fits every label of such a run to the pattern, distinct labels still distinct', () => {
    const spec = revised({ pattern: '^[A-Z][a-z]+$', maxLength: 24 })
    const prefix = runPrefix(spec, '0pb7hum')
    const fit = (name: string) => (fitNewPet(spec, { name, categoryId: 1n }, prefix) as { name: string }).name
    const labels = ['sentinel-bad-before', 'fill-1', 'fill-2', 'media-t0-as application/vnd.petstore+json'].map(
      (rest) => fit(`${prefix}${rest}`),
    )
    for (const label of labels) expect(label).toMatch(/^[A-Z][a-z]+$/)
    for (const label of labels) expect(label.startsWith(prefix)).toBe(true)
    expect(new Set(labels).size).toBe(labels.length)
  })
})
