// `petstore-stub` under a low descriptor limit: idle connections must not lock well-behaved clients out.
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

describe('idle connections under ulimit -n 1024', () => {
  it.skipIf(!hasPrlimit)(
    'serves a well-behaved client while 1,100 idle connections hold the descriptors (Linux, prlimit)',
    async () => {
      const stub = startProcess('prlimit', ['--nofile=1024', process.execPath, BIN, '--port', '0', '--quiet'])
      onTestFinished(() => stub.stop('SIGKILL'))
      await stub.waitFor(/Prefer: code=404/)
      const url = /listening on (\S+)/.exec(stub.output().stdout)![1]!
      const port = Number(new URL(url).port)
      const idle: Socket[] = []
      onTestFinished(() => idle.forEach((socket) => socket.destroy()))
      await Promise.all(
        Array.from({ length: 1_100 }, async () => {
          const socket = connect(port, '127.0.0.1')
          socket.on('error', () => undefined) // the stub may close it: that is the point
          idle.push(socket)
          await once(socket, 'connect').catch(() => undefined)
        }),
      )
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
