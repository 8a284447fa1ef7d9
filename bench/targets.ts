import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, openSync, readFileSync, statSync } from 'node:fs'
import { createServer, connect } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

/** The project root, where bins and node_modules live. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** How to start one server under test as a child process. */
export interface TargetSpec {
  id: string
  /** What the tables call it. */
  title: string
  /** The argument list after `node`, given the port to listen on. */
  args: (port: number) => string[]
  /** Base address of the interface on that port (`/v1` for the stub, none for Prism). */
  base: (port: number) => string
  /** Extra node flags, e.g. `--expose-gc`. */
  nodeFlags?: string[]
  /** When set, readiness is the child printing a stdout line that starts with this, not an open port. */
  readyLine?: string
}

/** A started target. */
export interface RunningTarget {
  spec: TargetSpec
  url: string
  pid: number
  /** The ready line's text after its prefix, when the spec waits for one. */
  ready?: string
  /** Bytes the target wrote to its output (its request log) so far. */
  logBytes(): number
  stop(): Promise<void>
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** Children still running; if the bench dies, they must not outlive it. */
const live = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once('exit', () => r()))
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-5).join('\n')
  } catch {
    return ''
  }
}

/**
 * Starts `spec` as a child process with its output (stdout and stderr, i.e. its request log) going to
 * `logPath`, as a user redirecting it would, and resolves once it accepts connections.
 */
export async function startTarget(spec: TargetSpec, logPath: string, timeoutMs = 120_000): Promise<RunningTarget> {
  const port = await freePort()
  const log = openSync(logPath, 'w')
  const child = spawn(process.execPath, [...(spec.nodeFlags ?? []), ...spec.args(port)], {
    cwd: ROOT,
    stdio: ['ignore', spec.readyLine ? 'pipe' : log, log],
  })
  closeSync(log) // the child holds its own descriptor
  live.add(child)
  child.once('exit', () => live.delete(child))
  let ready: string | undefined
  const readyLine = spec.readyLine
  const announced = readyLine
    ? new Promise<void>((resolve) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          if (ready === undefined && line.startsWith(readyLine)) {
            ready = line.slice(readyLine.length).trim()
            resolve()
          }
        })
      })
    : undefined
  const deadline = Date.now() + timeoutMs
  let gone = false
  child.once('exit', () => (gone = true))
  for (;;) {
    if (gone) throw new Error(`${spec.title} exited before it listened: ${tail(logPath) || 'no output'}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${spec.title} did not listen on port ${port} within ${timeoutMs / 1000} s`)
    }
    if ((announced === undefined || ready !== undefined) && (await portOpen(port))) break
    await sleep(100)
  }
  return {
    spec,
    url: spec.base(port),
    pid: child.pid!,
    ready,
    logBytes: () => statSync(logPath).size,
    async stop() {
      if (gone) return
      child.kill('SIGTERM')
      const killed = await Promise.race([exited(child).then(() => true), sleep(5000).then(() => false)])
      if (!killed) child.kill('SIGKILL')
      await exited(child)
    },
  }
}

/** Resident set size of a running process in bytes, from /proc (Linux), or `undefined` elsewhere. */
export function rssOf(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}
