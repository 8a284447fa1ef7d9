// Prism's verdict on the way into the engine, with no Prism process: a Fetch handler answers as Prism's tap does
// (the target's answer plus `sl-violations`), and the run is wired as `--via-prism` wires it.
import { describe, expect, it } from 'vitest'
import { recordAllowances, Scenario, startRun, type FetchHandler, type RunConfig } from '../index.js'
import { MountedTransport } from '../transport/mounted.js'
import { PrismOpinion } from './opinion.js'
import { PRISM_CHECKS, VIOLATIONS_HEADER } from './violations.js'

const KEY = 'prism-opinion-key'
const OPTIONS = { baseUrl: 'http://target.invalid/v1', apiKey: KEY, timeoutMs: 1000 }

// As Prism 5.14.2 sent them: a pet of an unknown status in a list, and bad input the suite sent on purpose.
const VERDICTS = {
  badEnum: JSON.stringify([
    {
      location: ['response', 'body', '0', 'status'],
      severity: 'Error',
      code: 'enum',
      message: 'Response body property 0.status must be equal to one of the allowed values: available, pending, sold',
    },
  ]),
  requestOnly: JSON.stringify([
    {
      location: ['request', 'query', 'limit'],
      severity: 'Error',
      code: 'minimum',
      message: 'Request query parameter limit must be >= 1',
    },
  ]),
}
const LOST = '[{"id":1,"name":"Rex","status":"lost"}]'

/** Answers every request with `body`, and Prism's verdict when one is given. */
function answering(body: string, verdict?: string): FetchHandler {
  return async () =>
    new Response(body, {
      status: 200,
      headers: {
        'content-type': 'application/json',
        ...(verdict === undefined ? {} : { [VIOLATIONS_HEADER]: verdict }),
      },
    })
}

const send = (handler: FetchHandler) =>
  new PrismOpinion(new MountedTransport(handler, OPTIONS)).send({
    operationId: 'listPets',
    method: 'GET',
    path: '/pets',
  })

describe('PrismOpinion', () => {
  it('gives every Prism check a verdict on the exchange, with a message where Prism found a violation', async () => {
    const exchange = await send(answering(LOST, VERDICTS.badEnum))
    expect(exchange.secondOpinion?.map((o) => o.checkId)).toEqual(PRISM_CHECKS.map((c) => c.id))
    expect(exchange.secondOpinion?.filter((o) => o.message !== undefined)).toEqual([
      {
        checkId: 'prism.response-body',
        title: PRISM_CHECKS.find((c) => c.id === 'prism.response-body')!.title,
        message: expect.stringContaining('[Prism Error enum at response.body.0.status]'),
      },
    ])
    expect(exchange.response?.rawBody).toBe(LOST) // the target's answer, untouched
  })

  it('passes every Prism check when Prism judged and found nothing, or only request-side violations', async () => {
    for (const verdict of ['[]', VERDICTS.requestOnly]) {
      const exchange = await send(answering('[]', verdict))
      expect(exchange.secondOpinion).toEqual(PRISM_CHECKS.map(({ id, title }) => ({ checkId: id, title })))
    }
  })

  it('gives no opinion when the answer carries no verdict (Prism did not judge it)', async () => {
    expect((await send(answering('[]'))).secondOpinion).toBeUndefined()
  })
})

describe('a run with viaPrism', () => {
  const config: RunConfig = {
    ...OPTIONS,
    seed: 1,
    runs: 1,
    concurrency: 2,
    checks: [],
    operations: [],
    strict: false,
    viaPrism: true,
    runId: 'prismopinion',
    allowances: recordAllowances(1),
  }

  it("records Prism's verdicts as checks of source prism: failed with the finding where it found one, passed elsewhere", async () => {
    const run = startRun(config, answering(LOST, VERDICTS.badEnum))
    const scenario = new Scenario(run, run.recorder('prism opinion', 'list'))
    await scenario.listPets()
    await scenario.listPets([['limit', '5']])
    await run.transport.close()
    const prism = scenario.recorder.record().checks.filter((c) => c.source === 'prism')
    expect(prism.map((c) => [c.id, c.outcome, c.exchanges, c.severity, c.operationId])).toEqual(
      PRISM_CHECKS.map((c) => [c.id, c.id === 'prism.response-body' ? 'failed' : 'passed', 2, 'fail', 'all']),
    )
    const [finding, ...more] = prism.find((c) => c.id === 'prism.response-body')!.findings
    expect(more).toEqual([]) // the same violation twice is one finding
    expect(finding).toMatchObject({
      checkId: 'prism.response-body',
      operationId: 'listPets',
      severity: 'fail',
      source: 'prism',
    })
    expect(finding!.exchange?.response?.rawBody).toBe(LOST)
  })
})
