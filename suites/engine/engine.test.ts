/**
 * The engine against the stub mounted in-process (and against targets that misbehave): the facts it derives for
 * each exchange, judging again when a scenario learns more, premises a target removed, a scenario that breaks,
 * and runs that must stop (deadline, throttled throughout, a target gone) ending `incomplete`, never `conformant`.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { buildRunResult, keySecrets, Redactor, type RunResult, type ScenarioRecord } from '../../model/index.js'
import { parseSpec, spec, SPEC_PATH, type JsonValue } from '../../spec/index.js'
import { createStub } from '../../stub/index.js'
import { everything, slow, tooMany, type FetchHandler } from '../../test-support/misbehaving.js'
import { catalogueFor, checkById, listedOperation, type Check, type CheckId } from '../checks/index.js'
import { idOf } from '../checks/util.js'
import { runAll } from '../index.js'
import { MountedTransport } from '../transport/mounted.js'
import { PoliteTransport, type Manners } from '../transport/polite.js'
import { recordAllowances, type RunConfig } from './config.js'
import { NotSent, provokable, Run, RUN_LEVEL } from './run.js'
import { feeds } from './selection.js'
import { runScenario, Scenario, scenario } from './scenario.js'

const KEY = 'engine-test-key-4f0c'

function config(more: Partial<RunConfig> = {}): RunConfig {
  return {
    baseUrl: 'http://engine.invalid/v1',
    apiKey: KEY,
    seed: 7,
    runs: 2,
    timeoutMs: 1000,
    concurrency: 4,
    checks: [],
    operations: [],
    strict: false,
    viaPrism: false,
    runId: 'enginetest',
    allowances: recordAllowances(2),
    ...more,
  }
}

function runOver(handler: FetchHandler, more: Partial<RunConfig> = {}, manners: Partial<Manners> = {}): Run {
  const c = config(more)
  const inner = new MountedTransport(handler, { baseUrl: c.baseUrl, apiKey: KEY, timeoutMs: c.timeoutMs })
  return new Run(c, new PoliteTransport(inner, { concurrency: c.concurrency, ...manners }))
}

/** A fresh stub with no seed pets (facts about what exists are then exactly what the test made). */
const emptyStub = () => createStub({ apiKeys: [KEY], seed: false })

function handleOn(run: Run, name = 'engine test'): Scenario {
  return new Scenario(run, run.recorder(name, 'create'))
}

const newPet = (name: string, more: Record<string, JsonValue> = {}): JsonValue => ({
  name: `pcs-enginetest-${name}`,
  categoryId: 1,
  ...more,
})

function resultOf(run: Run, records: ScenarioRecord[]): RunResult {
  const selected = catalogueFor(run.spec).filter((c) => !run.config.checks.length || run.config.checks.includes(c.id))
  const catalogue = selected.map((c) => ({
    id: c.id,
    title: c.title,
    operationId: listedOperation(c.on.operation),
    severity: c.severity,
    source: 'suite' as const,
  }))
  return buildRunResult(
    records,
    {
      tool: { name: 'engine-test', version: '0' },
      target: { baseUrl: run.config.baseUrl, embedded: false },
      runId: run.config.runId,
      seed: run.config.seed,
      runs: run.config.runs,
      recordBudget: 0,
      viaPrism: false,
      strict: false,
      specVersion: spec().version,
      operationOrder: Object.keys(spec().operations),
      notices: [],
      startedAt: '',
      durationMs: 0,
      catalogue,
      runErrors: [],
      ...(run.stopped ? { stopped: run.stopped } : {}),
    },
    new Redactor(keySecrets(KEY)),
  )
}

const outcomeOf = (record: ScenarioRecord, id: string) => record.checks.find((c) => c.id === id)?.outcome

describe('facts the engine derives', () => {
  it('listPets: limit and status from the query, outside their range named instead', async () => {
    const run = runOver(emptyStub().fetch)
    const s = handleOn(run)
    const facts = async (query: [string, string][]) => run.factsOf.get(await s.listPets(query))!
    expect(
      await facts([
        ['limit', '5'],
        ['status', 'pending'],
      ]),
    ).toMatchObject({ limit: 5, status: 'pending' })
    const zero = await facts([['limit', '0']])
    expect(zero.outOfRange).toEqual(['limit'])
    expect(zero.limit).toBeUndefined()
    const bogus = await facts([
      ['status', 'bogus'],
      ['limit', '101'],
    ])
    expect([...bogus.outOfRange!].sort()).toEqual(['limit', 'status'])
    expect(bogus.status).toBeUndefined()
    expect((await facts([])).limit).toBeUndefined()
  })

  it('atLeast: every pet seen (unfiltered), or the run’s own pets of the filtered status', async () => {
    const run = runOver(createStub({ apiKeys: [KEY] }).fetch)
    const s = handleOn(run)
    const first = await s.listPets([['limit', '100']])
    expect(run.factsOf.get(first)!.atLeast).toBe(0) // nothing was known when it left
    const held = (first.json.kind === 'json' ? (first.json.value as JsonValue[]) : []).length
    await s.createValid(newPet('a', { status: 'pending' }))
    await s.createValid(newPet('b', { status: 'sold' }))
    expect(run.factsOf.get(await s.listPets())!.atLeast).toBe(held + 2)
    expect(run.factsOf.get(await s.listPets([['status', 'pending']]))!.atLeast).toBe(1)
  })

  it('created: the pets whose create had completed when the list was sent, not those completed while it was under way', async () => {
    const stub = emptyStub()
    // listPets answers late: a create sent after it completes before it.
    const handler: FetchHandler = (request) =>
      request.method === 'GET' ? slow(stub.fetch, 80)(request) : stub.fetch(request)
    const run = runOver(handler)
    const s = handleOn(run)
    const a = await s.createValid(newPet('before'))
    const [listing, b] = await Promise.all([
      s.listPets(),
      new Promise((r) => setTimeout(r, 10)).then(() => s.createValid(newPet('during'))),
    ])
    expect(b.exchange.response?.status).toBe(201)
    const created = run.factsOf.get(listing)!.created!.map(idOf)
    expect(created).toEqual([idOf(a.pet)])
    // It was judged on that snapshot: the pet created meanwhile is not required on the page.
    expect(outcomeOf(s.recorder.record(), 'listPets.finds-created')).toBe('passed')
  })

  it('takenIds: the ids of the run’s earlier creates, not the create’s own', async () => {
    const run = runOver(emptyStub().fetch)
    const s = handleOn(run)
    const first = await s.createValid(newPet('one'))
    const second = await s.createValid(newPet('two'))
    expect([...run.factsOf.get(first.exchange)!.takenIds!]).toEqual([])
    expect([...run.factsOf.get(second.exchange)!.takenIds!]).toEqual([idOf(first.pet)])
  })

  it('expected for a pet the run created; existing for one it found held before', async () => {
    const stub = createStub({ apiKeys: [KEY] })
    const run = runOver(stub.fetch)
    const s = handleOn(run)
    const listing = await s.listPets([['limit', '1']])
    const heldId = idOf((listing.json.kind === 'json' ? (listing.json.value as JsonValue[]) : [])[0])!
    const { pet } = await s.createValid(newPet('mine'))
    const mine = run.factsOf.get(await s.getPet(idOf(pet)!))!
    expect(mine.expected).toEqual(pet)
    expect(mine.existing).toBeUndefined()
    const held = run.factsOf.get(await s.getPet(heldId))!
    expect(idOf(held.existing)).toBe(heldId)
    expect(held.expected).toBeUndefined()
    const record = s.recorder.record()
    expect(outcomeOf(record, 'getPet.returns-created')).toBe('passed')
    expect(outcomeOf(record, 'getPet.keeps-existing')).toBe('passed')
  })
})

describe('judging', () => {
  it('know(): a check that needed a later fact is judged when the scenario states it, and can fail then', async () => {
    const run = runOver(emptyStub().fetch)
    const s = handleOn(run)
    const refused = await s.createInvalid('{"name": 5}', 'name is not a string')
    expect(refused.response?.status).toBe(400)
    expect(outcomeOf(s.recorder.record(), 'createPet.rejects-invalid')).toBe('passed')
    expect(outcomeOf(s.recorder.record(), 'createPet.invalid-stores-nothing')).toBeUndefined()
    s.know(refused, { storedAfter: null })
    expect(outcomeOf(s.recorder.record(), 'createPet.invalid-stores-nothing')).toBe('passed')
    s.know(refused, { storedAfter: { id: 9, name: 'stored anyway' } })
    const record = s.recorder.record()
    expect(outcomeOf(record, 'createPet.invalid-stores-nothing')).toBe('failed')
    // The earlier facts stay: the re-judged check saw `invalid` too.
    expect(run.factsOf.get(refused)).toMatchObject({ invalid: 'name is not a string', storedAfter: { id: 9 } })
  })

  it('premiseMissing(): a check the target left nothing to judge is skipped with the reason, unless it was judged', async () => {
    const run = runOver(emptyStub().fetch)
    const s = handleOn(run)
    s.premiseMissing(['createPet.invalid-stores-nothing'], 'no way to look for a stored pet')
    expect(s.recorder.record().checks.find((c) => c.id === 'createPet.invalid-stores-nothing')).toMatchObject({
      outcome: 'skipped',
      reason: 'no way to look for a stored pet',
    })
    const refused = await s.createInvalid('{}', 'empty')
    s.know(refused, { storedAfter: null })
    s.premiseMissing(['createPet.invalid-stores-nothing'], 'said too late')
    expect(outcomeOf(s.recorder.record(), 'createPet.invalid-stores-nothing')).toBe('passed')
  })

  it('a check whose premise the answers lack is skipped with the reason, never passed, and leaves the run complete', async () => {
    const run = runOver(emptyStub().fetch, { checks: ['listPets.limit.max'] })
    const record = await runScenario(
      run,
      scenario({
        name: 'an empty store',
        area: 'list',
        operations: ['listPets'],
        run: async (s) => void (await s.listPets([['limit', '3']])),
      }),
    )
    const check = record.checks.find((c) => c.id === 'listPets.limit.max')!
    expect(check.outcome).toBe('skipped')
    expect(check.reason).toBe(
      'not judged: GET /pets?limit=3 returned 0 pets, fewer than limit: nothing beyond it to cut',
    )
    expect(resultOf(run, [record]).verdict).toBe('conformant')
  })

  it('a scenario that throws: an error outcome of its own, and the checks it judged before keep their verdicts', async () => {
    const run = runOver(emptyStub().fetch, { checks: ['listPets.valid-query-accepted', 'response.schema'] })
    const record = await runScenario(
      run,
      scenario({
        name: 'breaks halfway',
        area: 'list',
        operations: ['listPets'],
        run: async (s) => {
          await s.listPets([['limit', '3']])
          throw new TypeError('the scenario itself is broken')
        },
      }),
    )
    expect(record.checks.find((c) => c.outcome === 'error')?.reason).toMatch(
      /^the suite itself failed: TypeError: the scenario itself is broken/,
    )
    expect(outcomeOf(record, 'listPets.valid-query-accepted')).toBe('passed')
    expect(outcomeOf(record, 'response.schema')).toBe('passed')
    // A run with a broken scenario is never conformant.
    expect(resultOf(run, [record]).verdict).toBe('incomplete')
  })
})

describe('runs that must stop', () => {
  it('past the deadline nothing is sent (NotSent), the run says why, and the verdict is incomplete with the unjudged checks named', async () => {
    const stub = emptyStub()
    const run = runOver(slow(stub.fetch, 20), { deadline: Date.now() + 150 })
    const records = await runAll(run)
    const last = records.at(-1)!
    expect(last.scenario).toBe(RUN_LEVEL)
    expect(last.stopped).toBe('--max-time reached before every check was judged')
    expect(
      records.some((r) => r.stopped === '--max-time reached before every check was judged' && r.scenario !== RUN_LEVEL),
    ).toBe(true)
    await expect(run.send({ operationId: 'listPets', method: 'GET', path: '/pets' }, 'list')).rejects.toBeInstanceOf(
      NotSent,
    )
    const result = resultOf(run, records)
    console.log(
      result.checks.filter((c) => c.outcome === 'failed').map((c) => [c.id, c.findings.map((f) => f.message)]),
    )
    expect(result.verdict).toBe('incomplete')
    expect(result.incomplete).toMatch(/--max-time reached/)
    expect(result.checks.some((c) => c.outcome === 'unjudged')).toBe(true)
  })

  it('an interrupted scenario hands over what it judged at once, and the run sends nothing more', async () => {
    const run = runOver(slow(emptyStub().fetch, 20))
    const stop = new AbortController()
    const handed: ScenarioRecord[] = []
    let sent = 0
    const spec = scenario({
      name: 'interrupted',
      area: 'list',
      operations: ['listPets'],
      run: async (s) => {
        for (;;) {
          await s.listPets()
          if (++sent === 3) stop.abort()
        }
      },
    })
    const finished = runScenario(run, spec, { signal: stop.signal, record: (r) => handed.push(r) })
    await expect.poll(() => handed.length).toBe(1)
    expect(handed[0]!.stopped).toBe('the run was interrupted before every scenario finished')
    expect(handed[0]!.checks.some((c) => c.outcome === 'passed')).toBe(true)
    const record = await finished
    expect(sent).toBe(3)
    expect(record.stopped).toBe(handed[0]!.stopped)
    expect(run.stopped).toBe('the run was interrupted before every scenario finished')
    await expect(run.send({ operationId: 'listPets', method: 'GET', path: '/pets' }, 'list')).rejects.toBeInstanceOf(
      NotSent,
    )
  })

  it('a target throttling throughout: the 429 is never judged, the run stops, incomplete', async () => {
    const run = runOver(async () => tooMany('none'), {}, { minWaitMs: 5, maxWaitMs: 20, giveUpAfterMs: 200 })
    const s = handleOn(run)
    await expect(s.listPets()).rejects.toBeInstanceOf(NotSent)
    expect(run.stopped).toMatch(/^rate-limited throughout/)
    // Nothing judged: a 429 is not a finding.
    expect(s.recorder.record().checks.filter((c) => c.outcome !== 'skipped')).toEqual([])
    const result = resultOf(run, [s.recorder.record(), run.finish()])
    expect(result.verdict).toBe('incomplete')
    expect(result.checks.filter((c) => c.outcome === 'failed')).toEqual([])
  })

  it('a target that stops answering: after a few transport errors in a row the run stops sending', async () => {
    const run = runOver(async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('closed'), { code: 'UND_ERR_SOCKET' }) })
    })
    const records = await runAll(run)
    expect(run.stopped).toMatch(/^the target stopped answering/)
    const result = resultOf(run, records)
    // What it did answer (nothing) failed transport.ok: non-conformant, with the request in the report.
    expect(result.verdict).toBe('non-conformant')
    expect(result.checks.find((c) => c.id === 'transport.ok')?.findings[0]?.exchange?.error).toBe(
      'connection closed before a complete response (reset)',
    )
  })

  it('a wrong-key target (every request 401) is judged without crashing; the command’s preflight stops it first', async () => {
    const run = runOver(everything(401, JSON.stringify({ code: 'unauthorized', message: 'no', status: 401 })))
    const result = resultOf(run, await runAll(run))
    expect(['non-conformant', 'incomplete']).toContain(result.verdict)
  })
})

describe('which scenarios a selection needs', () => {
  const every = ['listPets', 'createPet', 'getPet'] as const
  const check = (id: CheckId): Check => checkById(id) as Check

  it("reads a check's on against what a scenario sends: its operations, credential kind and facts", () => {
    const assigns = check('createPet.assigns-id')
    expect(feeds({ operations: ['createPet', 'getPet'], states: ['sent', 'clientId'] }, assigns, every)).toBe(true)
    // Valid creates without an id of the client's: nothing for it to judge.
    expect(feeds({ operations: ['createPet', 'getPet'], states: ['sent'] }, assigns, every)).toBe(false)
    const auth = check('listPets.auth.required')
    expect(feeds({ operations: ['listPets'] }, auth, every)).toBe(false)
    expect(feeds({ operations: ['listPets'], credentials: ['invalid'] }, auth, every)).toBe(true)
    expect(feeds({ operations: ['listPets'], credentials: ['scheme-case'] }, check('auth.scheme-case'), every)).toBe(
      true,
    )
    // Cross-cutting checks are fed by every scenario of a selected operation.
    expect(feeds({ operations: ['getPet'] }, check('response.schema'), every)).toBe(true)
    expect(feeds({ operations: ['getPet'] }, check('response.schema'), ['listPets'])).toBe(false)
  })

  it('derives facts from what a scenario calls: the pet a getPet should return needs a create too', () => {
    const returns = check('getPet.returns-created')
    expect(feeds({ operations: ['getPet'] }, returns, every)).toBe(false)
    expect(feeds({ operations: ['getPet'], uses: ['createPet'] }, returns, every)).toBe(true)
    // An operation it only uses selects it for no check of that operation.
    expect(feeds({ operations: ['getPet'], uses: ['listPets'] }, check('listPets.limit.max'), every)).toBe(false)
    expect(feeds({ operations: ['listPets'] }, check('listPets.limit.max'), every)).toBe(true)
  })

  it('a run-level check is fed by the scenarios it names: every status provoked, ids read one create at a time', () => {
    const coverage = check('coverage.documented-statuses')
    const provokes = { operations: every, states: ['sent', 'invalid', 'unknown'] as const }
    expect(feeds({ ...provokes, credentials: ['valid', 'invalid'] }, coverage, every)).toBe(true)
    expect(feeds(provokes, coverage, every)).toBe(false)
    expect(feeds({ ...provokes, operations: ['listPets'], credentials: ['valid', 'invalid'] }, coverage, every)).toBe(
      false,
    )
    const ids = check('createPet.id-scheme')
    expect(feeds({ operations: ['createPet'], states: ['sent'] }, ids, every)).toBe(false)
    expect(feeds({ operations: ['createPet'], states: ['sent'], oneAtATime: true }, ids, every)).toBe(true)
  })

  it('a run with --check createPet.assigns-id sends only the scenario that feeds it', async () => {
    const run = runOver(emptyStub().fetch, { checks: ['createPet.assigns-id'] })
    const records = await runAll(run)
    const sent = records.filter((r) => r.requestsSent > 0).map((r) => r.scenario)
    expect(sent).toEqual(['createPet assigns the id itself: an id in the body is not used'])
    expect(records.flatMap((r) => r.checks).find((c) => c.id === 'createPet.assigns-id')?.outcome).toBe('passed')
  })
})

describe('the statuses a run asks to see (coverage.documented-statuses)', () => {
  const revised = (change: (doc: ReturnType<typeof parseDocument>) => void) => {
    const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'))
    change(doc)
    return parseSpec(doc.toString())
  }
  const error = {
    description: 'An error.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  }

  it('are every status of the bundled spec: each has requests of the run that call for it', () => {
    for (const op of Object.values(spec().operations))
      for (const status of op.statuses)
        expect([op.operationId, status, provokable(spec(), op.operationId, status)]).toEqual([
          op.operationId,
          status,
          true,
        ])
  })

  it('leave out a status a revision adds that no request of the run calls for alone', () => {
    const s = revised((doc) => {
      doc.setIn(['paths', '/pets', 'post', 'responses', '409'], doc.createNode(error))
      doc.setIn(['paths', '/pets', 'post', 'responses', '200'], doc.createNode(error))
      doc.setIn(['paths', '/pets', 'get', 'responses', '500'], doc.createNode(error))
      doc.setIn(['paths', '/pets', 'get', 'responses', 'default'], doc.createNode(error))
      doc.setIn(['paths', '/pets', 'get', 'responses', '400'], doc.createNode(error))
      doc.setIn(['paths', '/pets/{petId}', 'get', 'responses', '400'], doc.createNode(error))
    })
    const asked = (op: 'listPets' | 'createPet' | 'getPet') =>
      s.statuses(op).filter((status) => provokable(s, op, status))
    // Two success statuses: valid creates call for either. A bad petId: 400 or 404, both documented.
    expect([asked('listPets'), asked('createPet'), asked('getPet')]).toEqual([
      ['200', '400', '401'],
      ['400', '401'],
      ['200', '401', '404'],
    ])
  })
})
