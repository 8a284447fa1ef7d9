/**
 * A twin's fidelity in-process: the suite judges a service over loopback, the stub is made `like` its report, and
 * the suite judges the twin through its Fetch handler. The twin is conformant and shows at least 90% of the
 * service's observed choices alike; every other one is named among those it could not mimic. The same through
 * both commands, against five services, is tests/twin.e2e.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { runConformance } from '../command/library.js'
import { compareObservations, createStub, type ReportData } from '../stub/index.js'
import { targets } from '../test-support/targets.js'

const start = targets(afterEach)

const KEY = 'twin-key-77a0'
const EFFORT = { seed: 20261204, runs: 10, timeoutMs: 5000 }

describe('a twin of a service that chooses differently, in-process', () => {
  it('is conformant and observed alike, the rest named', async () => {
    const target = await start({
      independent: {
        keys: [KEY],
        ids: 'big',
        order: 'newest',
        outOfRange: '422',
        defaultStatus: 'available',
        extraFields: true,
        errorCodes: 'upper',
        unknownFields: 'reject',
        badId: '400',
        tooLarge: '413',
      },
    })
    let service
    try {
      service = await runConformance({ baseUrl: target.url, apiKey: KEY, ...EFFORT })
    } finally {
      await target.close()
    }
    expect(service.verdict).toBe('conformant')
    const report = JSON.parse(JSON.stringify(service)) as ReportData // as report.json holds it
    const stub = createStub({ apiKeys: [KEY], like: report })
    const twin = await runConformance({ apiKey: KEY, fetch: stub.fetch, ...EFFORT })
    expect(twin.checks.filter((c) => c.outcome === 'failed' && c.severity === 'fail').map((c) => c.id)).toEqual([])
    expect(twin.verdict).toBe('conformant')
    const fidelity = compareObservations(report, twin as unknown as ReportData)
    expect(fidelity.total).toBeGreaterThan(40)
    expect(fidelity.ratio, JSON.stringify(fidelity.differences)).toBeGreaterThanOrEqual(0.9)
    const named = stub.like!.notMimicked
    const unnamed = fidelity.differences.filter(
      (d) => !named.some((n) => n.checkId === d.checkId && (n.subject === undefined || n.subject === d.subject)),
    )
    expect(unnamed).toEqual([])
    // The measure has teeth: the stub without the report is observed unlike this service.
    const plain = await runConformance({ apiKey: KEY, fetch: createStub({ apiKeys: [KEY] }).fetch, ...EFFORT })
    expect(compareObservations(report, plain as unknown as ReportData).ratio).toBeLessThan(0.75)
    // The choices that differ from the stub's own are among those seen alike.
    const alike = (id: string) => !fidelity.differences.some((d) => d.checkId === id)
    for (const id of [
      'createPet.id-scheme',
      'listPets.ordering',
      'listPets.limit.out-of-range',
      'createPet.unknown-field',
    ])
      expect(alike(id), id).toBe(true)
  }, 60_000)
})
