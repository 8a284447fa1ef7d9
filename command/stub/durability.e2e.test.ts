// `petstore-stub --data` in child processes under crashes and faults: kill -9 during concurrent creates, paths that
// cannot be written, writes that fail later, two stubs started on one file, a container started again, a flood of the
// largest creates.
import { describe, expect, it, onTestFinished } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BINS, runProcessSync, startProcess } from '../../test-support/run-command.js'

// PETSTORE_STUB_BIN_UNDER_TEST runs the battery against another build (an older one, to see it fail).
const BIN = process.env.PETSTORE_STUB_BIN_UNDER_TEST ?? BINS.stub
const AUTH = { authorization: 'Bearer k', 'content-type': 'application/json' }

/** Runs the bin; `url` resolves with the interface's address once it listens. */
function run(args: string[]) {
  const running = startProcess(process.execPath, [BIN, '--port', '0', '--quiet', '--api-key', 'k', ...args])
  onTestFinished(() => running.stop('SIGKILL'))
  const exited = running.exited.then((done) => done.code)
  const url = running.waitFor(/listening on (\S+)[\s\S]*Prefer: code=404.*\n/).then((match) => match[1]!)
  url.catch(() => undefined)
  return { child: running.child, url, exited, stderr: () => running.output().stderr }
}

function statOrNothing(path: string) {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-durable-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function create(url: string, name: string): Promise<Response> {
  return await fetch(`${url}/pets`, { method: 'POST', headers: AUTH, body: JSON.stringify({ name, categoryId: 7 }) })
}

/** The pets a stub started anew on `file` serves: what the file kept. */
async function petsKeptIn(file: string): Promise<unknown> {
  const stub = run(['--data', file, '--no-seed'])
  return await (await fetch(`${await stub.url}/pets`, { headers: AUTH })).json()
}

describe('--data under kill -9', () => {
  it('loses no pet answered 201 and never gives an id twice, whenever the kill comes', async () => {
    const file = join(scratch(), 'pets.json')
    /** Every pet answered 201, by id: a second 201 with the same id is an id given twice. */
    const acknowledged = new Map<string, string>()
    let reissued = 0
    for (let round = 0; round < 4; round++) {
      const stub = run(['--data', file, '--no-seed'])
      const url = await stub.url
      // Every pet acknowledged before this start is here, as it was answered.
      const state = await (await fetch(url.replace(/\/v1$/, '/__stub/state'))).text()
      for (const [id, json] of acknowledged) expect(state, `pet ${id}`).toContain(json)
      let killed = false
      let failed: unknown
      const worker = async (n: number) => {
        for (let i = 0; !killed; i++) {
          try {
            const response = await create(url, `round ${round} worker ${n} pet ${i}`)
            if (response.status !== 201) throw new Error(`create answered ${response.status}`)
            const json = await response.text()
            const id = /"id":(\d+)/.exec(json)![1]!
            if (acknowledged.has(id)) reissued++
            acknowledged.set(id, json)
          } catch (error) {
            if (!killed) throw (failed = error)
          }
        }
      }
      const before = acknowledged.size
      const workers = Array.from({ length: 12 }, (_, n) => worker(n))
      // The kill comes at a random moment once this round has had 30 creates answered, however loaded the machine.
      while (acknowledged.size - before < 30 && failed === undefined)
        await new Promise((resolve) => setTimeout(resolve, 10))
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 400))
      killed = true
      stub.child.kill('SIGKILL')
      await Promise.all(workers)
      await stub.exited
    }
    expect(reissued).toBe(0)
    const last = run(['--data', file, '--no-seed'])
    const url = await last.url
    const state = await (await fetch(url.replace(/\/v1$/, '/__stub/state'))).text()
    const missing = [...acknowledged].filter(([, json]) => !state.includes(json)).map(([id]) => id)
    expect(missing).toEqual([])
    expect(acknowledged.size).toBeGreaterThan(100)
  }, 60_000)
})

describe('--data under kill -9 during a reset', () => {
  it('comes back as the state before the reset or the state after it, never a mix of the two', async () => {
    const dir = scratch()
    const file = join(dir, 'pets.json')
    for (let round = 0; round < 3; round++) {
      // Two pets folded into the snapshot (a clean stop), two more in the log after it.
      const first = run(['--data', file, '--no-seed'])
      for (const name of ['folded 1', 'folded 2']) expect((await create(await first.url, name)).status).toBe(201)
      first.child.kill('SIGTERM')
      expect(await first.exited).toBe(0)
      const stub = run(['--data', file, '--no-seed'])
      const url = await stub.url
      for (const name of ['logged 1', 'logged 2']) expect((await create(url, name)).status).toBe(201)
      const admin = url.replace(/\/v1$/, '/__stub')
      const before = await (await fetch(`${admin}/state`)).json()
      // Killed the moment the reset's snapshot takes the data file's name, before its new log takes the log's.
      const inode = statSync(file).ino
      const watcher = watch(dir, () => {
        if (statOrNothing(file)?.ino !== inode) stub.child.kill('SIGKILL')
      })
      onTestFinished(() => watcher.close())
      await fetch(`${admin}/reset`, { method: 'POST' }).catch(() => undefined) // never answered, or answered 200
      watcher.close()
      stub.child.kill('SIGKILL')
      await stub.exited
      const after = run(['--data', file, '--no-seed'])
      const state = await (await fetch(`${(await after.url).replace(/\/v1$/, '/__stub')}/state`)).json()
      // The reset (to no pets) happened, or it did not: before, the log's pets came back on top of the reset state
      // and the folded ones were lost ([3, 4] of [1, 2, 3, 4]).
      expect([before, { nextId: 1, pets: [] }]).toContainEqual(state)
      after.child.kill('SIGTERM')
      expect(await after.exited).toBe(0)
    }
  }, 60_000)
})

describe('--data whose files are lost under the running stub', () => {
  it('writes them again at the next change, so a kill -9 after it loses no pet; a log left alone stops the start', async () => {
    const file = join(scratch(), 'pets.json')
    const started = async () => {
      const stub = run(['--data', file, '--no-seed'])
      return { stub, url: await stub.url }
    }
    const killed = async ({ stub }: { stub: ReturnType<typeof run> }) => {
      stub.child.kill('SIGKILL')
      await stub.exited
    }
    const first = await started()
    expect((await create(first.url, 'before')).status).toBe(201)
    await killed(first)
    const second = await started() // its start folds the first pet into the data file
    rmSync(file) // a clean-up script, or a user starting afresh with the stub still running
    expect((await create(second.url, 'after')).status).toBe(201)
    await killed(second)
    const third = await started()
    const state = await (await fetch(third.url.replace(/\/v1$/, '/__stub/state'))).json()
    expect(state).toMatchObject({
      nextId: 3,
      pets: [
        { id: 1, name: 'before' },
        { id: 2, name: 'after' },
      ],
    })
    expect(second.stub.stderr()).toContain(
      `the data file ${file} or its log was removed or replaced while the stub ran`,
    )
    expect((await create(third.url, 'logged')).status).toBe(201)
    await killed(third)
    // The data file alone removed: its log would bring back the last change without the pets before it.
    rmSync(file)
    const refused = run(['--data', file, '--no-seed'])
    expect(await refused.exited).toBe(2)
    expect(refused.stderr().trim()).toBe(
      `petstore-stub: the data file ${file} is missing but its log ${file}.log holds changes made after it: put the data file back, or remove the log to start afresh`,
    )
  }, 30_000)
})

describe('--data that cannot be written', () => {
  it.each([
    ['a missing folder', (dir: string) => join(dir, 'no-such-folder', 'pets.json')],
    ['a folder that is a file', (dir: string) => (writeFileSync(join(dir, 'f'), ''), join(dir, 'f', 'pets.json'))],
  ])(
    'stops the start with exit 2 and one line naming it (%s)',
    async (_title, make) => {
      const path = make(scratch())
      const stub = run(['--data', path])
      expect(await stub.exited).toBe(2)
      const lines = stub.stderr().trimEnd().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^petstore-stub: cannot (write|read) the data file /)
      expect(lines[0]).toContain(path)
    },
    15_000,
  )

  it('stops the start with exit 2 and one line when the client report would be written over the data file', async () => {
    const dir = scratch()
    const file = join(dir, 'pets.json')
    const first = run(['--data', file, '--no-seed'])
    expect((await create(await first.url, 'kept')).status).toBe(201)
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    const kept = readFileSync(file, 'utf8')
    symlinkSync('pets.json', join(dir, 'link.json'))
    for (const report of [file, join(dir, 'link.json'), `${file}.log`]) {
      const refused = run(['--data', file, '--client-report', report])
      expect(await refused.exited).toBe(2)
      expect(refused.stderr().trim()).toMatch(
        /^petstore-stub: --client-report .* is the data file('s log)?: the report/,
      )
    }
    expect(readFileSync(file, 'utf8')).toBe(kept)
    expect(kept).toContain('"kept"')
  })

  it('answers 503 with Retry-After when a write fails later, stores nothing, and recovers', async () => {
    const dir = scratch()
    const folder = join(dir, 'data')
    mkdirSync(folder)
    const stub = run(['--data', join(folder, 'pets.json'), '--no-seed'])
    const url = await stub.url
    expect((await create(url, 'kept')).status).toBe(201)
    // The folder replaced by a file: no write there can succeed, even as root (whom file modes do not stop).
    rmSync(folder, { recursive: true })
    writeFileSync(folder, '')
    const refused = await create(url, 'not kept')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await refused.json()).toMatchObject({ status: 503, code: 'not_kept' })
    const listed = await (await fetch(`${url}/pets`, { headers: AUTH })).text()
    expect(listed).not.toContain('not kept')
    rmSync(folder)
    mkdirSync(folder)
    expect((await create(url, 'kept again')).status).toBe(201)
    stub.child.kill('SIGKILL')
    await stub.exited
    const again = run(['--data', join(folder, 'pets.json'), '--no-seed'])
    const pets = await (await fetch(`${await again.url}/pets`, { headers: AUTH })).text()
    expect(pets).toContain('"kept"')
    expect(pets).toContain('"kept again"')
  })
})

describe('--data in use by another stub', () => {
  it('stops a second stub on the file with exit 2 and one line; the first keeps every pet, and a crash frees the file', async () => {
    const file = join(scratch(), 'pets.json')
    const first = run(['--data', file, '--no-seed'])
    const url = await first.url
    expect((await create(url, 'first')).status).toBe(201)
    const second = run(['--data', file, '--no-seed'])
    // A second stub that starts would answer 201 with the first one's ids.
    expect(await Promise.race([second.exited, second.url.then(() => 'listening')])).toBe(2)
    const lines = second.stderr().trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      new RegExp(
        `^petstore-stub: the data file .*pets\\.json is in use by another stub \\(process ${first.child.pid}\\)`,
      ),
    )
    // The refused start wrote nothing: the first stub's pets and ids go on.
    const next = await create(url, 'second')
    expect(await next.json()).toMatchObject({ id: 2, name: 'second' })
    first.child.kill('SIGKILL')
    await first.exited
    expect(await petsKeptIn(file)).toMatchObject([
      { id: 1, name: 'first' },
      { id: 2, name: 'second' },
    ])
  })

  // A container started again: a new process-id namespace, where the id the lock names is another program's. Needs
  // root and util-linux's unshare (CI has both).
  const namespaces =
    process.platform === 'linux' &&
    process.getuid?.() === 0 &&
    runProcessSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).code === 0
  it.runIf(namespaces)(
    'takes the file over after a kill -9 when a new container gives the process id its lock names to another program',
    async () => {
      const file = join(scratch(), 'pets.json')
      /** The stub as a container's second process (a shell as the first), in a namespace of its own. */
      const container = (first: string) => {
        const script = `${first}\n"$0" "$@"\ntrue` // not exec: the shell stays the first process, the stub the second
        const stub = [process.execPath, BIN, '--port', '0', '--quiet', '--api-key', 'k', '--data', file, '--no-seed']
        const running = startProcess('unshare', [
          '--pid',
          '--fork',
          '--mount-proc',
          '--kill-child',
          'sh',
          '-c',
          script,
          ...stub,
        ])
        onTestFinished(() => running.stop('SIGKILL'))
        const url = running.waitFor(/listening on (\S+)/).then((match) => match[1]!)
        url.catch(() => undefined)
        return { running, url }
      }
      const before = container('true')
      expect((await create(await before.url, 'kept')).status).toBe(201)
      expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: 2 })
      before.running.stop('SIGKILL') // the container killed: its stub with it (--kill-child)
      await before.running.exited
      // The new container runs another program first: it has process id 2, which the lock names.
      const after = container('sleep 60 &')
      const url = await after.url
      expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: 3 })
      expect(await (await fetch(`${url}/pets`, { headers: AUTH })).json()).toMatchObject([{ id: 1, name: 'kept' }])
    },
  )

  it('stops keeping the file when its lock was removed and another stub started on it: no pet of either is lost', async () => {
    const file = join(scratch(), 'pets.json')
    const first = run(['--data', file, '--no-seed'])
    const firstUrl = await first.url
    expect((await create(firstUrl, 'kept by the first')).status).toBe(201)
    rmSync(`${file}.lock`) // a clean-up script, or the line's advice followed while the stub runs
    const second = run(['--data', file, '--no-seed'])
    const secondUrl = await second.url
    const refused = await create(firstUrl, 'refused by the first')
    expect(refused.status).toBe(503)
    expect(await refused.json()).toMatchObject({ code: 'not_kept', message: expect.stringContaining('another stub') })
    expect(await (await create(secondUrl, 'kept by the second')).json()).toMatchObject({ id: 2 })
    first.child.kill('SIGTERM') // a clean stop writes nothing over the second stub's files
    await first.exited
    second.child.kill('SIGKILL')
    await second.exited
    expect(await petsKeptIn(file)).toMatchObject([
      { id: 1, name: 'kept by the first' },
      { id: 2, name: 'kept by the second' },
    ])
    expect(first.stderr()).toContain(`the data file ${file} is kept by another stub now (process ${second.child.pid})`)
  })
})

describe('--data under a flood of the largest creates', () => {
  it('refuses creates past --max-store with 400 store_full, and starts again after kill -9 with every pet answered 201', async () => {
    const file = join(scratch(), 'pets.json')
    const stub = run(['--data', file, '--no-seed', '--max-store', '1000000'])
    const url = await stub.url
    const name = 'x'.repeat(60_000) // the largest body the default --max-body takes
    const acknowledged: string[] = []
    const refused: string[] = []
    const worker = async () => {
      while (refused.length < 8) {
        const response = await create(url, name)
        const body = (await response.json()) as { id?: number; code?: string }
        if (response.status === 201) acknowledged.push(String(body.id))
        else refused.push(`${response.status} ${body.code}`)
      }
    }
    await Promise.all(Array.from({ length: 4 }, worker))
    expect(new Set(refused)).toEqual(new Set(['400 store_full']))
    expect(acknowledged.length).toBeGreaterThanOrEqual(16) // 1,000,000 bytes of 60,000-byte pets
    expect(acknowledged.length).toBeLessThanOrEqual(17)
    const state = await fetch(url.replace(/\/v1$/, '/__stub/state'))
    expect(state.status).toBe(200)
    stub.child.kill('SIGKILL')
    await stub.exited
    const kept = (await petsKeptIn(file)) as { id: number }[]
    expect(kept.map((pet) => String(pet.id)).sort()).toEqual([...acknowledged].sort())
  })
})
