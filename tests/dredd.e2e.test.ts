/**
 * Dredd (npm `dredd`, 14.x; OpenAPI 3 support is experimental and 3.1 "not fully supported", with warnings) runs
 * against the stub with the spec as it is: one transaction per documented response of each operation, and every
 * one passes. Dredd sends each transaction with the spec's request example; spec/dredd-hooks.cjs makes the
 * requests an error status needs (no key for 401, a missing field for 400, an unknown id for 404).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SPEC_PATH, spec } from '../spec/index.js'
import { runProcess } from '../test-support/run-command.js'
import { targets, type StubTarget } from '../test-support/targets.js'

const start = targets(afterAll)

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const KEY = 'dredd-key-93b1'
const DREDD = 'dredd@14.1.0'
const HOOKS = fileURLToPath(new URL('../spec/dredd-hooks.cjs', import.meta.url))

describe('Dredd against the stub', () => {
  let stub: StubTarget
  let output = ''

  beforeAll(async () => {
    stub = await start({ stub: { apiKeys: [KEY], port: 0 } })
    const local = join(ROOT, 'node_modules', '.bin', 'dredd')
    const [command, args] = existsSync(local) ? [local, []] : ['npx', ['--yes', DREDD]]
    const result = await runProcess(
      command,
      [
        ...args,
        SPEC_PATH,
        stub.url,
        '--header',
        `Authorization: Bearer ${KEY}`,
        '--hookfiles',
        HOOKS,
        '--color',
        'false',
      ],
      { cwd: ROOT, timeoutMs: 300_000 },
    )
    output = `${result.stdout}\n${result.stderr}`
  }, 360_000)

  afterAll(async () => {
    await stub?.close()
  })

  it('passes one transaction per documented response of every operation', () => {
    const summary = /complete: (\d+) passing, (\d+) failing, (\d+) errors, (\d+) skipped, (\d+) total/.exec(output)
    expect(summary, output.slice(-4000)).not.toBeNull()
    const [, passing, failing, errors, skipped, total] = summary!.map(Number)
    const documented = Object.values(spec().operations).reduce((n, op) => n + op.statuses.length, 0)
    expect({ failing, errors, skipped }, output.slice(-4000)).toEqual({ failing: 0, errors: 0, skipped: 0 })
    expect(total).toBe(documented)
    expect(passing).toBe(total)
  })
})
