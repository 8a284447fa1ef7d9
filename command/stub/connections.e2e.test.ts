// `petstore-stub` under a low descriptor limit: idle or stalled connections must not lock well-behaved clients out.
import { describe, expect, it, onTestFinished } from 'vitest'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { BINS, runProcess, startProcess } from '../../test-support/run-command.js'

const BIN = process.env.PETSTORE_STUB_BIN_UNDER_TEST ?? BINS.stub
const hasPrlimit =
  process.platform === 'linux' &&
  (await runProcess('prlimit', ['--version']).then(
    () => true,
    () => false,
  ))

/** The stub under a heap of `heapMb` MB (a machine's memory, in small), listening: its address and port. */
async function stubWithHeap(heapMb: number, ...args: string[]) {
  const stub = startProcess(process.execPath, [`--max-old-space-size=${heapMb}`, BIN, '--port', '0', ...args])
  onTestFinished(() => stub.stop('SIGKILL'))
  await stub.waitFor(/Prefer: code=404/)
  const url = /listening on (\S+)/.exec(stub.output().stdout)![1]!
  return { stub, url, port: Number(new URL(url).port), pid: stub.child.pid! }
}

/** A well-behaved client's request: a page of one pet, within 10 s (a stub that died, or locked it out, fails it). */
async function expectServed(url: string): Promise<void> {
  const answer = await fetch(`${url}/pets?limit=1`, {
    headers: { authorization: 'Bearer petstore-dev-key' },
    signal: AbortSignal.timeout(10_000),
  })
  expect(answer.status).toBe(200)
}

describe('connections that hold descriptors under ulimit -n 1024', () => {
  it.skipIf(!hasPrlimit).each([
    ['idle connections', ''],
    // A request whose body stalls after its first byte: an upload too slow to finish holds a descriptor as well.
    [
      'connections stalled mid-body',
      'POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer petstore-dev-key\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    ],
    // Requests read whole whose answers are held back on purpose: a hang is never answered, so it held its descriptor
    // for as long as its client stayed, and 1,100 of them locked every other client out.
    [
      'connections waiting for an answer held back (Prefer: fault=hang)',
      'GET /v1/pets/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer petstore-dev-key\r\nPrefer: fault=hang\r\n\r\n',
    ],
  ])(
    'serves a well-behaved client while 1,100 %s hold the descriptors (Linux, prlimit)',
    async (_title, sent) => {
      const stub = startProcess('prlimit', ['--nofile=1024', process.execPath, BIN, '--port', '0', '--quiet'])
      onTestFinished(() => stub.stop('SIGKILL'))
      await stub.waitFor(/Prefer: code=404/)
      const url = /listening on (\S+)/.exec(stub.output().stdout)![1]!
      const port = Number(new URL(url).port)
      const held: Socket[] = []
      onTestFinished(() => held.forEach((socket) => socket.destroy()))
      const open = async () => {
        const socket = connect(port, '127.0.0.1')
        socket.on('error', () => undefined) // the stub may close it: that is the point
        held.push(socket)
        await once(socket, 'connect').catch(() => undefined)
        if (sent && !socket.destroyed) socket.write(sent)
      }
      await Promise.all(Array.from({ length: 900 }, open))
      await new Promise((resolve) => setTimeout(resolve, 500))
      // The last ones one at a time, each read by the stub before the next comes: none of them is idle when the
      // next arrives, so only a stub that sheds them too has room left.
      for (let i = 0; i < 200; i++) {
        await open()
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
      await expectServed(url) // locked out by a stub that lets idle connections hold every descriptor
    },
    30_000,
  )
})

describe('connections that pipeline requests and never read the answers', () => {
  it('stay within a small heap: the stub keeps serving, where each such connection used to hold megabytes', async () => {
    // A heap of 160 MB stands for a machine's memory: 150 such connections exhausted it, and the stub died of it.
    const { stub, url, port } = await stubWithHeap(160, '--quiet')
    const flood = Buffer.from(
      'GET /v1/pets?limit=100 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer petstore-dev-key\r\n\r\n'.repeat(
        5_000,
      ),
    )
    const held: Socket[] = []
    onTestFinished(() => held.forEach((socket) => socket.destroy()))
    for (let i = 0; i < 150; i++) {
      const socket = connect(port, '127.0.0.1')
      socket.on('error', () => undefined) // the stub closes it: that is the point
      socket.pause() // the answers are never read
      held.push(socket)
      socket.write(flood)
    }
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    await expectServed(url)
    expect(stub.child.exitCode).toBeNull()
  }, 30_000)
})

describe('connections that pile up requests asking to be answered a minute later', () => {
  it('stay within a small heap: the connections waiting longest are closed, and a new client is served', async () => {
    // Three waves of 400 connections of 120 requests each asking for `Prefer: delay=60000`: every one of them used to be
    // held for the minute, and a heap of 256 MB (a machine's memory, in small) ran out by the third wave.
    const { stub, url, port } = await stubWithHeap(256)
    const pile =
      'GET /v1/pets/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer petstore-dev-key\r\nPrefer: delay=60000\r\n\r\n'.repeat(
        120,
      )
    const held: Socket[] = []
    onTestFinished(() => held.forEach((socket) => socket.destroy()))
    let closed = 0
    for (let wave = 0; wave < 3; wave++) {
      for (let i = 0; i < 400; i++) {
        const socket = connect(port, '127.0.0.1')
        socket.on('error', () => undefined) // the stub closes it: that is the point
        socket.on('close', () => closed++)
        held.push(socket)
        socket.write(pile)
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000))
    }
    await expectServed(url)
    expect(stub.child.exitCode).toBeNull()
    expect(closed).toBeGreaterThan(0)
    expect(closed).toBeLessThan(1_200) // the latest ones still wait for their answers
    expect(stub.output().stderr).toMatch(/connections closed: more than 16384 requests were waiting/)
  }, 30_000)
})

describe('clients that ask for large answers and never read them', () => {
  const isLinux = process.platform === 'linux' // the stub's memory is read from /proc
  const KEY = 'petstore-dev-key'
  /** The stub's resident memory, in MB. */
  const residentMb = (pid: number) =>
    Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

  /** A stub with a heap of 200 MB, filled with `count` pets of 60 KB names. */
  async function fullStub(count: number) {
    const started = await stubWithHeap(200)
    const body = JSON.stringify({ name: 'x'.repeat(60_000), categoryId: 1 })
    for (let i = 0; i < count; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          const created = await fetch(`${started.url}/pets`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body,
          })
          expect(created.status).toBe(201)
        }),
      )
    }
    return started
  }

  /** Opens `count` connections that each send `request`, and resolves once each has its answer's first bytes, of which it reads no more. */
  async function holdOpen(port: number, count: number, request: string): Promise<void> {
    const held: Socket[] = []
    onTestFinished(() => held.forEach((socket) => socket.destroy()))
    await Promise.all(
      Array.from({ length: count }, async () => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request))
        socket.on('error', () => undefined) // the stub may close it: that is the point
        held.push(socket)
        await Promise.race([once(socket, 'data'), once(socket, 'close')])
        socket.pause()
      }),
    )
  }

  it.skipIf(!isLinux)(
    'streams the state: 40 clients that never read an 18 MB state hold no copy of it',
    async () => {
      const { stub, url, port, pid } = await fullStub(300)
      const before = residentMb(pid)
      await Promise.all([
        holdOpen(port, 20, 'GET /__stub/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
        holdOpen(port, 20, 'GET /__stub/state?int64=string HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
      ])
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      // A copy each would be 700 MB, past the heap: the stub used to die of it.
      expect(stub.child.exitCode).toBeNull()
      expect(residentMb(pid) - before).toBeLessThan(400)
      const state = (await (await fetch(`${url.replace('/v1', '')}/__stub/state`)).json()) as { pets: unknown[] }
      expect(state.pets.length).toBe(36 + 300)
    },
    90_000,
  )

  it.skipIf(!isLinux)(
    'keeps within its heap when 120 clients ask for a page of large pets at once and never read it',
    async () => {
      const { stub, url, port, pid } = await fullStub(100)
      const before = residentMb(pid)
      // Each asks for a page of 100 pets of 60 KB (6 MB): 720 MB, were the answers of one turn all held at once.
      await holdOpen(
        port,
        120,
        `GET /v1/pets?limit=100 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
      )
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect(stub.child.exitCode).toBeNull()
      expect(residentMb(pid) - before).toBeLessThan(400)
      const answer = await fetch(`${url}/pets?limit=100`, { headers: { authorization: `Bearer ${KEY}` } })
      expect(answer.status).toBe(200)
      expect(((await answer.json()) as unknown[]).length).toBe(100)
    },
    90_000,
  )
})
