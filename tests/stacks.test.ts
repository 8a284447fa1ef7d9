/**
 * The suite against conformant services as other stacks and proxies serve them (test-support/stacks.ts: Go
 * net/http, FastAPI on uvicorn, Flask on gunicorn, Koa 3, Hono 4, nginx in front), in-process over loopback HTTP. A
 * representative two run here, chosen for speed (their stacks refuse the 1 MiB body, so no listing carries it): no
 * false alarm where the interface is silent. Every stack and every mistake
 * runs through the real command in tests/stacks.e2e.test.ts (`npm run test:e2e`).
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { runConformance } from '../command/library.js'
import type { RunResult } from '../model/index.js'
import { CHECKS } from '../suites/index.js'
import { STACK_MISTAKES, STACKS } from '../test-support/stacks.js'
import { targets, type Target } from '../test-support/targets.js'

const start = targets(afterEach)

const KEY = 'stack-key-3e91'
// The teeth's effort; a longer timeout, as the service shares this process's event loop with the suite.
const EFFORT = { seed: 20301205, runs: 10, timeoutMs: 5000 }

const failed = (run: RunResult) =>
  run.checks.filter((c) => c.outcome === 'failed' && c.severity === 'fail').map((c) => c.id)
const broken = (run: RunResult) =>
  run.checks.filter((c) => c.outcome === 'error' || c.outcome === 'unjudged').map((c) => `${c.id}: ${c.reason ?? ''}`)

/** Pets held before the run, as a service in use has (one of them beyond 2^53). */
async function hold(target: Target): Promise<void> {
  for (const [i, body] of [
    '{"name":"held","categoryId":9007199254740993}',
    '{"name":"held","categoryId":2,"status":"sold"}',
  ].entries()) {
    const response = await fetch(`${target.url}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
      body,
    })
    expect(response.status, `holding pet ${i}`).toBe(201)
  }
}

async function judged(target: Target): Promise<RunResult> {
  try {
    return await runConformance({ baseUrl: target.url, apiKey: KEY, ...EFFORT })
  } finally {
    await target.close()
  }
}

describe('services as other stacks and proxies serve them', () => {
  it('are independent implementations: they import only packages', () => {
    const text = readFileSync(new URL('../test-support/stacks.ts', import.meta.url), 'utf8')
    expect([...text.matchAll(/from '(\.[^']*)'/g)].map((match) => match[1])).toEqual([])
    expect(text).not.toMatch(/petstore\.yaml/)
  })

  it('name, for every mistake, a check of the table', () => {
    const ids = new Set<string>(CHECKS.map((c) => c.id))
    for (const [name, { catches }] of Object.entries(STACK_MISTAKES)) expect(ids.has(catches), name).toBe(true)
    expect(Object.keys(STACKS).length).toBeGreaterThanOrEqual(6)
  })

  for (const name of ['Koa 3', 'nginx + Go net/http'] as const) {
    it(`passes the conformant service on ${name}, judging every check that applies`, async () => {
      const target = await start({ stack: name, keys: [KEY] })
      await hold(target)
      const run = await judged(target)
      expect(broken(run)).toEqual([])
      expect(failed(run)).toEqual([])
      expect(run.verdict).toBe('conformant')
      expect(run.checks.find((c) => c.id === 'getPet.keeps-existing')?.outcome).toBe('passed')
    })
  }
})
