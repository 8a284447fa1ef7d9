/**
 * The basis reaches every report: a run against a faulty stub (in-process) keeps, for each check, the places of the
 * spec that document it, and each writer shows them beside the failure, in the spec's words.
 */
import { describe, expect, it } from 'vitest'
import { runConformance } from '../command/library.js'
import { findingBasis } from '../model/index.js'
import { Spec, spec } from '../spec/index.js'
import { toConsole } from '../reporters/console.js'
import { WRITERS } from '../reporters/index.js'
import { createStub } from '../stub/index.js'
import { catalogue } from '../suites/index.js'

const KEY = 'basis-key-5d21'

describe('the basis of a failure, from the check to the reports', () => {
  it('every fail check of a run carries its basis, and every report shows the one a failure broke', async () => {
    const stub = createStub({ apiKeys: [KEY], fault: 'create-200' })
    const run = await runConformance({ apiKey: KEY, fetch: stub.fetch, seed: 7, runs: 3, timeoutMs: 1000 })
    expect(run.checks.filter((c) => c.severity === 'fail' && !c.basis?.length).map((c) => c.id)).toEqual([])
    const accepts = run.checks.find((c) => c.id === 'createPet.accepts-valid')!
    expect(accepts.outcome).toBe('failed')
    const words = 'createPet 201: Animal added. The body is the stored animal, including its assigned `id`.'
    expect(accepts.basis).toContainEqual({
      ref: '#/paths/~1pets/post/responses/201',
      text: words,
      operationId: 'createPet',
      status: '201',
    })
    const documented = 'createPet documents 201, 400 and 401 (#/paths/~1pets/post/responses)'
    // The console wraps within 80 columns: read as one line.
    const console = toConsole(run, { color: false }).replace(/\s+/g, ' ')
    expect(console).toContain(`basis: ${words} (#/paths/~1pets/post/responses/201)`)
    expect(console).toContain(`basis: ${documented}`)
    // Beside a createPet finding of status-documented, only createPet's documented statuses.
    const statusDocumented = run.checks.find((c) => c.id === 'response.status-documented')!
    expect(findingBasis(statusDocumented, statusDocumented.findings[0]!).map((line) => line.text)).toEqual([
      'createPet documents 201, 400 and 401',
    ])
    expect(WRITERS.junit(run)).toContain(`basis: ${words}`)
    expect(WRITERS.markdown(run)).toContain('basis: createPet documents 201, 400 and 401')
    expect(WRITERS.html(run)).toContain(`<dt>Basis</dt><dd class="basis">createPet documents 201, 400 and 401`)
    expect(
      JSON.parse(WRITERS.json(run)).checks.find((c: { id: string }) => c.id === 'response.status-documented').basis,
    ).toHaveLength(3)
  })

  it("is rendered from the spec the run reads: a revision's words, not today's", () => {
    const doc = structuredClone(spec().doc)
    doc.paths['/pets'].get.parameters[0].schema.default = 25
    const entries = catalogue({ checks: ['listPets.limit.default'], operations: [], viaPrism: false }, new Spec(doc))
    expect(entries.map((e) => e.basis?.map((line) => line.text))).toEqual([['limit: default 25']])
  })

  it("points into the spec the run judges: a revision that lists status before limit moves limit's basis", async () => {
    const doc = structuredClone(spec().doc)
    doc.paths['/pets'].get.parameters.reverse()
    const run = await runConformance({
      spec: new Spec(doc),
      seed: 7,
      runs: 1,
      checks: ['listPets.limit.default', 'listPets.limit.max'],
    })
    const basis = (id: string) => run.checks.find((c) => c.id === id)!.basis!
    expect(basis('listPets.limit.default')).toEqual([
      expect.objectContaining({ ref: '#/paths/~1pets/get/parameters/1/schema/default', text: 'limit: default 20' }),
    ])
    expect(basis('listPets.limit.max').map((line) => line.ref)).toContain('#/paths/~1pets/get/parameters/1/description')
    expect(run.checks.flatMap((c) => c.basis ?? []).filter((line) => line.text.startsWith('status'))).toEqual([])
  })
})
