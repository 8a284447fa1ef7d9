import { describe, expect, it } from 'vitest'
import { spec, type JsonValue } from '../spec/index.js'
import type { App } from './app.js'
import { FAULTS, isFaultName, type FaultName } from './faults.js'
import { startStub } from './index.js'
import { serve } from './server.js'
import type { PetRecord } from './store.js'
import { AUTH, JSON_AUTH, KEY, call, makeApp } from './testing.js'

/** Sixty pets, so that limits of 50 and 100 can be told apart. */
const SIXTY: PetRecord[] = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, name: `Pet ${i + 1}`, categoryId: i, status: spec().enumOf('PetStatus')[i % 3]! }))

const list = async (app: App, query = '', headers: Record<string, string> = AUTH) => (await call(app, 'GET', `/v1/pets${query}`, { headers })).body as JsonValue
const count = async (app: App, query = '') => {
  const body = await list(app, query)
  return Array.isArray(body) ? body.length : -1
}
const create = (app: App, body: string, headers: Record<string, string> = JSON_AUTH) => call(app, 'POST', '/v1/pets', { headers, body })

/**
 * For each fault, a probe that holds on a correct app and breaks under that fault. `seed` picks the pets
 * the app starts with (the fixture seed by default).
 */
const PROBES: Record<FaultName, { seed?: PetRecord[]; holds: (app: App) => Promise<boolean> }> = {
  'list-wrapped': { holds: async (app) => Array.isArray(await list(app)) },
  'create-200': { holds: async (app) => (await create(app, '{"name":"a","categoryId":1}')).status === 201 },
  'no-auth-list': { holds: async (app) => (await call(app, 'GET', '/v1/pets')).status === 401 },
  'no-auth-create': {
    holds: async (app) => {
      const before = app.store.size
      const answer = await create(app, '{"name":"a","categoryId":1}', { 'content-type': 'application/json' })
      return answer.status === 401 && app.store.size === before
    },
  },
  'unauth-create-stores': {
    holds: async (app) => {
      const before = app.store.size
      const answer = await create(app, '{"name":"a","categoryId":1}', { 'content-type': 'application/json', authorization: 'Bearer nope' })
      return answer.status === 401 && app.store.size === before
    },
  },
  'wrong-key-accepted': { holds: async (app) => (await call(app, 'GET', '/v1/pets', { headers: { authorization: 'Bearer nope' } })).status === 401 },
  'error-status-mismatch': { holds: async (app) => ((await call(app, 'GET', '/v1/pets/999', { headers: AUTH })).body as { status: number }).status === 404 },
  'error-shape': { holds: async (app) => spec().schema('Error')((await call(app, 'GET', '/v1/pets/999', { headers: AUTH })).body!).length === 0 },
  'limit-ignored': { holds: async (app) => (await count(app, '?limit=5')) === 5 },
  'default-limit-50': { seed: SIXTY, holds: async (app) => (await count(app)) === 20 },
  'limit-short': { holds: async (app) => (await count(app, '?limit=5')) === 5 },
  'limit-cap-50': { seed: SIXTY, holds: async (app) => (await count(app, '?limit=100')) === 60 },
  'filter-ignored': { holds: async (app) => ((await list(app, '?status=sold')) as { status?: string }[]).every((p) => p.status === 'sold') },
  'id-missing': { holds: async (app) => 'id' in ((await create(app, '{"name":"a","categoryId":1}')).body as object) },
  'int64-precision': { holds: async (app) => (await create(app, '{"name":"a","categoryId":9223372036854775807}')).text.includes('"categoryId":9223372036854775807') },
  'status-dropped': { holds: async (app) => ((await create(app, '{"name":"a","categoryId":1,"status":"sold"}')).body as { status?: string }).status === 'sold' },
  'name-truncated': {
    holds: async (app) => {
      const name = 'N'.repeat(40)
      const created = (await create(app, `{"name":"${name}","categoryId":1}`)).body as { id: number; name: string }
      return created.name === name && ((await call(app, 'GET', `/v1/pets/${created.id}`, { headers: AUTH })).body as { name: string }).name === name
    },
  },
  'accepts-invalid-status': { holds: async (app) => (await create(app, '{"name":"a","categoryId":1,"status":"lost"}')).status === 400 },
  'missing-field-500': { holds: async (app) => (await create(app, '{"categoryId":1}')).status === 400 },
  'create-not-stored': {
    holds: async (app) => {
      const created = (await create(app, '{"name":"a","categoryId":1}')).body as { id: number }
      return (await call(app, 'GET', `/v1/pets/${created.id}`, { headers: AUTH })).status === 200
    },
  },
  'duplicate-ids': {
    holds: async (app) => {
      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => create(app, `{"name":"c${i}","categoryId":1}`)))
      return new Set(answers.map((a) => (a.body as { id: number }).id)).size === 5
    },
  },
  'text-content-type': { holds: async (app) => (await call(app, 'GET', '/v1/pets', { headers: AUTH })).headers['content-type'] === 'application/json; charset=utf-8' },
  'not-found-empty': { holds: async (app) => (await call(app, 'GET', '/v1/pets/999', { headers: AUTH })).text !== '' },
  'get-wrong-pet': { holds: async (app) => ((await call(app, 'GET', '/v1/pets/1', { headers: AUTH })).body as { id: number }).id === 1 },
  hangs: { holds: async (app) => (await call(app, 'GET', '/v1/pets/999', { headers: AUTH })).status === 404 },
  'drops-connection': { holds: async (app) => (await call(app, 'GET', '/v1/pets?status=pending', { headers: AUTH })).status === 200 },
}

describe('faults', () => {
  it('has a probe for every fault, and every fault has a one-line description', () => {
    expect(Object.keys(PROBES).sort()).toEqual(Object.keys(FAULTS).sort())
    for (const [name, what] of Object.entries(FAULTS)) {
      expect(isFaultName(name)).toBe(true)
      expect(what).not.toMatch(/\n/)
    }
    expect(isFaultName('toString')).toBe(false)
  })

  it.each(Object.keys(FAULTS) as FaultName[])('%s: the probe holds without the fault and breaks with it', async (fault) => {
    const { seed, holds } = PROBES[fault]
    expect(await holds(makeApp({ seed }))).toBe(true)
    expect(await holds(makeApp({ seed, fault }))).toBe(false)
  })

  it('hangs: over HTTP, an unknown pet gets no answer at all', async () => {
    let handled: () => void = () => undefined
    const arrived = new Promise<void>((resolve) => (handled = resolve))
    const running = await serve(makeApp({ fault: 'hangs' }), { port: 0, host: '127.0.0.1', log: (line) => line.includes('/pets/999 hang') && handled() })
    let answered = false
    const pending = fetch(`${running.url}/pets/999`, { headers: AUTH }).then(
      () => (answered = true),
      () => undefined,
    )
    await arrived // the stub has the request and chose not to answer
    expect((await fetch(`${running.url}/pets/1`, { headers: AUTH })).status).toBe(200) // known pets still answer
    await running.close(100) // ends the hanging connection after a short grace
    await pending
    expect(answered).toBe(false)
  })

  it('drops-connection: over HTTP, the socket closes without an answer', async () => {
    const stub = await startStub({ apiKeys: [KEY], fault: 'drops-connection' })
    try {
      await expect(fetch(`${stub.url}/pets?status=pending`, { headers: AUTH })).rejects.toThrow()
      expect((await fetch(`${stub.url}/pets?status=sold`, { headers: AUTH })).status).toBe(200)
    } finally {
      await stub.close()
    }
  })
})
