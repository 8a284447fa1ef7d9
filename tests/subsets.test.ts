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
import { catalogue, needed, SCENARIOS, type RunConfig } from '../suites/index.js'

const KEY = 'subsets-key-4d2a91'
// Two runs per property: what is tested here is which scenarios a selection sends, not the properties' reach.
const EFFORT = { seed: 20301205, runs: 2, timeoutMs: 1000 }

type Selection = { checks?: string[]; operations?: RunConfig['operations'] }

const run = (selection: Selection) =>
  runConformance({ apiKey: KEY, fetch: createStub({ apiKeys: [KEY] }).fetch, ...EFFORT, ...selection })

/**
 * What a subset must show: conformant, every check it selected judged (passed, or observed, warned), or skipped
 * because the operations selected give it nothing to judge (scope checks of undeprecated operations, with getPet alone)
 * or the stub's pets leave no empty result.
 */
const unjudged = (result: RunResult, ids?: readonly string[]) =>
  result.checks
    .filter((c) => !ids || ids.includes(c.id))
    .filter(
      (c) =>
        c.outcome === 'unjudged' ||
        c.outcome === 'error' ||
        (c.outcome === 'skipped' &&
          !/^not applicable: .* every operation judged/.test(c.reason ?? '') &&
          // The stub's fixture pets hold every status: no listing can be empty, and the report says so.
          !(c.id === 'listPets.empty-is-array' && /no empty result to judge$/.test(c.reason ?? ''))),
    )
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

/** The scenarios a selection of checks (over every operation) runs, by name. */
const scenariosFor = (ids: readonly string[]) => {
  const checks = CHECKS.filter((c) => ids.includes(c.id)) as Check[]
  const operations = Object.keys(spec().operations) as RunConfig['operations']
  return SCENARIOS.filter((s) => needed(s, checks, operations)).map((s) => s.name)
}

describe('subsets against the correct stub', () => {
  it('every --check id, every group and every --operation is conformant, judges all it selects, and a narrow one sends little', async () => {
    const full = await run({})
    expect(full.verdict).toBe('conformant')
    const problems: string[] = []
    const selections: [string, string[], Check | undefined][] = [
      ...CHECKS.map((c): [string, string[], Check] => [`--check ${c.id}`, [c.id], c as Check]),
      ...groups.map(([g, ids]): [string, string[], undefined] => [`--check ${g}`, ids, undefined]),
    ]
    // Selections that run the same scenarios send the same requests, and each check is judged on them as it would
    // be alone (a check never changes what is sent): one run per set of scenarios, with every check they select.
    const bySet = new Map<string, string[]>()
    for (const [, ids] of selections) {
      const key = scenariosFor(ids).join('\n')
      bySet.set(key, [...new Set([...(bySet.get(key) ?? []), ...ids])])
    }
    const results = new Map<string, RunResult>()
    for (const [key, ids] of bySet) results.set(key, await run({ checks: ids }))
    for (const [name, ids, check] of selections) {
      const set = scenariosFor(ids)
      if (!set.length) problems.push(`${name}: no scenario feeds it`)
      const result = results.get(set.join('\n'))!
      if (result.verdict !== 'conformant') problems.push(`${name}: ${result.verdict} ${result.incomplete ?? ''}`)
      for (const u of unjudged(result, ids)) problems.push(`${name}: ${u}`)
      // Fewer requests than a full run unless the check applies everywhere; a third at most for a narrow one.
      const most =
        check && narrow(check) ? full.requestsSent / 3 : check && !everywhere(check) ? full.requestsSent - 1 : Infinity
      if (result.requestsSent > most)
        problems.push(`${name}: ${result.requestsSent} requests of a full run's ${full.requestsSent}`)
    }
    for (const op of Object.keys(spec().operations) as RunConfig['operations']) {
      const result = await run({ operations: [op] })
      if (result.verdict !== 'conformant')
        problems.push(`--operation ${op}: ${result.verdict} ${result.incomplete ?? ''}`)
      for (const u of unjudged(result)) problems.push(`--operation ${op}: ${u}`)
      // Its catalogue is all it judges: no check of another operation, on what its scenarios sent to set up or look.
      const listed = catalogue({ checks: [], operations: [op], viaPrism: false }, spec()).map((c) => c.id)
      const outside = result.checks.filter((c) => !listed.includes(c.id)).map((c) => c.id)
      if (outside.length) problems.push(`--operation ${op}: judged checks it does not list: ${outside}`)
      if (result.requestsSent >= full.requestsSent) problems.push(`--operation ${op}: as many requests as a full run`)
    }
    // The runs above: one per set of scenarios, not one per selection.
    expect(bySet.size).toBeLessThan(selections.length / 2)
    expect(problems).toEqual([])
  }, 120_000)
})
