import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Spec, spec } from '../../spec/index.js'
import { queryOutsideRange } from '../checks/util.js'
import { listLimit, oddLimits, oddStatuses, outOfRangeLimits } from './index.js'

const s = spec()

describe('query values built from the spec', () => {
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
  it('writes limit and status values outside the documented ones', () => {
    const url = (name: string, value: string) => `http://x.invalid/v1/pets?${name}=${encodeURIComponent(value)}`
    for (const limit of oddLimits(s))
      expect(queryOutsideRange(s, 'listPets', url('limit', limit)), limit).toEqual(['limit'])
    for (const status of oddStatuses(s))
      expect(queryOutsideRange(s, 'listPets', url('status', status)), status).toEqual(['status'])
  })
})
