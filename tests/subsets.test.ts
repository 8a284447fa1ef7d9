/**
 * Subsets: every `--check` id, every group of checks and every `--operation` value, run in-process against the
 * correct stub, is conformant with every selected check judged, and a narrow selection sends only the scenarios
 * its checks need.
 */
import { describe, expect, it } from 'vitest'
import { runConformance } from '../command/library.js'
import type { RunResult } from '../model/index.js'
import { spec } from '../spec/index.js'
import { createStub } from '../stub/index.js'
import { CHECKS, operationsOn, type Check, type Fact } from '../suites/checks/index.js'
import type { RunConfig } from '../suites/index.js'

const KEY = 'subsets-key-4d2a91'
// Two runs per property: what is tested here is which scenarios a selection sends, not the properties' reach.
const EFFORT = { seed: 20301205, runs: 2, timeoutMs: 1000 }

type Selection = { checks?: string[]; operations?: RunConfig['operations'] }

const run = (selection: Selection) =>
  runConformance({ apiKey: KEY, fetch: createStub({ apiKeys: [KEY] }).fetch, ...EFFORT, ...selection })

/** What a subset must show: conformant, every check it selected judged (passed, or observed, warned). */
const unjudged = (result: RunResult) =>
  result.checks
    .filter((c) => c.outcome === 'unjudged' || c.outcome === 'error' || c.outcome === 'skipped')
    .map((c) => `${c.id}: ${c.outcome} ${c.reason ?? ''}`)

/** A check judged on every exchange of every operation: selecting it alone is selecting every scenario. */
const everywhere = (check: Check) =>
  check.scope === 'transport' ||
  (check.scope === 'exchange' &&
    typeof operationsOn(check.on.operation) === 'string' &&
    !check.on.needs?.length &&
    !check.on.credential)

/** Facts only a few scenarios state: a check that needs one is fed by those alone. */
const RARE: readonly Fact[] = [
  'invalid',
  'unknown',
  'storedAfter',
  'clientId',
  'petIdForm',
  'leeway',
  'otherMethod',
  'pathVariant',
]

/** A check that a few scenarios feed: the run as a whole, a rare fact, or a credential other than the key. */
const narrow = (check: Check) =>
  check.scope === 'run' ||
  (check.scope === 'exchange' &&
    ((check.on.needs ?? []).some((fact: Fact) => RARE.includes(fact)) ||
      (check.on.credential !== undefined && check.on.credential !== 'valid')))

/** Each group, as `--check` selects it: every prefix of check ids (`listPets.limit`, `createPet.auth`) and its checks. */
const groups = [
  ...new Set(
    CHECKS.flatMap((c) => {
      const parts = c.id.split('.')
      return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('.'))
    }),
  ),
].map((prefix): [string, string[]] => [prefix, CHECKS.filter((c) => c.id.startsWith(`${prefix}.`)).map((c) => c.id)])

describe('subsets against the correct stub', () => {
  it('every --check id, every group and every --operation is conformant, judges all it selects, and a narrow one sends little', async () => {
    const full = await run({})
    expect(full.verdict).toBe('conformant')
    const problems: string[] = []
    const selections: [string, Selection, Check | undefined][] = [
      ...CHECKS.map((c): [string, Selection, Check] => [`--check ${c.id}`, { checks: [c.id] }, c as Check]),
      ...groups.map(([g, ids]): [string, Selection, undefined] => [`--check ${g}`, { checks: ids }, undefined]),
      ...(Object.keys(spec().operations) as RunConfig['operations']).map((op): [string, Selection, undefined] => [
        `--operation ${op}`,
        { operations: [op] },
        undefined,
      ]),
    ]
    for (const [name, selection, check] of selections) {
      const result = await run(selection)
      if (result.verdict !== 'conformant') problems.push(`${name}: ${result.verdict} ${result.incomplete ?? ''}`)
      for (const u of unjudged(result)) problems.push(`${name}: ${u}`)
      // Fewer requests than a full run unless the check applies everywhere; a third at most for a narrow one.
      const most =
        check && narrow(check) ? full.requestsSent / 3 : check && !everywhere(check) ? full.requestsSent - 1 : Infinity
      if (result.requestsSent > most)
        problems.push(`${name}: ${result.requestsSent} requests of a full run's ${full.requestsSent}`)
    }
    expect(problems).toEqual([])
  }, 120_000)
})
