import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseDocument, type YAMLSeq } from 'yaml'
import {
  parseSpec,
  RFC_REFERENCE,
  RFC_SECTIONS,
  renderBasis,
  resolvePointer,
  spec,
  SPEC_PATH,
  type BasisRef,
  type Spec,
} from '../../spec/index.js'
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

/**
 * The bundled spec revised where the checks' titles, bases and statuses read it: listPets' parameters in the other
 * order, the security scheme under another name, a 409 Error on createPet, a header on listPets' 200, and /v2.
 */
function revision(): Spec {
  const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'), { intAsBigInt: true })
  const parameters = doc.getIn(['paths', '/pets', 'get', 'parameters']) as YAMLSeq
  parameters.items.reverse()
  const schemes = ['components', 'securitySchemes']
  doc.setIn([...schemes, 'petstoreKey'], doc.getIn([...schemes, 'bearerAuth']))
  doc.deleteIn([...schemes, 'bearerAuth'])
  const requirement = () => doc.createNode([{ petstoreKey: [] }])
  doc.setIn(['security'], requirement())
  for (const [path, method] of [
    ['/pets', 'get'],
    ['/pets', 'post'],
    ['/pets/{petId}', 'get'],
  ])
    doc.setIn(['paths', path, method, 'security'], requirement())
  doc.setIn(
    ['paths', '/pets', 'post', 'responses', '409'],
    doc.createNode({
      description: 'An animal of this name is held already.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }),
  )
  doc.setIn(
    ['paths', '/pets', 'get', 'responses', '200', 'headers'],
    doc.createNode({ 'X-Total-Count': { description: 'Animals held.', schema: { type: 'integer', minimum: 0 } } }),
  )
  const servers = doc.getIn(['servers']) as YAMLSeq
  for (let i = 0; i < servers.items.length; i++)
    doc.setIn(['servers', i, 'url'], String(doc.getIn(['servers', i, 'url'])).replace('/v1', '/v2'))
  return parseSpec(doc.toString({ lineWidth: 0 }), 'the revision')
}

describe('the catalogue resolved for a revised spec', () => {
  const revised = revision()
  /** Every spec pointer of every check's basis (Prism's too), resolved for `judged`. */
  const pointers = (judged: Spec) =>
    [...catalogueFor(judged), ...PRISM_CHECKS.map((c) => ({ id: c.id, basis: bySpec(c.basis, judged) }))].flatMap((c) =>
      (c.basis ?? []).flatMap((ref) => ('spec' in ref ? [{ id: c.id, pointer: ref.spec }] : [])),
    )
  const inRevision = pointers(revised)
  const words = (id: string) =>
    renderBasis(revised, catalogueFor(revised).find((c) => c.id === id)!.basis!).map((line) => line.text)

  it('points every basis of every check into that spec, each place in its words', () => {
    expect(inRevision.length).toBeGreaterThan(30)
    expect(inRevision.filter(({ pointer }) => resolvePointer(revised.doc, pointer) === undefined)).toEqual([])
    for (const { id, pointer } of inRevision) {
      const [line] = renderBasis(revised, [{ spec: pointer }])
      expect(line!.text, `${id}: ${pointer}`).not.toMatch(/not in this spec|^\s*$/)
    }
  })
  it("differs from the bundled spec's where the revision does, so the bundled spec's would miss or mislead", () => {
    const bundled = pointers(s)
    const missing = bundled.filter(({ pointer }) => resolvePointer(revised.doc, pointer) === undefined)
    expect(missing.map(({ pointer }) => pointer)).toContain('#/components/securitySchemes/bearerAuth')
    const of = (all: typeof bundled, id: string) => all.filter((p) => p.id === id).map((p) => p.pointer)
    const changed = [...new Set(bundled.map(({ id }) => id))].filter(
      (id) => of(bundled, id).join() !== of(inRevision, id).join(),
    )
    expect(changed).toEqual(
      expect.arrayContaining([
        'listPets.limit.default',
        'listPets.status.filter',
        'auth.scheme-case',
        'response.headers',
        'response.content-type',
      ]),
    )
    // The bundled spec's pointer to status' description names limit's in the revision: it resolves, to the wrong place.
    expect(words('listPets.status.filter')[0]).toMatch(/^status\b/)
  })
  it('reads parameters, statuses, headers and the scheme where the revision puts them', () => {
    expect(words('listPets.limit.default')).toEqual(['limit: default 20'])
    expect(catalogueFor(revised).find((c) => c.id === 'listPets.limit.default')!.basis).toEqual([
      { spec: '#/paths/~1pets/get/parameters/1/schema/default' },
    ])
    expect(words('response.status-documented')).toContain('createPet documents 201, 400, 401 and 409')
    const errorBody = catalogueFor(revised).find((c) => c.id === 'error.body')!
    expect(errorBody.title).toBe(
      'Every answer with a documented error status (400, 401, 404, 409) carries an Error body',
    )
    expect(errorBody.scope === 'exchange' && errorBody.on.statuses).toEqual([400, 401, 404, 409])
    expect(inRevision).toContainEqual({ id: 'response.headers', pointer: '#/paths/~1pets/get/responses/200/headers' })
    expect(inRevision).toContainEqual({ id: 'auth.scheme-case', pointer: '#/components/securitySchemes/petstoreKey' })
  })
  it('is built for a revision that deprecates nothing, describes no response header and keys no HTTP scheme', () => {
    const doc = structuredClone(s.doc)
    for (const key of ['deprecated', 'x-sunset', 'x-successor']) delete doc.paths['/pets/{petId}'].get[key]
    for (const response of Object.values<{ headers?: object }>(doc.paths['/pets/{petId}'].get.responses))
      delete response.headers
    delete doc.components.responses.Unauthorized.headers
    doc.components.securitySchemes = { key: { type: 'apiKey', in: 'header', name: 'Authorization' } }
    doc.security = [{ key: [] }]
    for (const op of [doc.paths['/pets'].get, doc.paths['/pets'].post, doc.paths['/pets/{petId}'].get])
      op.security = [{ key: [] }]
    const plain = parseSpec(JSON.stringify(doc), 'the plain revision')
    const checks = catalogueFor(plain)
    expect(checks.map((c) => typeof c.title)).toEqual(CHECKS.map(() => 'string'))
    const failing = checks.filter((c) => c.severity === 'fail').flatMap((c) => c.basis ?? [])
    expect(failing.filter((ref) => 'spec' in ref && !resolvePointer(plain.doc, ref.spec))).toEqual([])
    expect(checks.find((c) => c.id === 'headers.deprecation-scoped')!.title).toBe(
      'Deprecation and Sunset appear only on the deprecated operations (none)',
    )
  })
  it('is built once per spec, the bundled one untouched', () => {
    expect(catalogueFor(revised)).toBe(catalogueFor(revised))
    expect(CHECKS.find((c) => c.id === 'error.body')!.title).toBe(
      'Every answer with a documented error status (400, 401, 404) carries an Error body',
    )
  })
})
