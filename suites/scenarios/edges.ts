/**
 * The coverage phase, deterministic and before any random value: for each keyword of NewPet's schema, at any depth,
 * the value at its edge and the one just past it (suites/values/edges.ts), the rest of the NewPet valid. A value at
 * an edge is added, echoed and returned by getPet; one past it is refused with 400 and stores nothing. Then each
 * documented query value at an edge (each bound of an integer, each enumerated value) is accepted.
 */
import type { Exchange } from '../../model/index.js'
import { stringifyJson } from '../../spec/index.js'
import { markLabel } from '../engine/index.js'
import { scenario } from '../engine/scenario.js'
import { bodyEdges, queryEdges } from '../values/index.js'
import { createAndGet, lookForStored, sentinel } from './probes.js'

export const keywordEdges = scenario({
  name: "createPet at the edges of each keyword of NewPet's schema: a value at each bound is added, echoed and returned; one just past it is refused with 400 and stores nothing",
  area: 'probe',
  operations: ['createPet'],
  uses: ['listPets', 'getPet'],
  states: ['sent', 'invalid', 'storedAfter'],
  async run(s) {
    const cases = bodyEdges(s.spec)
    const marker = `${s.prefix}edge-`
    const before = await sentinel(s, 'edge-before')
    const sent = new Map<string, Exchange>()
    // One request per case, all side by side: the accepted ones carry the run's prefix but not the marker, so the
    // look for what the refused ones left finds only theirs.
    await Promise.all(
      cases.map(async (edge, i) => {
        if (edge.expect === 'ok') return void (await createAndGet(s, markLabel(s.spec, edge.body, s.prefix)))
        const body = markLabel(s.spec, edge.body, `${marker}e${i}-`)
        const exchange = await s.createInvalid(stringifyJson(body), edge.why)
        // A body whose label cannot carry the mark (the edge is the label, or no object at all) cannot be traced.
        if (body !== edge.body) sent.set(`e${i}`, exchange)
      }),
    )
    await lookForStored(s, marker, sent, before, ['createPet.invalid-stores-nothing'])
  },
})

export const queryAtEdges = scenario({
  name: 'listPets with each query parameter at the edges its schema documents (each bound, each enumerated value): accepted',
  area: 'list',
  operations: ['listPets'],
  async run(s) {
    await Promise.all(queryEdges(s.spec, 'listPets').map(({ name, value }) => s.listPets([[name, value]])))
  },
})

export const EDGES = [keywordEdges, queryAtEdges]
