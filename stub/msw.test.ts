// The MSW recipe of docs/stub.md, as written there (its imports aside): the stub answers a client's own `fetch` calls in-process.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { createStub } from './index.js'

// --- recipe start
const stub = createStub() // the seed pets, key petstore-dev-key; createStub({ seed: false, apiKeys: [...] }) to choose
// A stub.fetch that rejects (Prefer: fault=reset, empty) becomes a network error, not MSW's 500.
const answer = ({ request }: { request: Request }) => stub.fetch(request).catch(() => HttpResponse.error())
const server = setupServer(
  http.all('*/v1/*', answer),
  http.all('*/__stub/*', answer), // the admin API too, if the client under test uses it
)
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => {
  stub.reset() // every test starts from the seed
  stub.clearRequests()
})
afterAll(() => server.close())
// --- recipe end

const BASE = 'https://api.petstore.invalid/v1' // any origin: only the path matters to the stub
const KEY = { authorization: 'Bearer petstore-dev-key' }

describe('the stub behind msw/node', () => {
  it('answers a client’s fetch exactly as over HTTP, state included', async () => {
    const created = await fetch(`${BASE}/pets`, {
      method: 'POST',
      headers: { ...KEY, 'content-type': 'application/json' },
      body: '{"name":"Msw","categoryId":9223372036854775807}',
    })
    expect(created.status).toBe(201)
    const text = await created.text()
    expect(text).toContain('"categoryId":9223372036854775807')
    const id = /"id":(\d+)/.exec(text)![1]
    expect(await (await fetch(`${BASE}/pets/${id}`, { headers: KEY })).text()).toBe(text)
    expect((await fetch(`${BASE}/pets`)).status).toBe(401)
    expect(stub.requests().map((entry) => entry.status)).toEqual([401, 200, 201])
  })

  it('starts each test from the seed', async () => {
    const list = (await (await fetch(`${BASE}/pets?limit=100`, { headers: KEY })).json()) as unknown[]
    expect(list).toHaveLength(stub.snapshot().pets.length)
  })

  it('takes Prefer: forced statuses with their headers, and socket faults as network errors', async () => {
    const limited = await fetch(`${BASE}/pets`, { headers: { ...KEY, prefer: 'code=429' } })
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '1'])
    await expect(fetch(`${BASE}/pets`, { headers: { ...KEY, prefer: 'fault=reset' } })).rejects.toThrow(TypeError)
  })

  it('serves the admin API', async () => {
    expect(await (await fetch('https://api.petstore.invalid/__stub/health')).json()).toMatchObject({ status: 'ok' })
  })
})
