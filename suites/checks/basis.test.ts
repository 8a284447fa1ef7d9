import { describe, expect, it } from 'vitest'
import { RFC_REFERENCE, RFC_SECTIONS, renderBasis, resolvePointer, spec, type BasisRef } from '../../spec/index.js'
import { PRISM_CHECKS } from '../prism/index.js'
import { bySpec, exchangeCheck, runCheck, transportCheck } from './check.js'
import { catalogueFor } from './index.js'

const s = spec()
const CHECKS = catalogueFor(s)
const PRISM = PRISM_CHECKS.map((c) => ({ ...c, basis: bySpec(c.basis, s) }))

/** Every check that can fail a target, the suite's and Prism's, with its basis. */
const failing = [
  ...CHECKS.filter((c) => c.severity === 'fail').map((c) => ({ id: c.id, basis: c.basis })),
  ...PRISM.map((c) => ({ id: c.id, basis: c.basis })),
]
const everyRef = [...CHECKS, ...PRISM].flatMap((c) =>
  (c.basis ?? ([] as readonly BasisRef[])).map((ref) => ({ id: c.id, ref })),
)

describe('every failure has a basis', () => {
  it('each fail check of the catalogue and each Prism check names one', () => {
    const without = failing.filter((c) => !c.basis?.length).map((c) => c.id)
    expect(without).toEqual([])
    expect(failing.length).toBeGreaterThan(30)
  })
  it('each spec pointer names a value of the loaded spec, and renders its words', () => {
    const spec = everyRef.flatMap(({ id, ref }) => ('spec' in ref ? [{ id, pointer: ref.spec }] : []))
    expect(spec.length).toBeGreaterThan(30)
    const unresolved = spec.filter(({ pointer }) => resolvePointer(s.doc, pointer) === undefined)
    expect(unresolved).toEqual([])
    for (const { id, pointer } of spec) {
      const [line] = renderBasis(s, [{ spec: pointer }])
      expect(line!.text, `${id}: ${pointer}`).not.toMatch(/not in this spec|^\s*$/)
    }
  })
  it('each RFC reference is well-formed and has its line', () => {
    const rfcs = everyRef.flatMap(({ ref }) => ('rfc' in ref ? [ref.rfc as string] : []))
    expect(rfcs).toContain('RFC 9110 §15.6')
    for (const rfc of rfcs) {
      expect(rfc).toMatch(RFC_REFERENCE)
      expect(Object.keys(RFC_SECTIONS)).toContain(rfc)
    }
  })
  it('a fail check without a basis does not compile; observed and advice may go without', () => {
    const run = () => []
    // @ts-expect-error: severity fail needs a basis
    exchangeCheck({ id: 'x', title: 'no basis', severity: 'fail', on: { operation: 'all' }, run })
    // @ts-expect-error: severity fail needs a basis
    transportCheck({ id: 'x', title: 'no basis', severity: 'fail', run })
    // @ts-expect-error: severity fail needs a basis
    runCheck({ id: 'x', title: 'no basis', severity: 'fail', on: { operation: 'all' }, applies: () => true, run })
    exchangeCheck({ id: 'x', title: 'observed', severity: 'observed', on: { operation: 'all' }, run })
    exchangeCheck({ id: 'x', title: 'advice', severity: 'advice', on: { operation: 'all' }, run })
    const based = exchangeCheck({
      id: 'x',
      title: 'based',
      severity: 'fail',
      basis: [{ rfc: 'RFC 9110 §15.6' }],
      on: { operation: 'all' },
      run,
    })
    expect(based.basis).toEqual([{ rfc: 'RFC 9110 §15.6' }])
  })
  it("a basis says in the spec's words what the check holds the target to", () => {
    const words = (id: string) => renderBasis(s, CHECKS.find((c) => c.id === id)!.basis!).map((line) => line.text)
    expect(words('response.status-documented')).toEqual([
      'listPets documents 200 and 401',
      'createPet documents 201, 400 and 401',
      'getPet documents 200, 401 and 404',
    ])
    expect(words('createPet.rejects-invalid')).toContain('NewPet requires name and categoryId')
    expect(words('listPets.limit.default')).toEqual(['limit: default 20'])
    expect(words('response.no-server-error')[0]).toMatch(/^RFC 9110 §15\.6: 5xx is a server error/)
  })
})
