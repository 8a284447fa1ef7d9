/**
 * What the suite catches does not depend on the seed: each fault below, including those a lucky seed used to let
 * pass (an unfiltered list keeping one status, `null` for an empty list, a redirect, a successor link to the old
 * version path), fails its check with every one of five fixed seeds. The set-up each check needs is made on purpose,
 * before the random phase; the seed only adds breadth. Each run selects the check that names the fault, so only the
 * scenarios feeding it are sent (the property scenarios among them, with the seed).
 */
import { describe, expect, it } from 'vitest'
import { runConformance } from '../command/library.js'
import type { RunResult } from '../model/index.js'
import { Spec, spec } from '../spec/index.js'
import { createStub, FAULTS, type FaultName } from '../stub/index.js'

const KEY = 'seeds-key-61b0c2'
/** 1380555682 let a list keeping only `available` pets pass before the suite set up its list semantics. */
const SEEDS = [1380555682, 1, 7, 20301205, 2147483647]
// Few property runs: the catch must come from what the suite sets up on purpose, not from the random phase's reach.
const EFFORT = { runs: 5, timeoutMs: 1000 }

const outcome = (run: RunResult, id: string) => run.checks.find((c) => c.id === id)

describe('faults caught on every seed', () => {
  const faults: FaultName[] = ['list-keeps-available', 'empty-list-null', 'list-redirect', 'slash-redirect']
  for (const name of faults) {
    const { catches, emptyStore } = FAULTS[name]
    it(`"${name}" fails ${catches} with seeds ${SEEDS.join(', ')}`, async () => {
      for (const seed of SEEDS) {
        // A fault that shows only where an empty result occurs runs against a fresh, empty stub.
        const stub = createStub({ apiKeys: [KEY], fault: name, ...(emptyStore ? { seed: false } : {}) })
        const run = await runConformance({ apiKey: KEY, fetch: stub.fetch, seed, ...EFFORT, checks: [catches] })
        expect(outcome(run, catches)?.outcome, `seed ${seed}`).toBe('failed')
        expect(run.verdict, `seed ${seed}`).toBe('non-conformant')
      }
    }, 120_000)
  }

  it('a redirect names its status and Location in the finding', async () => {
    const stub = createStub({ apiKeys: [KEY], fault: 'list-redirect' })
    const run = await runConformance({
      apiKey: KEY,
      fetch: stub.fetch,
      seed: SEEDS[0],
      checks: ['response.no-redirect'],
    })
    expect(outcome(run, 'response.no-redirect')!.findings[0]!.message).toMatch(
      /^GET \/pets\?limit=\d+ answered 301, a redirect to Location: \/v1\/pets\/\?limit=\d+; documented for listPets: 200, 401/,
    )
  })

  it('a successor Link to the old version path, under a revision served at /v1.1, fails getPet.successor-link', async () => {
    const doc = structuredClone(spec().doc)
    doc.servers = [{ url: 'http://stub.invalid/v1.1' }]
    const revised = new Spec(doc)
    const correct = createStub({ apiKeys: [KEY], spec: revised })
    // A service that moved to /v1.1 but still links its successor at /v1/pets.
    const stale = async (request: Request) => {
      const response = await correct.fetch(request)
      const link = response.headers.get('link')
      if (link === null) return response
      const headers = new Headers(response.headers)
      headers.set('link', link.replace('/v1.1/', '/v1/'))
      return new Response(response.body, { status: response.status, headers })
    }
    for (const seed of SEEDS) {
      const checks = ['getPet.successor-link']
      const run = await runConformance({ apiKey: KEY, fetch: stale, spec: revised, seed, ...EFFORT, checks })
      expect(outcome(run, 'getPet.successor-link')?.outcome, `seed ${seed}`).toBe('failed')
    }
    // The correct stub links to /v1.1/pets: no finding.
    const run = await runConformance({
      apiKey: KEY,
      fetch: createStub({ apiKeys: [KEY], spec: revised }).fetch,
      spec: revised,
      seed: SEEDS[0],
      checks: ['getPet.successor-link'],
    })
    expect(outcome(run, 'getPet.successor-link')?.outcome).toBe('passed')
  }, 120_000)
})
