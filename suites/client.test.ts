import { createServer, type Server } from 'node:http'
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, parseBody, recorded, retryAfterMs } from './client.js'

const KEY = 'secret-key-42'
let server: Server
let garbage: TcpServer
let base: string
let garbageBase: string
let limited = 0
const sockets = new Set<import('node:net').Socket>()

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/v1/hang') return // never answers
    if (req.url === '/v1/reset') return req.socket.destroy()
    if (req.url === '/v1/limited' && limited++ < 2) {
      res.writeHead(429, { 'retry-after': '0' })
      return res.end()
    }
    if (req.url === '/v1/bom') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end('\uFEFF[]')
    }
    if (req.url === '/v1/latin1') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(Buffer.from([0x5b, 0x22, 0xe9, 0x22, 0x5d])) // ["é"] in latin1
    }
    if (req.url === '/v1/echo-key') {
      res.writeHead(401, { 'content-type': 'application/json', 'x-seen': String(req.headers.authorization) })
      return res.end(JSON.stringify({ code: 'bad', message: `unknown key ${String(req.headers.authorization).slice(7)}`, status: 401 }))
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('[{"id":9223372036854775807,"name":"a","categoryId":9007199254740993}]')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  garbage = createTcpServer((socket) => {
    sockets.add(socket)
    socket.end('this is not http\r\n\r\n')
  })
  await new Promise<void>((r) => garbage.listen(0, '127.0.0.1', r))
  garbageBase = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}/v1`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
  for (const socket of sockets) socket.destroy()
  await new Promise((r) => garbage.close(r))
})

const client = (baseUrl = base, timeoutMs = 2000) => new Client({ baseUrl, apiKey: KEY, timeoutMs })

describe('the client', () => {
  it('keeps raw bodies and int64 digits, and redacts the Authorization header', async () => {
    const c = client()
    const exchange = await c.send({ operationId: 'listPets', method: 'GET', path: '/pets', query: [['limit', '5']] })
    expect(exchange.response?.rawBody).toBe('[{"id":9223372036854775807,"name":"a","categoryId":9007199254740993}]')
    expect(exchange.json).toEqual({ kind: 'json', value: [{ id: 9223372036854775807n, name: 'a', categoryId: 9007199254740993n }] })
    expect(exchange.request.headers.authorization).toBe('Bearer [REDACTED]')
    expect(exchange.request.url).toBe(`${base}/pets?limit=5`)
    expect(JSON.stringify(recorded(exchange))).not.toContain(KEY)
    expect(c.requestsSent).toBe(1)
    c.close()
  })
  it('scrubs the key when the target echoes it back', async () => {
    const c = client()
    const exchange = await c.send({ operationId: 'listPets', method: 'GET', path: '/echo-key' })
    expect(JSON.stringify(recorded(exchange))).not.toContain(KEY)
    expect(exchange.response?.headers['x-seen']).toBe('Bearer [REDACTED]')
    c.close()
  })
  it('turns a timeout, a reset and garbage into exchanges with an error, never a throw', async () => {
    const c = client(base, 300)
    const hung = await c.send({ operationId: 'getPet', method: 'GET', path: '/hang' })
    expect(hung.error).toBe('timeout after 300 ms')
    expect(hung.response).toBeUndefined()
    const reset = await c.send({ operationId: 'getPet', method: 'GET', path: '/reset' })
    expect(reset.error).toMatch(/reset/)
    c.close()
    const g = client(garbageBase)
    const bad = await g.send({ operationId: 'listPets', method: 'GET', path: '/pets' })
    expect(bad.error).toMatch(/not a valid HTTP response|reset/)
    g.close()
  })
  it('waits out 429 and records only the answer after it', async () => {
    const c = client()
    const exchange = await c.send({ operationId: 'listPets', method: 'GET', path: '/limited' })
    expect(exchange.response?.status).toBe(200)
    expect(exchange.attempts).toBe(3)
    expect(c.requestsSent).toBe(3)
    c.close()
  })
  it('sends through another base URL while reports show the target', async () => {
    const c = new Client({ baseUrl: 'https://staging.example/v1', sendBaseUrl: base, apiKey: KEY, timeoutMs: 2000 })
    const exchange = await c.send({ operationId: 'listPets', method: 'GET', path: '/pets' })
    expect(exchange.response?.status).toBe(200)
    expect(exchange.request.url).toBe('https://staging.example/v1/pets')
    expect(exchange.curl).toContain("https://staging.example/v1/pets")
    c.close()
  })
  it('keeps what axios would hide: a byte order mark, bytes that are not UTF-8', async () => {
    const c = client()
    const bom = await c.send({ operationId: 'listPets', method: 'GET', path: '/bom' })
    expect(bom.response?.rawBody).toBe('\uFEFF[]')
    expect(bom.json).toMatchObject({ kind: 'invalid', error: expect.stringContaining('byte order mark') })
    const latin1 = await c.send({ operationId: 'listPets', method: 'GET', path: '/latin1' })
    expect(latin1.json).toEqual({ kind: 'invalid', error: 'it is not valid UTF-8' })
    c.close()
  })
  it('counts pets created', async () => {
    const c = client()
    await c.send({ operationId: 'createPet', method: 'POST', path: '/pets', body: '{}' })
    expect(c.petsCreated).toBe(1)
    c.close()
  })
})

describe('helpers', () => {
  it('read Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('Thu, 05 Dec 2030 00:00:00 GMT')
    expect(retryAfterMs('3', now)).toBe(3000)
    expect(retryAfterMs('Thu, 05 Dec 2030 00:00:02 GMT', now)).toBe(2000)
    expect(retryAfterMs(undefined, now)).toBe(1000)
    expect(retryAfterMs('soon', now)).toBe(1000)
  })
  it('parse bodies without loss, and say why when they are not JSON', () => {
    expect(parseBody('')).toEqual({ kind: 'empty' })
    expect(parseBody('{"a":1,')).toMatchObject({ kind: 'invalid' })
    expect(parseBody('-9223372036854775808')).toEqual({ kind: 'json', value: -9223372036854775808n })
  })
})
