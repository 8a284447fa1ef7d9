// The petstore-stub command in child processes: output, signals, exit codes, the data file across restarts.
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serveSocket } from '../../test-support/misbehaving.js'
import { BINS, runProcess, startCommand, startProcess } from '../../test-support/run-command.js'
import { targets } from '../../test-support/targets.js'

const BIN = BINS.stub
const start = targets(afterEach)

/** Runs the bin; `ready` resolves with its stdout once it has printed its startup message. */
function run(args: string[], env: Record<string, string> = {}) {
  const running = startCommand('stub', args, { env })
  const exited = running.exited.then((done) => done.code)
  const ready = running.waitFor(/Prefer: code=404.*\n/).then(() => running.output().stdout)
  ready.catch(() => undefined) // runs that are meant to fail never get ready; only awaiting callers see the rejection
  return { child: running.child, ready, exited, output: running.output }
}

/** A fresh folder, removed when the test ends. */
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-stub-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Splits a printed command line into words as a shell would: double quotes group, `\\"` is a quote. */
function words(line: string): string[] {
  const found: string[] = []
  let word = ''
  let quoted = false
  let started = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (c === '\\' && line[i + 1] === '"') {
      word += '"'
      i++
    } else if (c === '"') {
      quoted = !quoted
      started = true
    } else if (c === ' ' && !quoted) {
      if (started || word) found.push(word)
      word = ''
      started = false
    } else word += c
  }
  if (started || word) found.push(word)
  return found
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A port nothing listens on now: one a target took and let go. */
async function freePort(): Promise<number> {
  const taken = await start({ serve: () => serveSocket(() => undefined) })
  await taken.close()
  return taken.port
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
      await fetch(`${url}/pets/424242`, { headers: { authorization: 'Bearer cli-key', prefer: 'delay=1' } })
      // A client that sends its key in the target instead of Authorization: the log shows where, not the key.
      await fetch(`${url}/pets?api_key=cli-key`)
      stub.child.kill('SIGTERM')
      expect(await stub.exited).toBe(0)
      const { stderr } = stub.output()
      expect(stderr).toMatch(/^GET \/v1\/pets\/1 200 \d+\.\dms$/m)
      expect(stderr).toMatch(/^GET \/v1\/pets\/424242 404 pet_not_found prefer="delay=1" \d+\.\dms$/m) // the error code and the preference
      expect(stderr).toMatch(/^GET \/v1\/pets\?api_key=\[redacted\] 401 missing_credentials \d+\.\dms$/m)
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
    for (let i = 0; i < 20; i++)
      expect((await fetch(`${url}/pets`, { headers: { authorization: 'Bearer cli-key' } })).status).toBe(200)
    stub.child.kill('SIGTERM')
    expect(await stub.exited).toBe(0)
  })

  it('starts, serves and stops cleanly when the reader of its output is gone before its first line', async () => {
    // A torn last record (a kill -9 mid-write) makes the stub write a notice during the start, into the broken pipe.
    const file = join(scratch(), 'pets.json')
    writeFileSync(file, '{"nextId":1,"pets":[]}')
    writeFileSync(`${file}.log`, '{"add":{"id":1,"name":"a","categoryId":1}}\n{"add":{"id":2,"na')
    const port = await freePort()
    const stub = startCommand('stub', ['--port', String(port), '--no-seed', '--api-key', 'k', '--data', file])
    onTestFinished(() => stub.stop('SIGKILL'))
    stub.child.stdout!.destroy() // both readers gone before the child writes anything (EPIPE)
    stub.child.stderr!.destroy()
    const url = `http://127.0.0.1:${port}`
    await expect
      .poll(() => fetch(`${url}/__stub/health`).then((answer) => answer.status, String), { timeout: 20_000 })
      .toBe(200)
    const created = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":7}',
    })
    expect(created.status).toBe(201)
    const rex = await created.text()
    stub.stop('SIGTERM')
    expect((await stub.exited).code).toBe(0)
    expect(readdirSync(dirname(file))).not.toContain('pets.json.lock')
    const kept = readFileSync(file, 'utf8') + readFileSync(`${file}.log`, 'utf8')
    expect(kept).toContain('{"id":1,"name":"a","categoryId":1}')
    expect(kept).toContain(rex)
  })

  it('stops on SIGHUP as on SIGTERM: the request in flight answered, the data file folded, exit 0', async () => {
    const file = join(scratch(), 'pets.json')
    const stub = run(['--port', '0', '--quiet', '--no-seed', '--api-key', 'k', '--data', file])
    onTestFinished(() => void stub.child.kill('SIGKILL'))
    const url = /listening on (\S+)/.exec(await stub.ready)![1]!
    const headers = { authorization: 'Bearer k', 'content-type': 'application/json' }
    const body = '{"name":"Rex","categoryId":7}'
    const rex = await (await fetch(`${url}/pets`, { method: 'POST', headers, body })).text()
    const slow = fetch(`${url}/pets`, { method: 'POST', headers: { ...headers, prefer: 'delay=1000' }, body })
    await new Promise((resolve) => setTimeout(resolve, 300)) // the slow create is in flight
    stub.child.kill('SIGHUP') // the terminal closed
    expect((await slow).status).toBe(201)
    expect(await stub.exited).toBe(0)
    expect(readdirSync(dirname(file))).not.toContain('pets.json.lock')
    expect(readFileSync(file, 'utf8')).toContain(rex)
  })

  it('stops when the npm shell it runs under goes away, since that shell dies on SIGTERM without passing it on', async () => {
    // npx and npm start run the bin below `sh -c`; `& wait` keeps the stub a separate child of the shell, as dash does.
    const script = `"${process.execPath}" "${BIN}" --port 0 --quiet --api-key cli-key & echo "pid $!"; wait`
    const shell = startProcess('sh', ['-c', script], { env: { npm_lifecycle_event: 'npx' } }).child
    let stdout = ''
    shell.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text))
    while (!/listening on \S+/.test(stdout) && shell.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 20))
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
    while (
      !finished &&
      (await fetch(`${url}/pets`).then(
        () => true,
        () => false,
      ))
    )
      await new Promise((resolve) => setTimeout(resolve, 50))
    while (!finished && isRunning(pid)) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(isRunning(pid)).toBe(false)
  })

  it('prints help listing every flag and control, and exits 0', async () => {
    const help = run(['--help'])
    expect(await help.exited).toBe(0)
    const text = help.output().stdout
    expect(text).toMatch(/^Usage: petstore-stub/)
    for (const flag of [
      '--port',
      '--host',
      '--api-key',
      '--seed',
      '--no-seed',
      '--data',
      '--max-body',
      '--latency',
      '--fail-rate',
      '--fail-status',
      '--admin-key',
      '--journal',
      '--quiet',
      '--fault',
      '--help',
    ])
      expect(text).toContain(`${flag} `)
    for (const control of [
      'Prefer',
      'code=',
      'example=',
      'dynamic=',
      'delay=',
      'fault=reset|empty|hang|malformed-chunk|trickle',
      'Preference-Applied',
    ])
      expect(text).toContain(control)
    for (const endpoint of [
      'GET /__stub/health',
      'POST /__stub/reset',
      'GET /__stub/state',
      'PUT /__stub/state',
      'GET /__stub/requests',
      'DELETE /__stub/requests',
      '/__stub/admin.yaml',
    ])
      expect(text).toContain(endpoint)
  })

  it.each([
    [['--bogus'], /^petstore-stub: Unknown option '--bogus'.* \(see --help\)\n$/],
    [['--seed', '/nonexistent/pets.json'], /^petstore-stub: cannot read the seed file \/nonexistent\/pets.json: .*\n$/],
    [
      ['--host', '0.0.0.0'],
      /^petstore-stub: --host 0.0.0.0 is reachable from other machines: give --admin-key too \(see --help\)\n$/,
    ],
    // Found at the start, not when the stub stops (days later, perhaps) and the report cannot be written.
    [
      ['--client-report', '/nonexistent/report.json'],
      /^petstore-stub: cannot write the client report to \/nonexistent\/report.json: there is no folder \/nonexistent\n$/,
    ],
    [['--client-report', '.'], /^petstore-stub: cannot write the client report to \.: it is not a file\n$/],
  ])('exits 2 with one line for %j', async (args, line) => {
    const bad = run(args)
    expect(await bad.exited).toBe(2)
    expect(bad.output().stderr).toMatch(line)
  })

  it("serves a revision with --spec: its version prefix, and the kit's seed pets fitted to it", async () => {
    // Version 2 under /v2, status required of every NewPet (three seed pets have none) and categoryId at least 0.
    const spec = readFileSync(fileURLToPath(new URL('../../spec/petstore.yaml', import.meta.url)), 'utf8')
      .replaceAll("url: '{scheme}://{host}/v1'", "url: '{scheme}://{host}/v2'")
      .replace('required: [name, categoryId]', 'required: [name, categoryId, status]')
    expect(spec).toContain('required: [name, categoryId, status]')
    const file = join(scratch(), 'revision.yaml')
    writeFileSync(file, spec)
    const stub = run(['--port', '0', '--api-key', 'rev-key', '--spec', file])
    try {
      const stdout = await stub.ready
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/v2) \((\d+) pets/.exec(stdout)
      expect(url?.[2]).toBe('36')
      const pets = (await (
        await fetch(`${url![1]}/pets?limit=100`, { headers: { authorization: 'Bearer rev-key' } })
      ).json()) as { status?: string }[]
      expect(pets.filter((pet) => pet.status === undefined)).toEqual([])
    } finally {
      stop(stub.child)
      await stub.exited
    }
  })

  it('exits 2 naming the file, the index and the field of a bad seed pet', async () => {
    const file = join(scratch(), 'pets.json')
    writeFileSync(file, '[{"id":1,"name":"ok","categoryId":1},{"id":2,"name":"bad","categoryId":"seven"}]')
    const bad = run(['--seed', file])
    expect(await bad.exited).toBe(2)
    expect(bad.output().stderr).toBe(`petstore-stub: the seed file ${file}: pets[1].categoryId must be integer\n`)
  })

  it.each([
    ['not JSON', '{"pets": [', /is not valid JSON: .*; fix or remove it\n$/],
    [
      'not a snapshot',
      '{"pets":[{"id":1,"name":"a"}]}',
      /: pets\[0\] must have required property 'categoryId'; fix or remove it\n$/,
    ],
  ])('exits 2 with one line on a data file that is %s, and leaves the file as it was', async (_title, text, line) => {
    const file = join(scratch(), 'state.json')
    writeFileSync(file, text)
    const bad = run(['--data', file, '--port', '0'])
    expect(await bad.exited).toBe(2)
    expect(bad.output().stderr).toMatch(new RegExp(`^petstore-stub: the data file ${file.replaceAll('/', '\\/')}`))
    expect(bad.output().stderr).toMatch(line)
    expect(readFileSync(file, 'utf8')).toBe(text) // never silently emptied
  })

  it('keeps the pets in --data across a restart, and across a kill right after the 201', async () => {
    const file = join(scratch(), 'state.json')
    const created = async (url: string, name: string) =>
      await (
        await fetch(`${url}/pets`, {
          method: 'POST',
          headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
          body: `{"name":"${name}","categoryId":9223372036854775807}`,
        })
      ).text()
    const first = run(['--port', '0', '--quiet', '--api-key', 'k', '--data', file])
    onTestFinished(() => void first.child.kill('SIGKILL'))
    const url1 = /listening on (\S+)/.exec(await first.ready)![1]!
    const rex = await created(url1, 'Rex')
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    const second = run(['--port', '0', '--quiet', '--api-key', 'k', '--data', file])
    onTestFinished(() => void second.child.kill('SIGKILL'))
    const started = await second.ready
    expect(started).toContain(`from the data file ${file}`)
    const url2 = /listening on (\S+)/.exec(started)![1]!
    const id = /"id":(\d+)/.exec(rex)![1]
    expect(await (await fetch(`${url2}/pets/${id}`, { headers: { authorization: 'Bearer k' } })).text()).toBe(rex)
    const tom = await created(url2, 'Tom')
    second.child.kill('SIGKILL') // no shutdown: what is on disk is what was flushed before each 201
    await second.exited
    const state = readFileSync(file, 'utf8') + readFileSync(`${file}.log`, 'utf8')
    expect(state).toContain(rex)
    expect(state).toContain(tom)
    // No temporary file left; the lock of the stub killed stays, naming it, for the next start to take over.
    expect(readdirSync(dirname(file)).sort()).toEqual(['state.json', 'state.json.lock', 'state.json.log'])
    expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: second.child.pid })
    const third = run(['--port', '0', '--quiet', '--api-key', 'k', '--data', file])
    onTestFinished(() => void third.child.kill('SIGKILL'))
    expect(await third.ready).toContain(`from the data file ${file}`)
  })

  it('prints curl lines that work as printed', async () => {
    const curl = await runProcess('curl', ['--version']).catch(() => undefined)
    if (!curl) return void console.warn('curl is not installed: the printed lines were not tried')
    const stub = run(['--port', '0', '--quiet'])
    onTestFinished(() => void stub.child.kill('SIGKILL'))
    const lines = (await stub.ready).split('\n').filter((line) => line.startsWith('  curl '))
    const statuses: string[] = []
    for (const line of lines)
      statuses.push(
        (await runProcess('curl', [...words(line.trim()).slice(1), '-s', '-o', '/dev/null', '-w', '%{http_code}']))
          .stdout,
      )
    expect(statuses).toEqual(['200', '201', '404'])
  })

  it('exits 2 with one line when the port is taken', async () => {
    const { port } = await start({ serve: () => serveSocket(() => undefined) })
    const taken = run(['--port', String(port), '--quiet'])
    expect(await taken.exited).toBe(2)
    expect(taken.output().stderr).toBe(
      `petstore-stub: port ${port} on 127.0.0.1 is already in use; choose another with --port\n`,
    )
  })

  it('keeps serving in bounded memory when nothing reads its log, and says how many lines it dropped', async () => {
    const stub = run(['--port', '0', '--api-key', 'k'])
    const url = /listening on (\S+)/.exec(await stub.ready)![1]!
    stub.child.stderr!.pause() // from now on nothing reads the log: the pipe fills, then the stub's own buffer would
    // About 3 MB of log lines, three times the backlog the stub holds for a log it cannot write.
    const target = `${url}/pets?limit=1&note=${'x'.repeat(240)}`
    for (let sent = 0; sent < 12_000; sent += 100) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, () => fetch(target, { headers: { authorization: 'Bearer k' } })),
      )
      for (const answer of answers) expect(answer.status).toBe(200)
      await Promise.all(answers.map((answer) => answer.arrayBuffer()))
    }
    stub.child.stderr!.resume()
    // Once the log is read again, the next lines say what was dropped: a request now and then gives it lines to write
    // (those that come while the stub's backlog still drains are dropped and counted too).
    await expect
      .poll(
        async () => {
          expect((await fetch(`${url}/pets/1`, { headers: { authorization: 'Bearer k' } })).status).toBe(200)
          return stub.output().stderr
        },
        { timeout: 20_000, interval: 250 },
      )
      .toMatch(/\n- - \d+ log lines dropped: the log was not being read\n[\s\S]*\nGET \/v1\/pets\/1 200 /)
    const lines = stub
      .output()
      .stderr.split('\n')
      .filter((line) => line.startsWith('GET /v1/pets?limit=1&note='))
    expect(lines.length).toBeGreaterThan(1000)
    expect(lines.length).toBeLessThan(12_000)
    stop(stub.child)
  }, 60_000)
})
