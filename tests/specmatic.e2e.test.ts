/**
 * Specmatic's contract tests (npm `specmatic`, a Java 17 program) run against the stub with the spec as it is:
 * every example pair of spec/petstore.yaml and spec/petstore_examples/ becomes a test, and every test passes.
 * CI needs Java 17 (Debian: `apt-get install -y --no-install-recommends openjdk-17-jre-headless`).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SPEC_PATH, spec } from '../spec/index.js'
import { runProcess, runProcessSync } from '../test-support/run-command.js'
import { targets, type StubTarget } from '../test-support/targets.js'

const start = targets(afterAll)

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const KEY = 'specmatic-key-4f2a'
/** The version this test was written against; a local install (node_modules/.bin/specmatic) wins. */
const SPECMATIC = 'specmatic@2.55.1'
const EXAMPLES_DIR = SPEC_PATH.replace(/\.yaml$/, '_examples')

/** The named request examples of the spec, each of which Specmatic pairs with the response example of its name. */
function inlinePairs(): string[] {
  const s = spec()
  return Object.values(s.operations).flatMap((op) => {
    const operation = s.doc.paths[op.path][op.method.toLowerCase()]
    const names = [
      ...(operation.parameters ?? []).flatMap((p: { examples?: object }) => Object.keys(p.examples ?? {})),
      ...Object.keys(operation.requestBody?.content?.['application/json']?.examples ?? {}),
    ]
    return [...new Set(names)].map((name) => `${op.operationId} ${name}`)
  })
}

describe('Specmatic contract tests against the stub', () => {
  let stub: StubTarget
  let work: string
  let output = ''

  beforeAll(async () => {
    if (runProcessSync('java', ['-version']).code !== 0)
      throw new Error('Specmatic needs Java 17: apt-get install -y --no-install-recommends openjdk-17-jre-headless')
    stub = await start({ stub: { apiKeys: [KEY], port: 0 } })
    // Specmatic writes build/reports/ where it runs: a directory of its own.
    work = mkdtempSync(join(tmpdir(), 'specmatic-'))
    const local = join(ROOT, 'node_modules', '.bin', 'specmatic')
    const [command, args] = existsSync(local) ? [local, []] : ['npx', ['--yes', SPECMATIC]]
    // The bearer token comes from an environment variable named after the spec's security scheme.
    const scheme = Object.keys(spec().doc.components.securitySchemes)[0]!
    const result = await runProcess(
      command,
      [...args, 'test', SPEC_PATH, `--testBaseURL=${stub.url}`, `--junitReportDir=${join(work, 'junit')}`],
      { cwd: work, env: { [scheme]: KEY }, timeoutMs: 300_000 },
    )
    output = `${result.stdout}\n${result.stderr}`
  }, 360_000)

  afterAll(async () => {
    await stub?.close()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('runs one test per example pair, inline and external, and every one passes', () => {
    const summary = /Tests run: (\d+), Successes: (\d+), Failures: (\d+), WIP: (\d+), Errors: (\d+)/.exec(output)
    expect(summary, output.slice(-4000)).not.toBeNull()
    const [, total, successes, failures, , errors] = summary!.map(Number)
    const external = readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.json'))
    expect({ failures, errors }, output.slice(-4000)).toEqual({ failures: 0, errors: 0 })
    expect(total).toBe(inlinePairs().length + external.length)
    expect(successes).toBe(total)
  })

  it('tests every documented status of every operation: none is skipped for want of an example', () => {
    expect(output).not.toMatch(/Skipping Scenario/)
    for (const op of Object.values(spec().operations)) {
      for (const status of op.statuses) {
        const method = op.method
        const path = op.path.replace(/\{([^}]+)\}/, '($1:number)')
        expect(output, `${op.operationId} ${status}`).toContain(`Scenario: ${method} ${path} -> ${status} `)
      }
    }
  })
})
