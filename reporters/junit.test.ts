import { describe, expect, it } from 'vitest'
import { standing, type RunResult } from '../model/index.js'
import { toJunit, xmlAttribute, xmlText } from './junit.js'
import { readJunit } from './test-support/junit.js'
import { check, incompleteRun, sampleRun } from './test-support/results.js'

describe('the JUnit report of the sample run', () => {
  const run = sampleRun()
  const junit = readJunit(toJunit(run))

  it('is well-formed XML with one suite and one testcase per check, none per scenario', () => {
    expect(junit.parseError).toBeUndefined()
    expect(junit.root).toBe('testsuites')
    expect(junit.suites.map((s) => s.name)).toEqual(['petstore-conformance'])
    expect(junit.cases.map((c) => [c.classname, c.name])).toEqual(run.checks.map((c) => [c.operationId, c.id]))
  })

  it('carries id, operation, severity, source and outcome as properties of each testcase', () => {
    for (const [i, c] of run.checks.entries()) {
      expect(junit.cases[i]!.properties).toEqual({
        id: c.id,
        operation: c.operationId,
        severity: c.severity,
        source: c.source,
        // A warning (advice that failed, not strict) is no failure: its outcome says `warned`, as its standing does.
        outcome: standing(c, run.strict) === 'warned' ? 'warned' : c.outcome,
      })
    }
    expect(junit.cases.find((c) => c.name === 'getPet.deprecation.headers')!.properties.outcome).toBe('warned')
  })

  it('fails exactly the checks that break conformance, and counts them', () => {
    const failing = run.checks.filter((c) => standing(c, run.strict) === 'failed').map((c) => c.id)
    expect(junit.cases.filter((c) => c.failure).map((c) => c.name)).toEqual(failing)
    expect(junit.totals).toEqual({
      tests: run.checks.length,
      failures: failing.length,
      errors: 0,
      skipped: run.totals.skipped + run.totals.unjudged,
    })
    expect(junit.suites[0]).toMatchObject({ tests: run.checks.length, failures: failing.length })
  })

  it('puts each finding’s message, request line and curl line in the failure', () => {
    const failure = junit.cases.find((c) => c.name === 'createPet.status.201')!.failure!
    expect(failure.message).toBe('2 findings: status 500; documented for createPet: 201, 400, 401')
    expect(failure.type).toBe('fail')
    for (const expected of [
      '1. status 500; documented for createPet: 201, 400, 401',
      'counterexample: {"name":"[REDACTED]","categoryId":0}',
      'request: POST http://127.0.0.1:4010/v1/pets',
      'response: 500 (12 ms)',
      `reproduce: curl -sS -X POST 'http://127.0.0.1:4010/v1/pets' -H "Authorization: Bearer $PETSTORE_API_KEY"`,
      '2. status 200; documented for createPet',
    ]) {
      expect(failure.text).toContain(expected)
    }
  })

  it('shows failed advice as output, not failure, and checks not judged or not applicable as skipped with the reason', () => {
    const advice = junit.cases.find((c) => c.name === 'getPet.deprecation.headers')!
    expect(advice.failure).toBeUndefined()
    expect(advice.systemOut).toMatch(/^warning \(advice, not required by the interface\): /)
    expect(junit.cases.find((c) => c.name === 'createPet.list-after-create')!.skipped!.message).toBe(
      'not applicable: createPet never answered 201, so no created pet could be listed',
    )
    expect(junit.cases.find((c) => c.name === 'getPet.id.int64')!.skipped!.message).toMatch(/^not judged: /)
    expect(junit.suites[0]!.systemErr).toContain(
      'error outside any scenario: scenario "getPet > ids beyond 2^53" did not finish',
    )
  })

  it('fails the advice too when the run is strict', () => {
    const strict = readJunit(toJunit(sampleRun({ strict: true })))
    expect(strict.cases.find((c) => c.name === 'getPet.deprecation.headers')!.failure?.type).toBe('advice')
  })

  it('says the run’s verdict, seed and replay line as suite properties', () => {
    expect(junit.suites[0]!.properties).toMatchObject({
      verdict: 'non-conformant',
      seed: '-154020823',
      replay: 'npx --no-install petstore-conformance --base-url http://127.0.0.1:4010/v1 --seed=-154020823 --runs 30',
    })
  })
})

describe('the JUnit report of an incomplete run', () => {
  it('skips the checks not judged with the stop reason and says the incomplete line', () => {
    const run = incompleteRun()
    const junit = readJunit(toJunit(run))
    expect(junit.totals.failures).toBe(0)
    expect(junit.cases.find((c) => c.name === 'createPet.status.201')!.skipped!.message).toBe(
      'not judged: --max-time 30 s reached',
    )
    expect(junit.suites[0]!.properties).toMatchObject({
      verdict: 'incomplete',
      incomplete: run.incomplete,
      stopped: '--max-time 30 s reached',
    })
    expect(junit.suites[0]!.systemErr).toBe(run.incomplete)
  })

  it('reports a check the kit broke on as an error', () => {
    const run: RunResult = {
      ...incompleteRun(),
      checks: [check('a', { outcome: 'error', reason: 'the check itself failed: TypeError: x' })],
    }
    const junit = readJunit(toJunit(run))
    expect(junit.cases[0]!.error).toEqual({
      message: 'the check itself failed: TypeError: x',
      text: expect.stringContaining('TypeError: x'),
    })
    expect(junit.totals.errors).toBe(1)
  })
})

describe('XML escaping', () => {
  const hostile = `a\u0000b\u0008c\u000bd\u001be\ufffef\uffffg\ud800h\udc00i <&> "q" 'a' ]]> 😀\r\n\tend`

  it('writes every character XML 1.0 forbids as visible text, and keeps the rest', () => {
    const text = xmlText(hostile)
    expect(text).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/)
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)
    expect(text).toBe(
      `a\\u0000b\\u0008c\\u000bd\\u001be\\ufffef\\uffffg\\ud800h\\udc00i &lt;&amp;&gt; "q" 'a' ]]&gt; 😀\n\tend`,
    )
    expect(xmlAttribute('a "b"\n\tc')).toBe('a &quot;b&quot;&#10;&#9;c')
  })

  it('keeps the file well-formed whatever a target sent, in messages, reasons and ids', () => {
    const finding = {
      checkId: hostile,
      severity: 'fail' as const,
      source: 'suite' as const,
      message: hostile,
      curl: hostile,
      counterexample: hostile,
    }
    const run: RunResult = {
      ...sampleRun(),
      checks: [
        check(hostile, { outcome: 'failed', findings: [finding], title: hostile }),
        check('b', { outcome: 'skipped', reason: hostile }),
      ],
    }
    const junit = readJunit(toJunit(run))
    expect(junit.parseError).toBeUndefined()
    expect(junit.cases[0]!.failure!.text).toContain(`i <&> "q" 'a' ]]> 😀\n\tend`)
    expect(junit.cases[1]!.skipped!.message).toContain('<&> "q"')
  })
})

describe('toJunit', () => {
  it('is pure and byte-stable', () => {
    expect(toJunit(sampleRun())).toBe(toJunit(sampleRun()))
  })
})
