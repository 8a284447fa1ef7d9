import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { threadId } from 'node:worker_threads'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir, uptime } from 'node:os'
import { join } from 'node:path'
import { lockPathOf } from './data-lock.js'
import { dataFileOf, keepInFile, logPathOf, readDataFile } from './persist.js'
import { runProcessSync } from '../test-support/run-command.js'
import { createStub, startStub } from './stub.js'
import { AUTH, JSON_AUTH, KEY } from './testing.js'
import { ListenError } from './server.js'
import { PersistError, PetStore, StoreError } from './store.js'

let dir: string
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'stub-data-'))))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const pet = { name: 'Rex', categoryId: 9223372036854775807n }

/** The changes in a data file's log: its lines after the first, which names the snapshot the log follows. */
function loggedChanges(file: string): string[] {
  const [follows, ...changes] = readFileSync(logPathOf(file), 'utf8').split('\n')
  expect(follows).toMatch(/^\{"follows":"[0-9a-f]{64}"\}$/)
  expect(changes.at(-1)).toBe('') // every line whole
  return changes.slice(0, -1)
}

describe('the data file', () => {
  it('is absent until written: reading it gives nothing', () => {
    expect(readDataFile(join(dir, 'none.json'))).toBeUndefined()
  })

  it.each([
    ['not JSON', '{', /the data file .* is not valid JSON/],
    ['an empty file', '', /is not valid JSON/],
    ['a bad pet', '{"pets":[{"id":"1","name":"a","categoryId":1}]}', /the data file .*: pets\[0\]\.id must be integer/],
  ])('refuses %s with one line naming it', (_title, text, message) => {
    const file = join(dir, 'state.json')
    writeFileSync(file, text)
    expect(() => readDataFile(file)).toThrow(StoreError)
    expect(() => readDataFile(file)).toThrow(message)
    expect(() => createStub({ data: file })).toThrow(message)
    expect(readFileSync(file, 'utf8')).toBe(text)
  })

  it('refuses at once, naming it, a data file or log larger than Node reads as one text, and leaves it as it was', () => {
    for (const which of ['file', 'log'] as const) {
      const file = join(dir, `${which}.json`)
      const large = which === 'file' ? file : logPathOf(file)
      writeFileSync(large, '{"nextId":1,"pets":[]}')
      truncateSync(large, 600 * 1024 * 1024) // sparse: no disk taken; read whole it took 40 s and 4 GB to fail
      const message = `cannot read the data file${which === 'log' ? "'s log" : ''} ${large}: it holds 629145600 bytes`
      expect(() => readDataFile(file)).toThrow(message)
      expect(() => createStub({ data: file })).toThrow(message)
      expect(statSync(large).size).toBe(629145600)
      rmSync(large)
    }
  })

  it('writes a snapshot spread over many chunks of the store as the store has it, with no copy of it whole', async () => {
    const file = join(dir, 'state.json')
    const store = new PetStore()
    const kept = keepInFile(store, file)
    // Pets of 100 KB and of a few bytes, so that the store's 256 KiB chunks hold one, two or many of them.
    for (let i = 0; i < 12; i++) store.add({ name: i % 3 === 0 ? 'x'.repeat(100_000) : `pet ${i}`, categoryId: i })
    await store.settled()
    kept.close() // the shutdown folds the log into the snapshot
    expect(readFileSync(file, 'utf8')).toBe(store.stateJson())
    expect(loggedChanges(file)).toEqual([])
    expect(readDataFile(file)!.pets.map((p) => p.categoryId)).toEqual([...Array(12).keys()])
  })

  it('logs each change and flushes it before it settles; changes of one moment share the flush', async () => {
    const file = join(dir, 'state.json')
    const store = new PetStore()
    const kept = keepInFile(store, file)
    expect(readFileSync(file, 'utf8')).toBe('{"nextId":1,"pets":[]}')
    store.add(pet)
    const first = store.settled()
    store.add(pet)
    expect(store.settled()).toBe(first) // one batch, one flush
    await first
    expect(store.settled()).toBeUndefined()
    expect(loggedChanges(file)).toEqual([
      '{"add":{"id":1,"name":"Rex","categoryId":9223372036854775807}}',
      '{"add":{"id":2,"name":"Rex","categoryId":9223372036854775807}}',
    ])
    expect(readDataFile(file)!.pets).toHaveLength(2) // the snapshot and the log read together
    store.add(pet)
    kept.close() // shutdown folds the log into the snapshot
    expect(readFileSync(file, 'utf8')).toBe(store.stateJson())
    expect(loggedChanges(file)).toEqual([])
    expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.log'])
  })

  it('is read back by a new stub, which continues the ids', async () => {
    const file = join(dir, 'state.json')
    const first = createStub({ data: file, seed: false })
    first.store.add(pet)
    first.close()
    const second = createStub({ data: file })
    expect(second.store.size).toBe(1)
    expect(second.store.add(pet).pet.id).toBe(2)
    second.reset() // a reset goes to the seed, not to the file
    expect(second.store.size).toBeGreaterThan(1)
    second.close()
    expect(readDataFile(file)!.pets.length).toBe(second.store.size)
  })

  it('never gives an id again after a crash: the log keeps every id taken, with or without a pet', () => {
    const file = join(dir, 'state.json')
    writeFileSync(file, '{"nextId":3,"pets":[{"id":1,"name":"a","categoryId":1},{"id":2,"name":"b","categoryId":1}]}')
    writeFileSync(
      logPathOf(file),
      '{"add":{"id":1,"name":"a","categoryId":1}}\n{"add":{"id":3,"name":"c","categoryId":1}}\n{"nextId":9}\n{"add":{"id":9,"name":"d","categoryId":1}}\n',
    )
    // The first line is older than the snapshot (a crash between writing it and emptying the log): not added twice.
    const state = readDataFile(file)!
    expect(state.pets.map((p) => p.id)).toEqual([1, 2, 3, 9])
    expect(state.nextId).toBe(10)
  })

  it.each([
    [
      'a logged pet the spec refuses',
      '{"nextId":5,"pets":[]}',
      '{"add":{"id":9,"name":"a"}}\n',
      "the data file's log FILE.log, line 1: add must have required property 'categoryId'",
    ],
    [
      'a logged id twice',
      '{"nextId":5,"pets":[]}',
      '{"add":{"id":10,"name":"a","categoryId":1}}\n{"add":{"id":10,"name":"b","categoryId":1}}\n',
      "the data file's log FILE.log, line 2: add.id 10 is also the id of add",
    ],
    [
      'a logged id that the data file holds after it',
      '{"nextId":5,"pets":[{"id":1,"name":"a","categoryId":1}]}',
      '{"add":{"id":1,"name":"b","categoryId":1}}\n{"nextId":1}\n',
      '',
    ],
    [
      'a logged nextId past int64',
      '{"nextId":5,"pets":[]}',
      '{"nextId":99999999999999999999999}\n',
      "the data file's log FILE.log, line 1: nextId is past the largest id an int64 holds",
    ],
    [
      'a nextId at or below an id of the data file',
      '{"nextId":2,"pets":[{"id":7,"name":"a","categoryId":1}]}',
      '',
      'the data file FILE: nextId 2 must be above every pet id, the largest being 7',
    ],
  ])('names the file and the line of %s', (_title, saved, logged, message) => {
    const file = join(dir, 'state.json')
    writeFileSync(file, saved)
    if (logged) writeFileSync(logPathOf(file), logged)
    if (message === '') return void expect(readDataFile(file)!.pets.map((p) => p.id)).toEqual([1]) // not a mistake
    expect(() => readDataFile(file)).toThrow(message.replaceAll('FILE', file))
  })

  it.each([
    ['half a line', '{"add":{"id":3,"na'],
    ['a line without its newline', '{"add":{"id":3,"name":"c","categoryId":1}}'],
    ['zeros a crash left', '\0\0\0\0'],
  ])('drops a torn last record (%s) with one line saying so', (_title, tail) => {
    const file = join(dir, 'state.json')
    writeFileSync(file, '{"nextId":2,"pets":[{"id":1,"name":"a","categoryId":1}]}')
    writeFileSync(logPathOf(file), '{"add":{"id":2,"name":"b","categoryId":1}}\n' + tail)
    const notices: string[] = []
    const state = readDataFile(file, undefined, (line) => notices.push(line))!
    expect(state.pets.map((p) => p.id)).toEqual([1, 2])
    expect(notices).toHaveLength(1)
    expect(notices[0]).toMatch(/state\.json\.log ends in a torn record from a crash \(line 2, \d+ bytes\): dropped/)
  })

  it('refuses at once a data file or log that is no regular file (a FIFO would be waited on for ever)', () => {
    const file = join(dir, 'state.json')
    mkdirSync(file)
    expect(() => createStub({ data: file })).toThrow(`cannot use ${file} as the data file: it is a directory`)
    rmSync(file, { recursive: true })
    mkdirSync(logPathOf(file))
    expect(() => createStub({ data: file })).toThrow(
      `cannot use ${logPathOf(file)} as the data file's log: it is a directory`,
    )
    if (process.platform === 'win32') return
    expect(() => createStub({ data: '/dev/null' })).toThrow('cannot use /dev/null as the data file: it is a device')
    const fifo = join(dir, 'fifo.json')
    expect(runProcessSync('mkfifo', [fifo]).code).toBe(0)
    expect(() => createStub({ data: fifo })).toThrow(`cannot use ${fifo} as the data file: it is a named pipe (FIFO)`)
  })

  it('refuses a lock path that holds no lock file, never reading it (a FIFO would hold the start for ever)', () => {
    const file = join(dir, 'state.json')
    const lock = lockPathOf(file)
    mkdirSync(lock)
    expect(() => createStub({ data: file })).toThrow(
      `cannot use ${lock} as the data file's lock: it is a directory; remove it`,
    )
    rmSync(lock, { recursive: true })
    if (process.platform === 'win32') return
    symlinkSync('/dev/zero', lock) // read, it would never end
    expect(() => createStub({ data: file })).toThrow(
      `cannot use ${lock} as the data file's lock: it is a symbolic link; remove it`,
    )
    rmSync(lock)
    expect(runProcessSync('mkfifo', [lock]).code).toBe(0)
    expect(() => createStub({ data: file })).toThrow(
      `cannot use ${lock} as the data file's lock: it is a named pipe (FIFO); remove it`,
    )
    rmSync(lock)
    const stub = createStub({ data: file }) // once the path is clear, the start goes on
    stub.close()
  })

  it('refuses a whole last line that is no change: an acknowledged pet damaged since, not a torn write', () => {
    const file = join(dir, 'state.json')
    writeFileSync(file, '{"nextId":2,"pets":[{"id":1,"name":"a","categoryId":1}]}')
    for (const line of ['{"add":{"id":2,"name":"b"}', 'garbage', '{"op":"x"}']) {
      writeFileSync(logPathOf(file), `{"add":{"id":3,"name":"c","categoryId":1}}\n${line}\n`)
      expect(() => readDataFile(file)).toThrow(
        `state.json.log: line 2 is not a change the stub wrote (${JSON.stringify(line)}): the log was edited or damaged; mend or remove that line`,
      )
    }
    // Zeros where a power cut left blocks unwritten are a torn write, newline or not.
    writeFileSync(logPathOf(file), '{"add":{"id":3,"name":"c","categoryId":1}}\n\0\0\0\n\0\0')
    const notices: string[] = []
    expect(readDataFile(file, undefined, (line) => notices.push(line))!.pets.map((p) => p.id)).toEqual([1, 3])
    expect(notices[0]).toMatch(/ends in a torn record from a crash \(line 2, 6 bytes\)/)
  })

  it('refuses a log broken in the middle, naming the line: it is never emptied', () => {
    const file = join(dir, 'state.json')
    writeFileSync(file, '{"nextId":1,"pets":[]}')
    writeFileSync(
      logPathOf(file),
      '{"add":{"id":1,"name":"a","categoryId":1}}\nnot a change\n{"add":{"id":2,"name":"b","categoryId":1}}\n',
    )
    expect(() => readDataFile(file)).toThrow(
      /state\.json\.log: line 2 is not a change the stub wrote \("not a change"\)/,
    )
    expect(() => createStub({ data: file })).toThrow(StoreError)
    expect(readFileSync(logPathOf(file), 'utf8')).toContain('not a change')
  })

  it('refuses a log whose data file is missing, which would bring back changes without the pets before them', () => {
    const file = join(dir, 'state.json')
    writeFileSync(logPathOf(file), '{"add":{"id":40,"name":"a","categoryId":1}}\n')
    expect(() => readDataFile(file)).toThrow(
      `the data file ${file} is missing but its log ${logPathOf(file)} holds changes made after it: put the data file back, or remove the log to start afresh`,
    )
    expect(() => createStub({ data: file })).toThrow(StoreError)
    expect(readFileSync(logPathOf(file), 'utf8')).toContain('"id":40') // left as it was
    writeFileSync(logPathOf(file), '') // an empty log is nothing to lose: the stub starts from its seed
    expect(readDataFile(file)).toBeUndefined()
  })

  it.each([
    ['the data file removed', (file: string) => rmSync(file)],
    ['the log removed', (file: string) => rmSync(logPathOf(file))],
    ['the data file replaced', (file: string) => writeFileSync(file, '{"nextId":1,"pets":[]}')],
    ['the folder emptied', (file: string) => (rmSync(file), rmSync(logPathOf(file)))],
  ])(
    'writes everything again when a file is lost under it (%s): no pet answered before or after is lost',
    async (_title, lose) => {
      const file = join(dir, 'state.json')
      const notices: string[] = []
      const stub = createStub({ data: file, seed: false, onDataError: (line) => notices.push(line) })
      stub.store.add(pet)
      await stub.store.settled()
      lose(file)
      stub.store.add(pet)
      await stub.store.settled() // what a 201 waits for
      // A crash now: the next start reads what is on disk, with every pet acknowledged.
      expect(readDataFile(file)!.pets.map((p) => p.id)).toEqual([1, 2])
      expect(notices).toEqual([
        `the data file ${file} or its log was removed or replaced while the stub ran: both written again from the stub's pets`,
      ])
      stub.store.add(pet)
      await stub.store.settled()
      expect(readDataFile(file)!.pets.map((p) => p.id)).toEqual([1, 2, 3])
      expect(notices).toHaveLength(1) // noticed once: the files are the stub's again
      stub.close()
    },
  )

  it.skipIf(process.platform === 'win32')(
    'writes through no symbolic link planted at its temporary file or its log: another file is never written',
    async () => {
      const file = join(dir, 'state.json')
      const victim = join(dir, 'victim.txt')
      writeFileSync(victim, "not the stub's")
      // In a folder others can write to, the temporary file's name is easy to guess.
      symlinkSync(victim, `${file}.${process.pid}.tmp`)
      const stub = createStub({ data: file, seed: false })
      stub.store.add(pet)
      stub.close()
      expect(readFileSync(victim, 'utf8')).toBe("not the stub's")
      expect(readDataFile(file)!.pets).toHaveLength(1)
      rmSync(logPathOf(file))
      symlinkSync(victim, logPathOf(file))
      // The link is replaced by the stub's own log, made under another name and renamed over it: never written through.
      const again = createStub({ data: file })
      again.store.add(pet)
      await again.store.settled()
      again.close()
      expect(readFileSync(victim, 'utf8')).toBe("not the stub's")
      expect(lstatSync(logPathOf(file)).isSymbolicLink()).toBe(false)
      expect(readDataFile(file)!.pets).toHaveLength(2)
    },
  )

  it.each([
    ['a missing folder', (file: string) => join(file, '..', 'missing', 'state.json'), /ENOENT/],
    ['a directory', (file: string) => (mkdirSync(file), file), /directory/],
    ['a folder that is a file', (file: string) => (writeFileSync(file, ''), join(file, 'state.json')), /ENOTDIR/],
  ])('refuses a path that cannot be written (%s) at once, naming it', (_title, make, why) => {
    const path = make(join(dir, 'state.json'))
    expect(() => keepInFile(new PetStore(), path)).toThrow(PersistError)
    expect(() => createStub({ data: path })).toThrow(why)
    expect(() => createStub({ data: path })).toThrow(path)
  })

  it('answers 503 for a pet it cannot keep, stores nothing, never gives its id again, and recovers', async () => {
    const folder = join(dir, 'data')
    mkdirSync(folder)
    const file = join(folder, 'state.json')
    const stub = createStub({ data: file, seed: false })
    const create = (name: string) =>
      stub.fetch(
        new Request('http://stub.test/v1/pets', {
          method: 'POST',
          headers: { authorization: 'Bearer petstore-dev-key', 'content-type': 'application/json' },
          body: JSON.stringify({ name, categoryId: 1 }),
        }),
      )
    expect((await create('kept')).status).toBe(201)
    rmSync(folder, { recursive: true })
    writeFileSync(folder, 'the folder is a file now') // fails even for root, which file modes do not stop
    const refused = await create('lost')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await refused.json()).toMatchObject({ code: 'not_kept', status: 503 })
    expect(stub.store.size).toBe(1)
    rmSync(folder)
    mkdirSync(folder)
    const again = await create('kept again')
    expect(again.status).toBe(201)
    expect(((await again.json()) as { id: number }).id).toBe(3) // id 2 went to the pet refused: never given twice
    expect(readDataFile(file)!.pets.map((p) => p.name)).toEqual(['kept', 'kept again'])
    stub.close()
  })
})

describe("what reads see of a data file's pets", () => {
  it('shows a pet only once it is on disk: no client reads one whose create may yet be refused', async () => {
    const folder = join(dir, 'data')
    mkdirSync(folder)
    const file = join(folder, 'state.json')
    const stub = createStub({ data: file, seed: false, apiKeys: [KEY] })
    const read = async (path: string) => {
      const answer = await stub.fetch(new Request(`http://stub.test/v1${path}`, { headers: AUTH }))
      return [answer.status, await answer.json()] as const
    }
    const ids = async () => ((await read('/pets?limit=100'))[1] as { id: number }[]).map((p) => p.id)
    const kept = stub.store.add({ name: 'kept', categoryId: 1 }).pet
    // Read while its flush runs: neither by id, nor in a list, a state or a count.
    const state = async () =>
      ((await (await stub.fetch(new Request('http://stub.test/__stub/state'))).json()) as { pets: unknown[] }).pets
    const during = [read(`/pets/${kept.id}`), ids(), state()] as const
    expect([stub.store.size, stub.snapshot().pets.length]).toEqual([0, 0])
    await stub.store.settled()
    expect(await during[0]).toEqual([404, expect.objectContaining({ code: 'pet_not_found' })])
    expect(await during[1]).toEqual([])
    expect(await during[2]).toEqual([])
    expect(await state()).toHaveLength(1)
    expect(await read(`/pets/${kept.id}`)).toEqual([200, expect.objectContaining({ name: 'kept' })])
    expect(await ids()).toEqual([kept.id])
    // A pet that cannot be kept is never seen, before its 503 or after.
    rmSync(folder, { recursive: true })
    writeFileSync(folder, 'the folder is a file now')
    const lost = stub.store.add({ name: 'lost', categoryId: 1 }).pet
    const seen = read(`/pets/${lost.id}`)
    await expect(stub.store.settled()).rejects.toThrow(PersistError)
    expect((await seen)[0]).toBe(404)
    expect((await read(`/pets/${lost.id}`))[0]).toBe(404)
    expect(await ids()).toEqual([kept.id])
    rmSync(folder)
    mkdirSync(folder)
    stub.close()
  })
})

describe('a stub of the library, closed or refused', () => {
  it('answers 503 to a change once closed, and never gives an id it acknowledged again', async () => {
    const file = join(dir, 'state.json')
    const first = createStub({ data: file, seed: false, apiKeys: [KEY] })
    const create = (stub: ReturnType<typeof createStub>, name: string) =>
      stub.fetch(
        new Request('http://stub.test/v1/pets', {
          method: 'POST',
          headers: JSON_AUTH,
          body: JSON.stringify({ name, categoryId: 1 }),
        }),
      )
    expect((await create(first, 'kept')).status).toBe(201)
    first.close()
    const late = await create(first, 'after its close')
    expect(late.status).toBe(503)
    expect(await late.json()).toMatchObject({ code: 'not_kept', message: expect.stringContaining('is closed') })
    expect(() => first.reset()).toThrow(PersistError)
    const second = createStub({ data: file, seed: false, apiKeys: [KEY] })
    expect(((await (await create(second, 'next')).json()) as { id: number }).id).toBe(2)
    second.close()
  })

  it('lets the data file go when an option is refused, early or late', () => {
    const file = join(dir, 'state.json')
    expect(() => createStub({ data: file, fault: 'nope' as never })).toThrow('no fault is named "nope"')
    expect(() => createStub({ data: file, apiKeys: [] })).toThrow('apiKeys must be a list of at least one key')
    expect(() => createStub({ data: file, adminKey: '' })).toThrow('adminKey must be visible ASCII')
    expect(() => createStub({ data: file, allowOrigins: 5 as never })).toThrow(TypeError) // found once the file is held
    expect(readdirSync(dir)).not.toContain('state.json.lock')
    createStub({ data: file }).close()
  })
})

describe('a data file given through a symbolic link', () => {
  it('is kept in the file the link points to: the link stays, and a stub given either name shares the lock', async () => {
    mkdirSync(join(dir, 'synced'))
    const target = join(dir, 'synced', 'pets.json')
    const link = join(dir, 'pets.json')
    symlinkSync(join('synced', 'pets.json'), link) // relative to the link's folder, as `ln -s` makes it
    const stub = createStub({ data: link, seed: false })
    expect(stub.dataFile).toBe(target)
    stub.store.add(pet)
    await stub.store.settled()
    expect(readFileSync(logPathOf(target), 'utf8')).toContain('"name":"Rex"')
    expect(() => createStub({ data: target })).toThrow(/is in use by another stub of this process/)
    stub.close() // folds the log into the snapshot, renamed into place
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readdirSync(dir).sort()).toEqual(['pets.json', 'synced'])
    expect(readdirSync(join(dir, 'synced')).sort()).toEqual(['pets.json', 'pets.json.log'])
    expect(readDataFile(target)?.pets).toEqual([{ id: 1, ...pet }])
  })

  it('makes the file a dangling link points to, through a chain of links', () => {
    const target = join(dir, 'later.json')
    symlinkSync(target, join(dir, 'b.json'))
    symlinkSync('b.json', join(dir, 'a.json'))
    expect(dataFileOf(join(dir, 'a.json'))).toBe(target)
    const stub = createStub({ data: join(dir, 'a.json'), seed: false })
    stub.store.add(pet)
    stub.close()
    expect(readDataFile(target)?.pets).toHaveLength(1)
    expect(lstatSync(join(dir, 'a.json')).isSymbolicLink()).toBe(true)
  })

  it("refuses another user's link in a folder anyone may write to, and a loop of links, touching nothing", () => {
    const victim = join(dir, 'victim.txt')
    writeFileSync(victim, 'keep me')
    const shared = join(dir, 'shared')
    mkdirSync(shared)
    chmodSync(shared, 0o1777) // as /tmp
    symlinkSync(victim, join(shared, 'pets.json'))
    symlinkSync(victim, join(dir, 'own.json'))
    const me = process.getuid?.() ?? 0
    const another = me + 1
    expect(() => dataFileOf(join(shared, 'pets.json'), another)).toThrow(PersistError)
    expect(() => dataFileOf(join(shared, 'pets.json'), another)).toThrow(
      /pets\.json is a symbolic link in a folder anyone may write to, made by another user \(uid \d+\): it is not followed/,
    )
    expect(dataFileOf(join(shared, 'pets.json'), me)).toBe(victim) // the user's own link is followed
    expect(dataFileOf(join(dir, 'own.json'), another)).toBe(victim) // in a folder only its owner writes to, too
    symlinkSync('loop-b.json', join(dir, 'loop-a.json'))
    symlinkSync('loop-a.json', join(dir, 'loop-b.json'))
    expect(() => createStub({ data: join(dir, 'loop-a.json') })).toThrow(/loop-a\.json is a loop of symbolic links/)
    expect(readFileSync(victim, 'utf8')).toBe('keep me')
  })
})

describe('one stub per data file', () => {
  const saved = '{"nextId":2,"pets":[{"id":1,"name":"a","categoryId":1}]}'
  const logged = '{"add":{"id":2,"name":"b","categoryId":1}}\n'

  /** A data file with a snapshot and a logged change, which a refused start must leave as they are. */
  function dataFile(): string {
    const file = join(dir, 'state.json')
    writeFileSync(file, saved)
    writeFileSync(logPathOf(file), logged)
    return file
  }

  const holder = (file: string) => (JSON.parse(readFileSync(lockPathOf(file), 'utf8')) as { pid: number }).pid

  it('refuses a second stub of this process on the file until the first closes, and leaves the file as it was', () => {
    const file = dataFile()
    const first = createStub({ data: file })
    expect(holder(file)).toBe(process.pid)
    first.store.add(pet)
    expect(() => createStub({ data: file })).toThrow(PersistError)
    expect(() => createStub({ data: join(dir, '.', 'state.json') })).toThrow(
      /the data file .*state\.json is in use by another stub of this process/,
    )
    expect(first.store.stored).toBe(3) // the refused start took nothing from the first
    first.close()
    expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.log']) // the lock goes with its stub
    const second = createStub({ data: file })
    expect(second.store.size).toBe(3)
    second.close()
  })

  it('puts back its lock when it is removed under it, so that a second stub is still refused', async () => {
    const file = dataFile()
    const stub = createStub({ data: file })
    rmSync(lockPathOf(file)) // a clean-up script
    stub.store.add(pet)
    await stub.store.settled()
    expect(holder(file)).toBe(process.pid)
    stub.close()
    expect(readdirSync(dir)).not.toContain('state.json.lock')
  })

  it('keeps no more changes once another stub took the file while its lock was gone, and never writes over its files', async () => {
    const file = dataFile()
    const notices: string[] = []
    const stub = createStub({ data: file, onDataError: (line) => notices.push(line) })
    stub.store.add(pet)
    await stub.store.settled()
    // Another stub starts while the lock is gone: it takes the lock and writes the state it read as its snapshot.
    rmSync(lockPathOf(file))
    const theirs = { lock: JSON.stringify({ pid: process.ppid }) + '\n', snapshot: stub.store.stateJson() }
    writeFileSync(lockPathOf(file), theirs.lock)
    writeFileSync(file, theirs.snapshot)
    writeFileSync(logPathOf(file), '')
    const size = stub.store.size
    stub.store.add(pet)
    await expect(stub.store.settled()).rejects.toThrow(
      `the data file ${file} is kept by another stub now (process ${process.ppid}), started while this one's lock was removed: this stub keeps no more changes; stop it`,
    )
    expect(stub.store.size).toBe(size) // the change not kept is taken back
    expect(notices).toHaveLength(1)
    expect(() => stub.reset()).toThrow(PersistError) // a reset writes the whole state: not over that stub's files
    stub.close() // no last write either
    expect(readFileSync(file, 'utf8')).toBe(theirs.snapshot)
    expect(readFileSync(logPathOf(file), 'utf8')).toBe('')
    expect(readFileSync(lockPathOf(file), 'utf8')).toBe(theirs.lock)
  })

  it('writes nothing over the files of a stub that took the file, even when its first change since is a reset', () => {
    const file = dataFile()
    const stub = createStub({ data: file })
    rmSync(lockPathOf(file))
    const theirs = JSON.stringify({ pid: process.ppid }) + '\n'
    writeFileSync(lockPathOf(file), theirs)
    writeFileSync(file, '{"nextId":1,"pets":[]}')
    expect(() => stub.reset()).toThrow(/is kept by another stub now/)
    stub.close()
    expect(readFileSync(file, 'utf8')).toBe('{"nextId":1,"pets":[]}')
    expect(readFileSync(lockPathOf(file), 'utf8')).toBe(theirs)
  })

  it('refuses a file another running process holds, naming it and how to recover, and touches nothing', () => {
    const file = dataFile()
    const lock = JSON.stringify({ pid: process.ppid }) + '\n' // a process that runs: the one that started this test
    writeFileSync(lockPathOf(file), lock)
    expect(() => createStub({ data: file })).toThrow(
      new RegExp(`is in use by another stub \\(process ${process.ppid}\\): .* remove .*state\\.json\\.lock`),
    )
    expect(readFileSync(file, 'utf8')).toBe(saved)
    expect(readFileSync(logPathOf(file), 'utf8')).toBe(logged) // not folded, not emptied
    expect(readFileSync(lockPathOf(file), 'utf8')).toBe(lock)
  })

  it('waits for the process a lock names to end when it ends within a second (a restart right after a kill -9)', () => {
    // A process that ends 300 ms from now and is no child of this one (its parent has gone): the stub of a kill -9
    // whose memory the system is still freeing, or that its parent has not reaped yet.
    const ending = Number(
      runProcessSync(process.execPath, [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300)'], { detached: true, stdio: 'ignore' }); c.unref(); console.log(c.pid)`,
      ]).stdout,
    )
    const file = dataFile()
    writeFileSync(lockPathOf(file), JSON.stringify({ pid: ending }) + '\n')
    const stub = createStub({ data: file })
    expect(holder(file)).toBe(process.pid)
    expect(stub.store.size).toBe(2)
    stub.close()
  })

  it('reads the file only once it holds it: what a stub still stopping acknowledges meanwhile is kept', () => {
    const file = dataFile()
    // The stub on the file, stopping (no child of this process, its parent gone): it acknowledges one more create,
    // flushed to the log 150 ms from now, and ends.
    const script = `
      const { writeFileSync } = require('node:fs')
      const stopping = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(
        `setTimeout(() => require('node:fs').appendFileSync(${JSON.stringify(logPathOf(file))}, '{"add":{"id":3,"name":"late","categoryId":1}}\\n'), 150)`,
      )}], { detached: true, stdio: 'ignore' })
      stopping.unref()
      writeFileSync(${JSON.stringify(lockPathOf(file))}, JSON.stringify({ pid: stopping.pid }) + '\\n')`
    expect(runProcessSync(process.execPath, ['-e', script]).code).toBe(0)
    const stub = createStub({ data: file })
    expect(stub.store.find(3)).toContain('"late"') // acknowledged by the stub that stopped: never lost
    expect(stub.store.size).toBe(3)
    stub.close()
  })

  it.runIf(existsSync('/proc/self/stat'))(
    'takes over a lock whose process id another process has now, by when that process started (Linux)',
    () => {
      const stat = readFileSync(`/proc/${process.ppid}/stat`, 'latin1')
      const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!
      for (const [lock, taken] of [
        [{ pid: process.ppid, started: '1' }, true], // a stub that ran as this process id before a container restart
        [{ pid: process.ppid, started }, false], // the process that made it, still running
      ] as const) {
        const file = dataFile()
        writeFileSync(lockPathOf(file), JSON.stringify(lock) + '\n')
        if (!taken) {
          expect(() => createStub({ data: file })).toThrow(`is in use by another stub (process ${process.ppid})`)
          continue
        }
        const stub = createStub({ data: file })
        expect(JSON.parse(readFileSync(lockPathOf(file), 'utf8'))).toEqual({
          pid: process.pid,
          origin: performance.timeOrigin,
          thread: threadId,
          started: expect.stringMatching(/^[0-9]+$/),
          boot: readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim(),
        })
        expect(stub.store.size).toBe(2)
        stub.close()
      }
    },
  )

  it('refuses a file a stub of another thread of this process holds, and takes over one an earlier process left', () => {
    // Workers of one process share its id and its clock's origin; their sets of files held are their own. A lock of
    // this process's id was taken over as a container's earlier run's: two workers gave the same ids, and lost pets.
    for (const [lock, taken] of [
      [{ pid: process.pid, origin: performance.timeOrigin, thread: threadId + 1 }, false], // another worker's stub
      [{ pid: process.pid, origin: performance.timeOrigin - 60_000, thread: threadId }, true], // an earlier process
      [{ pid: process.pid }, true], // an earlier process, of a version that wrote no origin
    ] as const) {
      const file = dataFile()
      writeFileSync(lockPathOf(file), JSON.stringify(lock) + '\n')
      if (!taken) {
        expect(() => createStub({ data: file })).toThrow(
          `in use by a stub of another thread of this process (thread ${threadId + 1})`,
        )
        continue
      }
      const stub = createStub({ data: file })
      expect(JSON.parse(readFileSync(lockPathOf(file), 'utf8'))).toMatchObject({ pid: process.pid, thread: threadId })
      stub.close()
      expect(existsSync(lockPathOf(file))).toBe(false)
    }
  })

  it('takes over a lock made before the machine last started, whatever process has its id now (a power cut)', () => {
    const booted = Date.now() - uptime() * 1000
    for (const [made, taken] of [
      [booted - 10 * 60_000, true], // the lock of a stub that ran before the machine started again
      [booted + 1_000, false], // a stub that started with this boot, the clock set forward since: still running
    ] as const) {
      const file = dataFile()
      const lock = JSON.stringify({ pid: process.ppid }) + '\n' // a running process, as after a reboot
      writeFileSync(lockPathOf(file), lock)
      utimesSync(lockPathOf(file), new Date(made), new Date(made))
      if (!taken) {
        expect(() => createStub({ data: file })).toThrow(`is in use by another stub (process ${process.ppid})`)
        expect(readFileSync(lockPathOf(file), 'utf8')).toBe(lock)
        continue
      }
      const stub = createStub({ data: file })
      expect(holder(file)).toBe(process.pid)
      expect(stub.store.size).toBe(2) // nothing kept before the power cut is lost
      stub.close()
    }
  })

  it.runIf(existsSync('/proc/sys/kernel/random/boot_id'))(
    'tells the boots apart by the id Linux gives each, not by the clock, which may have been set forward since (Linux)',
    () => {
      const stat = readFileSync(`/proc/${process.ppid}/stat`, 'latin1')
      const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!
      const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim()
      const longAgo = new Date(Date.now() - uptime() * 1000 - 3_600_000) // the lock's time before this boot's start
      for (const [lock, taken] of [
        // A process of another boot, whatever runs now with the same id and start time (a boot as alike as the last).
        [{ pid: process.ppid, started, boot: '00000000-0000-4000-8000-000000000000' }, true],
        // A stub of this boot still running, its lock's time now before the boot's start: the clock was set forward.
        [{ pid: process.ppid, started, boot }, false],
      ] as const) {
        const file = dataFile()
        writeFileSync(lockPathOf(file), JSON.stringify(lock) + '\n')
        utimesSync(lockPathOf(file), longAgo, longAgo)
        if (!taken) {
          expect(() => createStub({ data: file })).toThrow(`is in use by another stub (process ${process.ppid})`)
          continue
        }
        const stub = createStub({ data: file })
        expect(holder(file)).toBe(process.pid)
        stub.close()
      }
    },
  )

  it('takes over a lock whose process is gone (a crash), or that a crash left half made', () => {
    // A process that has exited and been reaped: its id names no process now.
    const gone = Number(runProcessSync(process.execPath, ['-e', 'console.log(process.pid)']).stdout)
    for (const left of [JSON.stringify({ pid: gone }), '', '{"pid":']) {
      const file = dataFile()
      writeFileSync(lockPathOf(file), left)
      // The snapshot the crashed stub was writing when it died goes too: nothing else would ever remove it.
      writeFileSync(`${file}.${gone}.tmp`, '{"nextId":1,')
      const long = new Date(Date.now() - 60_000)
      utimesSync(lockPathOf(file), long, long)
      const stub = createStub({ data: file })
      expect(holder(file)).toBe(process.pid)
      expect(stub.store.size).toBe(2)
      stub.close()
      expect(readdirSync(dir)).not.toContain('state.json.lock')
      if (left !== '' && left !== '{"pid":') expect(readdirSync(dir)).not.toContain(`state.json.${gone}.tmp`)
      rmSync(`${file}.${gone}.tmp`, { force: true })
    }
    // An empty lock dated an hour ahead: made before the clock was set back, not a moment ago by a starting stub.
    const file = dataFile()
    writeFileSync(lockPathOf(file), '')
    const ahead = new Date(Date.now() + 3_600_000)
    utimesSync(lockPathOf(file), ahead, ahead)
    const stub = createStub({ data: file })
    expect(holder(file)).toBe(process.pid)
    stub.close()
  })

  it('holds no lock for a stub that could not be made', () => {
    const file = dataFile()
    expect(() => createStub({ data: file, like: join(dir, 'no-such-report.json') })).toThrow()
    expect(readdirSync(dir)).not.toContain('state.json.lock')
    const stub = createStub({ data: file }) // not refused as in use by the stub that never was
    expect(stub.store.size).toBe(2)
    stub.close()
  })

  it('holds no lock for a stub that could not listen: a start on another port has the file', async () => {
    const file = dataFile()
    const blocker = await startStub({ seed: false }) // holds a port
    try {
      await expect(startStub({ data: file, port: blocker.port })).rejects.toThrow(ListenError)
      expect(readdirSync(dir)).not.toContain('state.json.lock')
      const stub = await startStub({ data: file })
      expect(holder(file)).toBe(process.pid)
      expect(stub.store.size).toBe(2)
      await stub.close()
    } finally {
      await blocker.close()
    }
  })

  it('refuses a lock just made and not yet written: another stub is starting', () => {
    const file = dataFile()
    writeFileSync(lockPathOf(file), '')
    expect(() => createStub({ data: file })).toThrow(/is in use by another stub \(starting now\)/)
    expect(readFileSync(logPathOf(file), 'utf8')).toBe(logged)
  })
})
