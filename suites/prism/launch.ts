/** Prism's process: started from node_modules as one process on a free loopback port, and stopped (TERM, then KILL). */
import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import net from 'node:net'
import { dirname, join } from 'node:path'

const START_DEADLINE_MS = 20_000
const STOP_GRACE_MS = 3_000
const POLL_INTERVAL_MS = 100
const OUTPUT_TAIL_CHARS = 4_000

function freePort(): Promise<number> {
  const server = net.createServer()
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** What installs Prism, an optional peer dependency of the kit: `--via-prism` and `npm run mock` need it. */
export const PRISM_INSTALL = 'npm install --save-dev @stoplight/prism-cli@~5.14.2'

/** Prism's command-line entry point, resolved from node_modules so no shell or PATH is involved. */
export function prismBin(): string {
  const require = createRequire(import.meta.url)
  let manifest: string
  try {
    manifest = require.resolve('@stoplight/prism-cli/package.json')
  } catch {
    throw new Error(`Prism is not installed (an optional peer dependency); install it with: ${PRISM_INSTALL}`)
  }
  const { bin } = require(manifest) as { bin: { prism: string } }
  return join(dirname(manifest), bin.prism)
}

/** A Prism process that forwards requests. */
export interface RunningPrism {
  port: number
  pid: number
  problem(): string | undefined
  stop(): Promise<void>
}

/** Starts Prism's proxy for `specPath` in front of `upstream`; resolves once `ready` says it forwards. */
export async function launchPrism(
  specPath: string,
  upstream: string,
  ready: (port: number) => Promise<boolean>,
): Promise<RunningPrism> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchPrismOnce(specPath, upstream, await freePort(), ready)
    } catch (error) {
      // Another process may take the free port before Prism binds it; a new port settles that.
      if (attempt >= 3 || !/EADDRINUSE|address already in use/i.test(String(error))) throw error
    }
  }
}

async function launchPrismOnce(
  specPath: string,
  upstream: string,
  port: number,
  ready: (port: number) => Promise<boolean>,
): Promise<RunningPrism> {
  const args = [prismBin(), 'proxy', specPath, upstream, '--port', String(port), '--host', '127.0.0.1']
  // One process (no cluster worker), and only errors logged: Prism formats every info line, which costs time.
  args.push('--no-multiprocess', '--verboseLevel', 'error', '--errors=false')
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  })
  let output = ''
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-OUTPUT_TAIL_CHARS))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const tail = () => output.trim().split('\n').slice(-15).join('\n')
  // The first line of an error says why, for callers that show only that line.
  const why = () => {
    const lines = output
      .trim()
      .split('\n')
      .map((l) => l.trim())
    return lines.find((l) => /^\w*Error\b|EADDRINUSE/.test(l)) ?? lines.at(-1) ?? 'no output'
  }
  let exit: string | undefined
  let stopping = false
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = `Prism exited (${signal ?? `code ${code}`})`
      resolve()
    })
    child.once('error', (error) => {
      exit = `Prism could not be started: ${error.message}`
      resolve()
    })
  })
  const killOnExit = () => child.kill('SIGKILL') // this process is leaving without close(): take Prism along
  process.once('exit', killOnExit)
  const stop = async () => {
    stopping = true
    process.removeListener('exit', killOnExit)
    await stopChild(child, exited)
  }

  const deadline = Date.now() + START_DEADLINE_MS
  while (!(await ready(port))) {
    if (exit) {
      await stop()
      throw new Error(`${exit} before it was ready (spec ${specPath}): ${why()}\n${tail()}`)
    }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(
        `Prism did not start within ${START_DEADLINE_MS / 1000} s (spec ${specPath}): ${why()}\n${tail()}`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS))
  }
  return {
    port,
    pid: child.pid!,
    problem: () => (exit && !stopping ? `${exit}:\n${tail()}` : undefined),
    stop,
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
  await exited
  clearTimeout(timer)
}
