// `npx tsx bench/throttled.ts [name ...]`: the whole default conformance run (in-process, the stub as a Fetch handler)
// against throttling targets, with its wall time, what the limit allows, requests, throttling answers waited out,
// the longest wait and the verdict. Targets: `none` (no throttle), `bucket` (a token bucket of 20 requests/s, burst
// 10, 429 with Retry-After: 1, as nginx's limit_req), `bucket-503` (the same answering 503), `one-in-five` (429 with
// Retry-After: 1 to every fifth request, whatever the rate).
import { randomBytes } from 'node:crypto'
import { buildRunResult, keySecrets, Redactor } from '../model/index.js'
import { spec } from '../spec/index.js'
import { createStub } from '../stub/index.js'
import { recordAllowances, recordBudget, runAll, startRun, type FetchHandler, type RunConfig } from '../suites/index.js'
import type { PoliteTransport } from '../suites/transport/polite.js'
import { throttled, tokenBucket, type LimiterStats } from './limiters.js'

const KEY = 'bench-throttle-key'
const RATE = 20
const BURST = 10

interface Target {
  fetch: FetchHandler
  stats?: LimiterStats
  /** Requests per second the target allows, when it limits the rate. */
  rate?: number
}

const TARGETS: Record<string, () => Target> = {
  none: () => ({ fetch: createStub({ apiKeys: [KEY] }).fetch }),
  bucket: () => ({ ...tokenBucket(createStub({ apiKeys: [KEY] }).fetch, { rate: RATE, burst: BURST }), rate: RATE }),
  'bucket-503': () => ({
    ...tokenBucket(createStub({ apiKeys: [KEY] }).fetch, { rate: RATE, burst: BURST, status: 503 }),
    rate: RATE,
  }),
  'one-in-five': () => ({
    fetch: throttled(createStub({ apiKeys: [KEY] }).fetch, { every: 5, retryAfter: 'seconds', seconds: 1 }),
  }),
}

async function measure(name: string, make: () => Target): Promise<string> {
  const target = make()
  const runs = 30
  const config: RunConfig = {
    baseUrl: 'http://throttled.invalid/v1',
    apiKey: KEY,
    seed: Number(process.env.SEED ?? randomBytes(4).readInt32BE(0)),
    runs,
    timeoutMs: 10_000,
    concurrency: 8,
    checks: [],
    operations: [],
    strict: false,
    viaPrism: false,
    runId: 'throttle',
    allowances: recordAllowances(runs),
  }
  const started = performance.now()
  const run = startRun(config, target.fetch)
  const records = await runAll(run)
  const seconds = (performance.now() - started) / 1000
  const transport = run.transport as PoliteTransport
  const result = buildRunResult(
    records,
    {
      tool: { name: 'bench', version: '0' },
      target: { baseUrl: config.baseUrl, embedded: false },
      runId: config.runId,
      seed: config.seed,
      runs,
      recordBudget: recordBudget(config.allowances),
      viaPrism: false,
      strict: false,
      specVersion: spec().version,
      operationOrder: Object.keys(spec().operations),
      notices: [],
      startedAt: new Date().toISOString(),
      durationMs: seconds * 1000,
      catalogue: [],
      runErrors: [],
      ...(run.stopped ? { stopped: run.stopped } : {}),
    },
    new Redactor(keySecrets(KEY)),
  )
  const served = target.stats?.passed ?? transport.requestsSent - transport.throttled
  // What the limit allows: the burst at once, the rest at the rate.
  const allowed = target.rate === undefined ? undefined : Math.max(0, served - BURST) / target.rate
  return [
    `${name.padEnd(12)} ${seconds.toFixed(1).padStart(6)} s`,
    allowed === undefined ? '' : `(the limit allows ${allowed.toFixed(1)} s: ${(seconds / allowed).toFixed(2)}x)`,
    `${transport.requestsSent} requests, ${transport.throttled} throttled and waited out,`,
    `longest wait ${(transport.longestWaitMs / 1000).toFixed(1)} s, verdict ${result.verdict}`,
    run.stopped ? `(stopped: ${run.stopped})` : '',
  ]
    .filter(Boolean)
    .join(' ')
}

const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(TARGETS)
for (const name of names) {
  const make = TARGETS[name]
  if (!make) throw new Error(`unknown target ${name}; known: ${Object.keys(TARGETS).join(', ')}`)
  console.log(await measure(name, make))
}
