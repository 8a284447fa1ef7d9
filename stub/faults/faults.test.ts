import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { spec, type JsonValue } from '../../spec/index.js'
import { createStub, startStub, type InProcessStub } from '../stub.js'
import type { PetRecord } from '../store.js'
import { serve } from '../server.js'
import { AUTH, JSON_AUTH, KEY, fetchAnswer } from '../testing.js'
import { FAULTS, isFaultName, type FaultName } from './index.js'

/** Sixty pets, so that limits of 50 and 100 can be told apart. */
const SIXTY: PetRecord[] = Array.from({ length: 60 }, (_, i) => ({
  id: i + 1,
  name: `Pet ${i + 1}`,
  categoryId: i,
  status: spec().enumOf('PetStatus')[i % 3]!,
}))

const call = (
  stub: InProcessStub,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
) => fetchAnswer(stub, new Request(`http://stub.test${path}`, { method, headers: options.headers, body: options.body }))
const list = async (stub: InProcessStub, query = '') =>
  (await call(stub, 'GET', `/v1/pets${query}`, { headers: AUTH })).body as JsonValue
const count = async (stub: InProcessStub, query = '') => {
  const body = await list(stub, query)
  return Array.isArray(body) ? body.length : -1
}
const create = (stub: InProcessStub, body: string, headers: Record<string, string> = JSON_AUTH) =>
  call(stub, 'POST', '/v1/pets', { headers, body })
/** True when the request gets an answer before a short timeout (false for a hang or a dropped connection). */
const answers = (stub: InProcessStub, path: string) =>
  stub.fetch(new Request(`http://stub.test${path}`, { headers: AUTH, signal: AbortSignal.timeout(200) })).then(
    (response) => response.status > 0,
    () => false,
  )

/**
 * For each fault, a probe that holds on a correct stub and breaks under that fault, both reached through
 * `createStub(...).fetch`. `seed` picks the pets the stub starts with (the fixture seed by default).
 */
const PROBES: Record<FaultName, { seed?: PetRecord[]; holds: (stub: InProcessStub) => Promise<boolean> }> = {
  'list-wrapped': { holds: async (stub) => Array.isArray(await list(stub)) },
  'create-200': { holds: async (stub) => (await create(stub, '{"name":"a","categoryId":1}')).status === 201 },
  'no-auth-list': { holds: async (stub) => (await call(stub, 'GET', '/v1/pets')).status === 401 },
  'no-auth-create': {
    holds: async (stub) => {
      const before = stub.store.size
      const answer = await create(stub, '{"name":"a","categoryId":1}', { 'content-type': 'application/json' })
      return answer.status === 401 && stub.store.size === before
    },
  },
  'unauth-create-stores': {
    holds: async (stub) => {
      const before = stub.store.size
      const answer = await create(stub, '{"name":"a","categoryId":1}', {
        'content-type': 'application/json',
        authorization: 'Bearer nope',
      })
      return answer.status === 401 && stub.store.size === before
    },
  },
  'wrong-key-accepted': {
    holds: async (stub) =>
      (await call(stub, 'GET', '/v1/pets', { headers: { authorization: 'Bearer nope' } })).status === 401,
  },
  'error-status-mismatch': {
    holds: async (stub) =>
      ((await call(stub, 'GET', '/v1/pets/999', { headers: AUTH })).body as { status: number }).status === 404,
  },
  'error-shape': {
    holds: async (stub) =>
      spec().schema('Error')((await call(stub, 'GET', '/v1/pets/999', { headers: AUTH })).body!).length === 0,
  },
  'unauthorized-without-status': {
    holds: async (stub) => ((await call(stub, 'GET', '/v1/pets')).body as { status?: number }).status === 401,
  },
  'list-redirect': { holds: async (stub) => (await call(stub, 'GET', '/v1/pets', { headers: AUTH })).status === 200 },
  'slash-redirect': {
    holds: async (stub) => (await call(stub, 'GET', '/v1/pets/1', { headers: AUTH })).status === 200,
  },
  'list-keeps-available': {
    holds: async (stub) => ((await list(stub, '?limit=100')) as { status?: string }[]).some((p) => p.status === 'sold'),
  },
  'empty-list-null': { seed: [], holds: async (stub) => Array.isArray(await list(stub)) },
  'limit-ignored': { holds: async (stub) => (await count(stub, '?limit=5')) === 5 },
  'default-limit-50': { seed: SIXTY, holds: async (stub) => (await count(stub)) === 20 },
  'limit-short': { holds: async (stub) => (await count(stub, '?limit=5')) === 5 },
  'limit-cap-50': { seed: SIXTY, holds: async (stub) => (await count(stub, '?limit=100')) === 60 },
  'filter-ignored': {
    holds: async (stub) =>
      ((await list(stub, '?status=sold')) as { status?: string }[]).every((p) => p.status === 'sold'),
  },
  'id-missing': { holds: async (stub) => 'id' in ((await create(stub, '{"name":"a","categoryId":1}')).body as object) },
  'int64-precision': {
    holds: async (stub) =>
      (await create(stub, '{"name":"a","categoryId":9223372036854775807}')).text.includes(
        '"categoryId":9223372036854775807',
      ),
  },
  'status-dropped': {
    holds: async (stub) =>
      ((await create(stub, '{"name":"a","categoryId":1,"status":"sold"}')).body as { status?: string }).status ===
      'sold',
  },
  'name-truncated': {
    holds: async (stub) => {
      const name = 'N'.repeat(40)
      const created = (await create(stub, `{"name":"${name}","categoryId":1}`)).body as { id: number; name: string }
      return (
        created.name === name &&
        ((await call(stub, 'GET', `/v1/pets/${created.id}`, { headers: AUTH })).body as { name: string }).name === name
      )
    },
  },
  'accepts-invalid-status': {
    holds: async (stub) => {
      const before = stub.store.size
      return (
        (await create(stub, '{"name":"a","categoryId":1,"status":"lost"}')).status === 400 && stub.store.size === before
      )
    },
  },
  'missing-field-500': { holds: async (stub) => (await create(stub, '{"categoryId":1}')).status === 400 },
  'create-not-stored': {
    holds: async (stub) => {
      const created = (await create(stub, '{"name":"a","categoryId":1}')).body as { id: number }
      return (await call(stub, 'GET', `/v1/pets/${created.id}`, { headers: AUTH })).status === 200
    },
  },
  'duplicate-ids': {
    holds: async (stub) => {
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) => create(stub, `{"name":"c${i}","categoryId":1}`)),
      )
      return new Set(answers.map((a) => (a.body as { id: number }).id)).size === 5
    },
  },
  'text-content-type': {
    holds: async (stub) =>
      (await call(stub, 'GET', '/v1/pets', { headers: AUTH })).headers['content-type'] === 'application/json',
  },
  'not-found-empty': {
    holds: async (stub) => (await call(stub, 'GET', '/v1/pets/999', { headers: AUTH })).text !== '',
  },
  'get-wrong-pet': {
    holds: async (stub) => ((await call(stub, 'GET', '/v1/pets/1', { headers: AUTH })).body as { id: number }).id === 1,
  },
  hangs: { holds: (stub) => answers(stub, '/v1/pets/999') },
  'drops-connection': { holds: (stub) => answers(stub, '/v1/pets?status=pending') },
  'large-body-500': {
    holds: async (stub) =>
      (await create(stub, JSON.stringify({ name: 'x'.repeat(100 * 1024), categoryId: 1 }))).status === 400,
  },
  'refused-media-type-stored': {
    holds: async (stub) => {
      const before = stub.store.size
      const answer = await create(stub, '{"name":"a","categoryId":1}', { ...AUTH, 'content-type': 'text/plain' })
      return answer.status === 400 && stub.store.size === before
    },
  },
  'trailing-data-stored': {
    holds: async (stub) => {
      const before = stub.store.size
      const answer = await create(stub, '{"name":"a","categoryId":1} x')
      return answer.status === 400 && stub.store.size === before
    },
  },
}

describe('faults', () => {
  it('has a probe for every fault; each has a one-line description and names the check meant to catch it', () => {
    expect(Object.keys(PROBES).sort()).toEqual(Object.keys(FAULTS).sort())
    for (const [name, fault] of Object.entries(FAULTS)) {
      expect(isFaultName(name)).toBe(true)
      expect(fault.description).toMatch(/^[^\n]+$/)
      expect(fault.catches).toMatch(/^[a-zA-Z]+(\.[a-z0-9-]+)+$/)
    }
    expect(isFaultName('toString')).toBe(false)
  })

  it.each(Object.keys(FAULTS) as FaultName[])(
    '%s: the probe holds on the correct stub and breaks with the fault',
    async (fault) => {
      const { seed, holds } = PROBES[fault]
      expect(await holds(createStub({ apiKeys: [KEY], seed }))).toBe(true)
      expect(await holds(createStub({ apiKeys: [KEY], seed, fault }))).toBe(false)
    },
  )

  it('leaves every other answer as the correct stub gives it', async () => {
    // A fault changes one behaviour: a request it does not concern gets the correct stub's exact answer.
    const unconcerned: Partial<Record<FaultName, [string, string]>> = {
      'list-wrapped': ['GET', '/v1/pets/1'],
      'create-200': ['GET', '/v1/pets?limit=3'],
      'limit-ignored': ['GET', '/v1/pets/2'],
      hangs: ['GET', '/v1/pets/1'],
      'drops-connection': ['GET', '/v1/pets?status=sold'],
      'get-wrong-pet': ['GET', '/v1/pets?limit=2'],
    }
    for (const [fault, [method, path]] of Object.entries(unconcerned) as [FaultName, [string, string]][]) {
      const correct = await call(createStub({ apiKeys: [KEY] }), method, path, { headers: AUTH })
      expect(await call(createStub({ apiKeys: [KEY], fault }), method, path, { headers: AUTH }), fault).toEqual(correct)
    }
  })

  it('keeps no state between two stubs with the same fault', async () => {
    const [one, two] = [
      createStub({ apiKeys: [KEY], fault: 'duplicate-ids' }),
      createStub({ apiKeys: [KEY], fault: 'duplicate-ids' }),
    ]
    const [a, b] = await Promise.all([
      create(one, '{"name":"a","categoryId":1}'),
      create(two, '{"name":"b","categoryId":1}'),
    ])
    expect([a.status, b.status]).toEqual([201, 201])
    expect(one.store.size).toBe(two.store.size)
  })

  it('hangs: over HTTP, an unknown pet gets no answer at all, and known pets still answer', async () => {
    const stub = createStub({ apiKeys: [KEY], fault: 'hangs' })
    let arrived: () => void = () => undefined
    const logged = new Promise<void>((resolve) => (arrived = resolve))
    const running = await serve(stub.handler, {
      port: 0,
      host: '127.0.0.1',
      log: (line) => line.includes('/pets/999 404 pet_not_found hang') && arrived(),
    })
    let answered = false
    const pending = fetch(`${running.url}/pets/999`, { headers: AUTH }).then(
      () => (answered = true),
      () => undefined,
    )
    await logged // the stub has the request and chose not to answer
    expect((await fetch(`${running.url}/pets/1`, { headers: AUTH })).status).toBe(200)
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

  it('duplicate-ids: over HTTP, creates that arrive together share an id', async () => {
    const running = await serve(createStub({ apiKeys: [KEY], fault: 'duplicate-ids' }).handler, {
      port: 0,
      host: '127.0.0.1',
    })
    try {
      // Ten connections the server has accepted, then ten requests written at once: they arrive together.
      let accepted = 0
      const allAccepted = new Promise<void>((resolve) =>
        running.server.on('connection', () => ++accepted === 10 && resolve()),
      )
      const sockets = Array.from({ length: 10 }, () => connect(running.port, '127.0.0.1'))
      await allAccepted
      const answers = sockets.map((socket, i) => {
        const body = `{"name":"d${i}","categoryId":1}`
        const head = `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}`
        socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`)
        return new Promise<string>((resolve) => {
          let text = ''
          socket
            .setEncoding('utf8')
            .on('data', (chunk: string) => (text += chunk))
            .on('close', () => resolve(text))
        })
      })
      const ids = (await Promise.all(answers)).map((text) => /"id":(\d+)/.exec(text)?.[1])
      expect(ids.every((id) => id !== undefined)).toBe(true)
      expect(new Set(ids).size).toBeLessThan(ids.length)
    } finally {
      await running.close()
    }
  })
})

describe('the product code', () => {
  it('names no fault: faults live only in stub/faults/', () => {
    for (const file of ['app.ts', 'new-pet.ts', 'errors.ts', 'store.ts', 'server.ts', 'fetch.ts', 'request.ts']) {
      const text = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
      for (const name of Object.keys(FAULTS))
        expect(text, `${name} in stub/${file}`).not.toMatch(new RegExp(`(?<![\\w-])${name}(?![\\w-])`))
      expect(text, `stub/${file} imports the faults`).not.toMatch(/from '\.\/faults/)
    }
  })
})
