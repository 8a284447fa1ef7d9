import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseJson, spec } from '../spec/index.js'
import { asJson, categoryId, invalidBody, listLimit, newPet, outOfRangeLimits, renderInvalid } from './arbitraries.js'

const s = spec()
const validNewPet = s.schema('NewPet')

describe('arbitraries built from the spec', () => {
  it('make NewPets that validate, named with the prefix', () => {
    fc.assert(
      fc.property(newPet(s, 'pcs-test-'), (pet) => {
        expect(validNewPet(asJson(pet))).toEqual([])
        expect(pet.name.startsWith('pcs-test-')).toBe(true)
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
        const text = renderInvalid(invalid, 'pcs-x-bad-0-')
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
})
