/**
 * The replay line each failing finding prints is a command that works as printed: its flags are the command's
 * own (parsed as the command parses them), and run as they say, in-process against the same faulty target, they
 * fail the same check with the same counterexample.
 */
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../command/conformance/config.js'
import { runConformance } from '../command/library.js'
import { breaksConformance } from '../model/index.js'
import { replayOf } from '../reporters/text.js'
import { createStub } from '../stub/index.js'

const KEY = 'replay-line-key-81c2'

describe('the replay line of a finding', () => {
  it('parses as the command parses it, and finds the same counterexample again', async () => {
    const first = await runConformance({
      apiKey: KEY,
      fetch: createStub({ apiKeys: [KEY], fault: 'limit-short' }).fetch,
      seed: 77,
      runs: 5,
    })
    const failing = first.checks.filter((c) => breaksConformance(c, first.strict))
    const pairs = failing.flatMap((check) =>
      check.findings.filter((f) => f.seed !== undefined).map((f) => ({ check, finding: f })),
    )
    expect(pairs.length).toBeGreaterThan(0)
    const { check, finding } = pairs[0]!
    const line = replayOf(first, finding)!
    expect(line).not.toMatch(/path/)
    const [, words = ''] = line.split(' petstore-conformance ')
    const config = resolveConfig(words.split(' '), { PETSTORE_API_KEY: KEY })
    expect(config).toMatchObject({ seed: finding.seed, runs: first.runs, checks: [] })
    const again = await runConformance({
      apiKey: KEY,
      fetch: createStub({ apiKeys: [KEY], fault: 'limit-short' }).fetch,
      seed: config.seed,
      runs: config.runs,
      checks: config.checks,
    })
    const same = again.checks.find((c) => c.id === check.id)!
    expect(breaksConformance(same, again.strict)).toBe(true)
    expect(same.findings.map((f) => f.counterexample)).toContain(finding.counterexample)
  })
})
