import { describe, expect, it, onTestFinished } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { DEFAULT_API_KEY, DEFAULT_MAX_BODY, DEFAULT_SEED_PATH } from '../../stub/index.js'
import { UsageError } from '../usage-error.js'
import { DEFAULT_PORT, resolveConfig } from './config.js'

const BIN = fileURLToPath(new URL('../../bin/petstore-stub.js', import.meta.url))

describe('resolveConfig', () => {
  it('fills in every default', () => {
    expect(resolveConfig([], {})).toEqual({
      help: false,
      port: DEFAULT_PORT,
      host: '127.0.0.1',
      apiKeys: [DEFAULT_API_KEY],
      seed: DEFAULT_SEED_PATH,
      maxBody: DEFAULT_MAX_BODY,
      quiet: false,
      fault: undefined,
    })
    expect(Object.isFrozen(resolveConfig([], {}))).toBe(true)
  })

  it('reads every flag, in both spellings', () => {
    const config = resolveConfig(['--port', '0', '--host=::1', '--api-key', 'a', '--api-key=b', '--seed', 'pets.json', '--max-body=1024', '--quiet', '--fault', 'hangs', '-h'], {})
    expect(config).toEqual({ help: true, port: 0, host: '::1', apiKeys: ['a', 'b'], seed: 'pets.json', maxBody: 1024, quiet: true, fault: 'hangs' })
    expect(resolveConfig(['--no-seed'], {}).seed).toBe(false)
  })

  it('takes keys from PETSTORE_API_KEYS, and flags over the environment', () => {
    expect(resolveConfig([], { PETSTORE_API_KEYS: ' one, two ,,' }).apiKeys).toEqual(['one', 'two'])
    expect(resolveConfig(['--api-key', 'flag'], { PETSTORE_API_KEYS: 'env' }).apiKeys).toEqual(['flag'])
    expect(resolveConfig([], { PETSTORE_API_KEYS: '' }).apiKeys).toEqual([DEFAULT_API_KEY])
  })

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['extra'], 'unexpected argument "extra"'],
    [['--port'], "Option '--port <value>' argument missing"],
    [['--port', '70000'], '--port must be from 0 to 65535'],
    [['--port', 'abc'], '--port must be an integer'],
    [['--max-body', '0'], '--max-body must be from 1'],
    [['--seed', 'a.json', '--no-seed'], '--seed and --no-seed exclude each other'],
    [['--fault', 'nope'], '--fault must name one of the faults'],
    [['--api-key', 'has space'], 'an API key must be visible ASCII'],
    [['--quiet=yes'], "Option '--quiet' does not take an argument"],
    [['--port', '--host', 'x'], "Option '--port' argument is ambiguous."],
  ])('refuses %j with a one-line reason', (argv, reason) => {
    expect(() => resolveConfig(argv, {})).toThrow(UsageError)
    expect(() => resolveConfig(argv, {})).toThrow(reason)
  })
})

/** Runs the bin; `ready` resolves with its stdout once it prints its key line. */
function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text))
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text))
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => /API key: .*\n/.test(stdout) && resolve(stdout))
    void exited.then((code) => reject(new Error(`exited with ${code} before it was ready: ${stderr}`)))
  })
  ready.catch(() => undefined) // runs that are meant to fail never get ready; only awaiting callers see the rejection
  return { child, ready, exited, output: () => ({ stdout, stderr }) }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null) child.kill('SIGTERM')
}

describe('the petstore-stub command', () => {
  it('starts, prints its URL and key, serves with that key, logs without it, and exits 0 on SIGTERM', async () => {
    const stub = run(['--port', '0', '--api-key', 'cli-key'])
    try {
      const stdout = await stub.ready
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stdout)![1]!
      expect(stdout).toContain('API key: cli-key')
      const answer = await fetch(`${url}/pets/1`, { headers: { authorization: 'Bearer cli-key' } })
      expect(answer.status).toBe(200)
      stub.child.kill('SIGTERM')
      expect(await stub.exited).toBe(0)
      const { stderr } = stub.output()
      expect(stderr).toMatch(/^GET \/v1\/pets\/1 200 \d+\.\dms$/m)
      expect(stderr).not.toContain('cli-key')
    } finally {
      stop(stub.child)
    }
  })

  it('stays silent with --quiet and takes its keys from PETSTORE_API_KEYS', async () => {
    const stub = run(['--port', '0', '--quiet', '--no-seed'], { PETSTORE_API_KEYS: 'env-one,env-two' })
    try {
      const stdout = await stub.ready
      const url = /listening on (\S+)/.exec(stdout)![1]!
      expect((await fetch(`${url}/pets`, { headers: { authorization: 'Bearer env-two' } })).status).toBe(200)
      stub.child.kill('SIGINT')
      expect(await stub.exited).toBe(0)
      expect(stub.output().stderr).toBe('')
    } finally {
      stop(stub.child)
    }
  })

  it('exits 0 when two stop signals arrive at once (the terminal signals the group, and npm passes it on)', async () => {
    const stub = run(['--port', '0', '--quiet'])
    try {
      await stub.ready
      stub.child.kill('SIGINT')
      stub.child.kill('SIGTERM')
      expect(await stub.exited).toBe(0)
    } finally {
      stop(stub.child)
    }
  })

  it('keeps serving, and still stops on SIGTERM, when the reader of its output goes away', async () => {
    const stub = run(['--port', '0', '--api-key', 'cli-key'])
    onTestFinished(() => void stub.child.kill('SIGKILL')) // one that ignores SIGTERM must not outlive the test
    const url = /listening on (\S+)/.exec(await stub.ready)![1]!
    stub.child.stderr!.destroy() // every log line now meets a closed pipe (EPIPE)
    for (let i = 0; i < 20; i++) expect((await fetch(`${url}/pets`, { headers: { authorization: 'Bearer cli-key' } })).status).toBe(200)
    stub.child.kill('SIGTERM')
    expect(await stub.exited).toBe(0)
  })

  it('stops when the npm shell it runs under goes away, since that shell dies on SIGTERM without passing it on', async () => {
    // npx and npm start run the bin below `sh -c`; `& wait` keeps the stub a separate child of the shell, as dash does.
    const script = `"${process.execPath}" "${BIN}" --port 0 --quiet --api-key cli-key & echo "pid $!"; wait`
    const shell = spawn('sh', ['-c', script], { env: { ...process.env, npm_lifecycle_event: 'npx' }, stdio: ['ignore', 'pipe', 'inherit'] })
    let stdout = ''
    shell.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text))
    while (!/listening on \S+/.test(stdout) && shell.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20))
    const url = /listening on (\S+)/.exec(stdout)![1]!
    const pid = Number(/pid (\d+)/.exec(stdout)![1])
    let finished = false
    onTestFinished(() => {
      finished = true // also after a timeout, which never reaches a finally block
      if (isRunning(pid)) process.kill(pid, 'SIGKILL')
    })
    expect((await fetch(`${url}/pets`, { headers: { authorization: 'Bearer cli-key' } })).status).toBe(200)
    shell.kill('SIGTERM')
    await once(shell, 'exit')
    // The stub is now an orphan; it must notice and stop, releasing its port (the test times out otherwise).
    while (!finished && (await fetch(`${url}/pets`).then(() => true, () => false))) await new Promise((resolve) => setTimeout(resolve, 50))
    while (!finished && isRunning(pid)) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(isRunning(pid)).toBe(false)
  })

  it('prints help and exits 0', async () => {
    const help = run(['--help'])
    expect(await help.exited).toBe(0)
    expect(help.output().stdout).toMatch(/^Usage: petstore-stub/)
    expect(help.output().stdout).toContain('--fault NAME')
  })

  it.each([
    [['--bogus'], /^petstore-stub: Unknown option '--bogus'.* \(see --help\)\n$/],
    [['--seed', '/nonexistent/pets.json'], /^petstore-stub: cannot read the seed file \/nonexistent\/pets.json: .*\n$/],
  ])('exits 2 with one line for %j', async (args, line) => {
    const bad = run(args)
    expect(await bad.exited).toBe(2)
    expect(bad.output().stderr).toMatch(line)
  })

  it('exits 2 with one line when the port is taken', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const taken = run(['--port', String(port), '--quiet'])
      expect(await taken.exited).toBe(2)
      expect(taken.output().stderr).toBe(`petstore-stub: port ${port} on 127.0.0.1 is already in use; choose another with --port\n`)
    } finally {
      blocker.close()
    }
  })
})
