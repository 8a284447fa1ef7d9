import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { spec } from '../../spec/index.js'
import { revisionWithAlternatives, revisionWithFormats } from './test-support.js'
import { fitNewPet } from '../engine/index.js'
import { asJson, categoryId, categoryIdEdges, codePoint, integerBounds, labelOf, newPet } from './index.js'

const s = spec()
const validNewPet = s.schema('NewPet')

describe('valid values built from the spec', () => {
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
  it('puts categoryId at the int64 edges, every one a valid NewPet', () => {
    const edges = categoryIdEdges(s)
    expect(edges).toContain(2n ** 53n)
    expect(edges).toContain(2n ** 63n - 2n)
    for (const id of edges) expect(validNewPet(asJson({ name: 'x', categoryId: id }))).toEqual([])
  })
  it('reads integer bounds from the format and the bounds: int32, int64, none', () => {
    expect(integerBounds({ format: 'int32' })).toEqual({ min: -(2n ** 31n), max: 2n ** 31n - 1n })
    expect(integerBounds({ format: 'int64', minimum: 1, exclusiveMaximum: 1000 })).toEqual({ min: 1n, max: 999n })
    expect(integerBounds({})).toEqual({ min: -(2n ** 53n - 1n), max: 2n ** 53n - 1n })
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

describe('NewPets of a revision whose added properties have formats, patterns, null, arrays and objects', () => {
  const revised = revisionWithFormats(s)
  const valid = revised.schema('NewPet')

  it('are valid, carry every added property in some of them, and null where the type allows it', () => {
    const pets = fc.sample(newPet(revised, 'pcs-r-'), { numRuns: 300, seed: 5 })
    for (const pet of pets) expect(valid(asJson(pet))).toEqual([])
    for (const name of ['birthDate', 'chip', 'code', 'rank', 'vets'])
      expect(pets.some((pet) => pet[name] !== undefined && pet[name] !== null)).toBe(true)
    expect(pets.some((pet) => pet.rank === null)).toBe(true)
    expect(valid(fitNewPet(revised, { name: 'pcs-r-x', categoryId: 1n }, 'pcs-r-'))).toEqual([])
  })
})

describe('NewPets of a revision with anyOf and oneOf properties and a long minLength', () => {
  const revised = revisionWithAlternatives(s)
  const valid = revised.schema('NewPet')

  it('are valid and reach every alternative, null included', () => {
    const pets = fc.sample(newPet(revised, 'pcs-r-'), { numRuns: 300, seed: 7 })
    for (const pet of pets) expect(valid(asJson(pet))).toEqual([])
    expect(pets.some((pet) => pet.status === null)).toBe(true)
    expect(pets.some((pet) => typeof pet.status === 'string')).toBe(true)
    expect(pets.some((pet) => typeof pet.note === 'string')).toBe(true)
    expect(pets.some((pet) => typeof pet.note === 'bigint')).toBe(true)
  })
})
