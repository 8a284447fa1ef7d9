import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseJson, spec } from '../../spec/index.js'
import { revisionWithAlternatives, revisionWithFormats } from './test-support.js'
import { renderInvalid } from '../engine/index.js'
import { asJson, invalidBody, invalidNumbers, leewayNumbers, malformedJson } from './index.js'

const s = spec()
const validNewPet = s.schema('NewPet')

describe('invalid bodies built from the spec', () => {
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
})

describe('NewPets of a revision whose added properties have formats, patterns, null, arrays and objects', () => {
  const revised = revisionWithFormats(s)
  const valid = revised.schema('NewPet')

  it('are made invalid only by values the schema refuses (null is no wrong value of a nullable rank)', () => {
    fc.assert(
      fc.property(invalidBody(revised), (invalid) => {
        if (invalid.body !== undefined && invalid.cut === undefined)
          expect(valid(invalid.body).length).toBeGreaterThan(0)
      }),
      { numRuns: 300, seed: 6 },
    )
  })

  it('are built once per spec (the build draws thousands of NewPets), the same bodies for every run', () => {
    expect(invalidBody(revised)).toBe(invalidBody(revised))
    expect(invalidBody(revised)).not.toBe(invalidBody(s))
    const draw = () => fc.sample(invalidBody(revised), { numRuns: 20, seed: 3 })
    expect(draw()).toEqual(draw())
  })
})

describe('NewPets of a revision with anyOf and oneOf properties and a long minLength', () => {
  const revised = revisionWithAlternatives(s)
  const valid = revised.schema('NewPet')

  it('are made invalid without drawing forever: null is no wrong value of a status that takes it', () => {
    const bodies = fc.sample(invalidBody(revised), { numRuns: 300, seed: 8 })
    for (const invalid of bodies)
      if (invalid.body !== undefined && invalid.cut === undefined) expect(valid(invalid.body).length).toBeGreaterThan(0)
    expect(bodies.some((invalid) => invalid.why === 'status is null')).toBe(false)
  })
})
