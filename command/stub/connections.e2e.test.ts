// `petstore-stub` under a low descriptor limit: idle or stalled connections must not lock well-behaved clients out.
import { describe, expect, it, onTestFinished } from 'vitest'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { BINS, runProcess, startProcess } from '../../test-support/run-command.js'

const BIN = process.env.PETSTORE_STUB_BIN_UNDER_TEST ?? BINS.stub
const hasPrlimit =
  process.platform === 'linux' &&
  (await runProcess('prlimit', ['--version']).then(
    () => true,
    () => false,
  ))

describe('connections that hold descriptors under ulimit -n 1024', () => {
  it.skipIf(!hasPrlimit).each([
    ['idle connections', ''],
    // A request whose body stalls after its first byte: an upload too slow to finish holds a descriptor as well.
    [
      'connections stalled mid-body',
      'POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer petstore-dev-key\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
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
      const answer = await fetch(`${url}/pets?limit=1`, {
        headers: { authorization: 'Bearer petstore-dev-key' },
        signal: AbortSignal.timeout(10_000), // locked out: a stub that lets idle connections hold every descriptor
      })
      expect(answer.status).toBe(200)
    },
    30_000,
  )
})

describe('connections that pipeline requests and never read the answers', () => {
  it('stay within a small heap: the stub keeps serving, where each such connection used to hold megabytes', async () => {
    // A heap of 160 MB stands for a machine's memory: 150 such connections exhausted it, and the stub died of it.
    const stub = startProcess(process.execPath, ['--max-old-space-size=160', BIN, '--port', '0', '--quiet'])
    onTestFinished(() => stub.stop('SIGKILL'))
    await stub.waitFor(/Prefer: code=404/)
    const url = /listening on (\S+)/.exec(stub.output().stdout)![1]!
    const port = Number(new URL(url).port)
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
    const answer = await fetch(`${url}/pets?limit=1`, {
      headers: { authorization: 'Bearer petstore-dev-key' },
      signal: AbortSignal.timeout(10_000),
    })
    expect(answer.status).toBe(200)
    expect(stub.child.exitCode).toBeNull()
  }, 30_000)
})
