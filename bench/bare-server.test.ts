import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseJson, spec } from '../spec/index.js'
import { bareRoutes, createBareServer } from './bare-server.js'
import { benchPets } from './pets.js'
import { BENCH_PET_ID, filterStatus, NEW_PET_BODY, workloads } from './workloads.js'

const operationOf = (method: string, path: string) =>
  method === 'POST' ? 'createPet' : path.startsWith('/pets/') ? 'getPet' : 'listPets'

describe('the bare server answers every bench workload as the spec documents', () => {
  const server = createBareServer(bareRoutes(benchPets(1000)))
  let base = ''

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  for (const workload of workloads()) {
    it(`${workload.method} ${workload.path}`, async () => {
      const response = await fetch(base + workload.path, {
        method: workload.method,
        headers: {
          authorization: 'Bearer bench-key',
          ...(workload.body ? { 'content-type': 'application/json' } : {}),
        },
        body: workload.body,
      })
      const expected = workload.method === 'POST' ? 201 : 200
      expect(response.status).toBe(expected)
      expect(response.headers.get('content-type')).toBe('application/json')
      const body = parseJson(await response.text())
      expect(spec().response(operationOf(workload.method, workload.path), expected)!(body)).toEqual([])
    })
  }

  it('lists what the filter asks for: the page size and only the status asked for', async () => {
    const { maximum } = spec().parameter('listPets', 'limit')
    const pets = (await (await fetch(`${base}/pets?limit=${maximum}&status=${filterStatus()}`)).json()) as {
      status: string
    }[]
    expect(pets).toHaveLength(maximum!)
    expect(new Set(pets.map((p) => p.status))).toEqual(new Set([filterStatus()]))
  })

  it('answers the pet asked for, echoes a creation, and 404s anything else', async () => {
    expect(await (await fetch(`${base}/pets/${BENCH_PET_ID}`)).json()).toMatchObject({ id: BENCH_PET_ID })
    const created = await fetch(`${base}/pets`, { method: 'POST', body: NEW_PET_BODY })
    expect(await created.json()).toMatchObject(JSON.parse(NEW_PET_BODY))
    expect((await fetch(`${base}/pets/1001`)).status).toBe(404)
    expect((await fetch(`${base}/elsewhere`)).status).toBe(404)
  })
})
