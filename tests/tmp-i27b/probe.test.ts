import { it, expect } from 'vitest'
import { runConformance } from '../../command/library.js'
import { createStub } from '../../stub/index.js'
const KEY = 'k-123456789'
it('probe', async () => {
  for (const seedPets of [undefined, false] as const) {
    const t0 = Date.now()
    const run = await runConformance({ apiKey: KEY, fetch: createStub({ apiKeys: [KEY], ...(seedPets === false ? { seed: false as const } : {}) }).fetch, seed: 1380555682, runs: 30, timeoutMs: 1000 })
    console.log(run.verdict, run.requestsSent, run.recordsCreated, Date.now() - t0, JSON.stringify(run.checks.filter((c) => c.outcome !== 'passed').map((c) => [c.id, c.outcome, c.reason])))
  }
}, 120000)
