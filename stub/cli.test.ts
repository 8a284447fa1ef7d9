import { describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { DEFAULT_API_KEY, DEFAULT_PORT, resolveConfig, UsageError } from './config.js'
import { DEFAULT_MAX_BODY } from './app.js'
import { DEFAULT_SEED_PATH } from './seed.js'

const BIN = fileURLToPath(new URL('../bin/petstore-stub.js', import.meta.url))

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
    [['--bogus'], 'unknown option --bogus'],
    [['extra'], 'unexpected argument "extra"'],
    [['--port'], '--port needs a value'],
    [['--port', '70000'], '--port must be a whole number from 0 to 65535'],
    [['--port', 'abc'], '--port must be a whole number'],
    [['--port', '1', '--port', '2'], '--port given more than once'],
    [['--max-body', '0'], '--max-body must be a whole number from 1'],
    [['--seed', 'a.json', '--no-seed'], '--seed and --no-seed exclude each other'],
    [['--fault', 'nope'], '--fault must name one of the faults'],
    [['--api-key', 'has space'], 'an API key must be visible ASCII'],
    [['--quiet=yes'], 'unknown option --quiet=yes'],
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

  it('prints help and exits 0', async () => {
    const help = run(['--help'])
    expect(await help.exited).toBe(0)
    expect(help.output().stdout).toMatch(/^Usage: petstore-stub/)
    expect(help.output().stdout).toContain('--fault NAME')
  })

  it.each([
    [['--bogus'], /^petstore-stub: unknown option --bogus \(see --help\)\n$/],
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
