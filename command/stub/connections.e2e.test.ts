// `petstore-stub` under a low descriptor limit: idle connections must not lock well-behaved clients out.
import { describe, expect, it, onTestFinished } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'

const BIN =
  process.env.PETSTORE_STUB_BIN_UNDER_TEST ?? fileURLToPath(new URL('../../bin/petstore-stub.js', import.meta.url))
const hasPrlimit = process.platform === 'linux' && !spawnSync('prlimit', ['--version']).error

describe('idle connections under ulimit -n 1024', () => {
  it.skipIf(!hasPrlimit)(
    'serves a well-behaved client while 1,100 idle connections hold the descriptors (Linux, prlimit)',
    async () => {
      const child = spawn('prlimit', ['--nofile=1024', process.execPath, BIN, '--port', '0', '--quiet'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      onTestFinished(() => void child.kill('SIGKILL'))
      let stdout = ''
      child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text))
      await new Promise<void>((resolve) => child.stdout!.on('data', () => /Prefer: code=404/.test(stdout) && resolve()))
      const url = /listening on (\S+)/.exec(stdout)![1]!
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
