// The data file's files changed under a running stub, and a crash between the two renames of a compaction: what a
// battery of crash and file-system faults found to lose acknowledged pets, or to hang the stub.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { disk, ownerReadWrite } from './disk.js'
import { keepInFile, logPathOf, readDataFile } from './persist.js'
import { createStub } from './stub.js'
import { PersistError, PetStore } from './store.js'
import { runProcessSync } from '../test-support/run-command.js'

let dir: string
let file: string
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'stub-faults-')))
  file = join(dir, 'pets.json')
})
afterEach(() => {
  Object.assign(disk, real)
  fs.rmSync(dir, { recursive: true, force: true })
})

const real = { ...disk }
const names = (path = file, notices?: string[]) =>
  readDataFile(path, undefined, (notice) => notices?.push(notice))!.pets.map((pet) => pet.name)

describe('a crash between the two renames of a compaction', () => {
  it('leaves the new snapshot whole: the old log names another snapshot and is left out, not read on top of it', async () => {
    const store = new PetStore()
    const errors: string[] = []
    const kept = keepInFile(store, file, (message) => errors.push(message))
    for (const name of ['a', 'b', 'c']) store.add({ name, categoryId: 1 })
    await store.settled()
    expect(names()).toEqual(['a', 'b', 'c']) // all three in the log, after the snapshot made at the start
    // A power cut right after the new snapshot took its name: the new log never takes the old one's.
    disk.renameSync = (from, to) => {
      if (String(to) === logPathOf(file)) throw Object.assign(new Error('power cut'), { code: 'EIO' })
      real.renameSync(from, to)
    }
    store.replace([{ id: 1, name: 'seed', categoryId: 1 }], 2) // a reset: the pets back to a seed, ids from 2
    Object.assign(disk, real)
    expect(errors).toEqual([expect.stringMatching(/^cannot write the data file's log .*pets\.json\.log: power cut$/)])
    // The old log holds a, b, c with ids 1 to 3, at or past the reset's next id: read on top, they came back (and a
    // snapshot folded before them would have lost its pets).
    const notices: string[] = []
    expect(names(file, notices)).toEqual(['seed'])
    expect(notices).toEqual([expect.stringMatching(/written anew as the stub stopped.*the 3 changes of the old log/)])
    // The stub goes on: its next change writes both files again.
    store.add({ name: 'd', categoryId: 1 })
    await store.settled()
    expect(names()).toEqual(['seed', 'd'])
    kept.close()
  })

  it('reads the log on top of a data file changed by hand after a crash: no acknowledged pet lost, no id given again', async () => {
    const store = new PetStore()
    const kept = keepInFile(store, file)
    for (const name of ['a', 'b', 'c']) store.add({ name, categoryId: 1 })
    await store.settled() // the three in the log; the process dies here (nothing more is written)
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as object
    fs.writeFileSync(file, JSON.stringify(state, null, 1)) // reformatted by hand: another digest, no compaction under way
    const notices: string[] = []
    expect(names(file, notices)).toEqual(['a', 'b', 'c'])
    expect(readDataFile(file)!.nextId).toBe(4)
    expect(notices).toEqual([expect.stringMatching(/was changed after its log .* was written/)])
    kept.close()
  })

  it('reads a log written before logs named their snapshot as before', () => {
    fs.writeFileSync(file, '{"nextId":2,"pets":[{"id":1,"name":"a","categoryId":1}]}')
    fs.writeFileSync(
      logPathOf(file),
      '{"add":{"id":1,"name":"a","categoryId":1}}\n{"add":{"id":2,"name":"b","categoryId":1}}\n',
    )
    expect(names()).toEqual(['a', 'b'])
  })
})

describe('a fold of the log into the data file that fails (a disk with room for the log, not for a second state)', () => {
  it('leaves the log whole and taking changes, acknowledged as before, and folds once it can', async () => {
    const store = new PetStore()
    const errors: string[] = []
    const kept = keepInFile(store, file, (message) => errors.push(message))
    // The new data file of a fold cannot be made; the log is written as before.
    let full = true
    disk.openSync = (path, flags, mode) => {
      if (
        full &&
        String(path).startsWith(`${file}.`) &&
        String(path).endsWith('.tmp') &&
        !String(path).includes('.log')
      )
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
      return real.openSync(path, flags, mode)
    }
    const name = 'x'.repeat(60 * 1024)
    const grow = async (count: number) => {
      const added = Array.from({ length: count }, (_, i) => store.add({ name: `${name}${i}`, categoryId: 1 }))
      await store.settled()
      return added
    }
    await grow(150) // past COMPACT_BYTES (8 MiB) of log: a fold is tried, and fails
    expect(errors).toEqual([expect.stringMatching(/cannot write the data file .*ENOSPC.*changes go on in the log/)])
    expect(fs.statSync(logPathOf(file)).size).toBeGreaterThan(8 * 1024 * 1024)
    await grow(20) // acknowledged: no 503, kept in the log
    expect([store.size, names().length]).toEqual([170, 170])
    expect(errors).toHaveLength(1) // not tried again at every change
    full = false
    await grow(150) // grown by as much again: folded now, the log emptied
    expect(errors).toHaveLength(1)
    expect(fs.statSync(logPathOf(file)).size).toBeLessThan(1024)
    expect(names().length).toBe(320)
    kept.close()
  })
})

describe('a stop on a disk with no room for the fold', () => {
  it('says that what was acknowledged is in the log, which the next start reads', async () => {
    const store = new PetStore()
    const errors: string[] = []
    const kept = keepInFile(store, file, (message) => errors.push(message))
    store.add({ name: 'a', categoryId: 1 })
    await store.settled()
    disk.openSync = (path, flags, mode) => {
      if (String(path).endsWith('.tmp'))
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
      return real.openSync(path, flags, mode)
    }
    kept.close()
    Object.assign(disk, real)
    expect(errors).toEqual([
      expect.stringMatching(
        /ENOSPC.*; every change acknowledged is in its log .*pets\.json\.log, which the next start reads with it$/,
      ),
    ])
    expect(names()).toEqual(['a'])
  })
})

describe('a start on a disk with no room for the fold', () => {
  it('stops, saying what room it needs and that both files are as they were', () => {
    const state = '{"nextId":2,"pets":[{"id":1,"name":"a","categoryId":1}]}'
    fs.writeFileSync(file, state)
    fs.writeFileSync(logPathOf(file), '{"add":{"id":2,"name":"b","categoryId":1}}\n')
    disk.openSync = (path, flags, mode) => {
      if (String(path).endsWith('.tmp'))
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
      return real.openSync(path, flags, mode)
    }
    expect(() => keepInFile(new PetStore(), file)).toThrow(
      /ENOSPC.*: the start folds the log into the data file, .* needs about 1 MiB free on its disk; free that much, or move .*pets\.json and its log to a larger disk \(both are as they were\)$/,
    )
    Object.assign(disk, real)
    expect([fs.readFileSync(file, 'utf8'), names()]).toEqual([state, ['a', 'b']])
  })
})

describe('files changed under a running stub', () => {
  it('notices a log emptied in place (copytruncate) and writes both again: nothing acknowledged is lost', async () => {
    const errors: string[] = []
    const stub = createStub({ data: file, seed: false, onDataError: (message: string) => errors.push(message) })
    for (const name of ['a', 'b']) stub.store.add({ name, categoryId: 1 })
    await stub.store.settled()
    fs.copyFileSync(logPathOf(file), `${logPathOf(file)}.1`)
    fs.truncateSync(logPathOf(file), 0) // what logrotate's copytruncate and `: > pets.json.log` do
    stub.store.add({ name: 'c', categoryId: 1 })
    await stub.store.settled()
    expect(fs.readFileSync(logPathOf(file)).includes(0)).toBe(false) // no hole of NUL bytes before the new change
    expect(errors).toEqual([expect.stringMatching(/removed or replaced while the stub ran/)])
    expect(names()).toEqual(['a', 'b', 'c']) // what a kill -9 now would find: every pet, ids never given again
    expect(readDataFile(file)!.nextId).toBe(4)
    stub.close()
  })

  it('refuses a reset over a data file made read-only while the stub runs, as the start does, and recovers', async () => {
    const errors: string[] = []
    const stub = createStub({ data: file, seed: false, onDataError: (error) => errors.push(error) })
    stub.store.add({ name: 'a', categoryId: 1 })
    await stub.store.settled()
    const before = fs.readFileSync(file, 'utf8')
    // `chmod 0444 pets.json` (played here: root may write any file): a rename over it would work, and did.
    disk.accessSync = (path, mode) => {
      if (String(path) === file)
        throw Object.assign(new Error(`EACCES: permission denied, access '${file}'`), { code: 'EACCES' })
      real.accessSync(path, mode)
    }
    expect(() => stub.reset()).toThrow(/cannot write the data file .*pets\.json: EACCES/) // answered 503
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
    expect(stub.store.size).toBe(1)
    // Creates go on in the log, which stays writable: kept, and on disk.
    stub.store.add({ name: 'b', categoryId: 1 })
    await stub.store.settled()
    expect(names()).toEqual(['a', 'b'])
    // A log grown past the size at which it is folded into the data file: not folded, every create kept and answered
    // (a failed fold made every later create fail, and the next write renamed a new, writable file over it).
    const inode = fs.statSync(file).ino
    const name = 'n'.repeat(60_000)
    for (let i = 0; i < 150; i++) {
      stub.store.add({ name, categoryId: 1 })
      if (i % 10 === 9) await stub.store.settled()
    }
    await stub.store.settled()
    expect(fs.statSync(file).ino).toBe(inode)
    expect(fs.statSync(logPathOf(file)).size).toBeGreaterThan(8 * 1024 * 1024)
    expect(errors.filter((error) => /is read-only/.test(error))).toHaveLength(1)
    expect(names()).toHaveLength(152)
    disk.accessSync = real.accessSync
    stub.reset()
    expect(names()).toEqual([])
    expect(fs.statSync(file).ino).not.toBe(inode)
    stub.close()
  })

  it('refuses a change while a folder stands at the log, leaving the data file as it was, and recovers', async () => {
    const stub = createStub({ data: file, seed: false, onDataError: () => undefined })
    for (const name of ['a', 'b']) stub.store.add({ name, categoryId: 1 })
    await stub.store.settled()
    const before = fs.readFileSync(file, 'utf8')
    fs.rmSync(logPathOf(file))
    fs.mkdirSync(logPathOf(file))
    expect(() => stub.reset()).toThrow(PersistError) // answered 503: nothing of it may be on disk
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
    stub.store.add({ name: 'refused', categoryId: 1 })
    await expect(stub.store.settled()).rejects.toThrow(/its log .* is a directory/)
    expect(stub.store.size).toBe(2)
    // The data file holds what was acknowledged, and the id the refused pet took stays taken: before, it held the
    // refused pet, which came back at the next start.
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      nextId: 4,
      pets: [
        { id: 1, name: 'a', categoryId: 1 },
        { id: 2, name: 'b', categoryId: 1 },
      ],
    })
    fs.rmdirSync(logPathOf(file))
    stub.store.add({ name: 'c', categoryId: 1 })
    await stub.store.settled()
    expect(names()).toEqual(['a', 'b', 'c'])
    expect(readDataFile(file)!.pets.map((pet) => pet.id)).toEqual([1, 2, 4])
    stub.close()
  })

  it.skipIf(process.platform === 'win32')(
    'refuses a change while a named pipe stands at the log, instead of waiting on it for ever',
    async () => {
      const stub = createStub({ data: file, seed: false, onDataError: () => undefined })
      stub.store.add({ name: 'a', categoryId: 1 })
      await stub.store.settled()
      fs.rmSync(logPathOf(file))
      expect(runProcessSync('mkfifo', [logPathOf(file)]).code).toBe(0)
      stub.store.add({ name: 'refused', categoryId: 1 })
      await expect(stub.store.settled()).rejects.toThrow(/its log .* is a named pipe/)
      fs.rmSync(logPathOf(file))
      stub.store.add({ name: 'b', categoryId: 1 })
      await stub.store.settled()
      expect(names()).toEqual(['a', 'b'])
      stub.close()
    },
  )
})

describe('the modes of the files the stub makes', () => {
  it.skipIf(process.platform === 'win32')(
    'keep the data file mode, and let its owner read and write them whatever the umask',
    async () => {
      // A file made under `umask 0777` has no mode bit at all: the next start could not read it back.
      const made = join(dir, 'made')
      const fd = fs.openSync(made, 'wx', 0)
      ownerReadWrite(fd)
      fs.closeSync(fd)
      expect(fs.statSync(made).mode & 0o777).toBe(0o600)
      const stub = createStub({ data: file, seed: false })
      fs.chmodSync(file, 0o640)
      stub.store.add({ name: 'a', categoryId: 1 })
      await stub.store.settled()
      stub.close() // the shutdown writes the snapshot anew
      expect(fs.statSync(file).mode & 0o777).toBe(0o640)
      expect(fs.statSync(logPathOf(file)).mode & 0o600).toBe(0o600)
    },
  )
})

describe('what a stub that died left beside the data file', () => {
  it.skipIf(process.platform !== 'linux')(
    'is taken over, and a leftover that cannot be removed is left, not a crash of the start',
    () => {
      fs.writeFileSync(file, '{"nextId":5,"pets":[{"id":1,"name":"a","categoryId":1}]}')
      const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
      fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 999_999, boot })) // a process that is gone
      fs.mkdirSync(`${file}.999999.tmp`) // its temporary snapshot's name, taken by a folder: rmSync threw EISDIR
      const stub = createStub({ data: file })
      expect(stub.store.size).toBe(1)
      stub.close()
      expect(fs.existsSync(`${file}.lock`)).toBe(false)
    },
  )
})

describe('a lock that cannot be written', () => {
  it('is not left behind: a full disk at the start does not make the next starts take it for a stub starting', () => {
    if (process.platform !== 'linux') return // which file a descriptor writes is read from /proc
    disk.writeSync = ((fd: number, ...rest: unknown[]) => {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`).endsWith('.lock'))
        throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' })
      return (real.writeSync as (...args: unknown[]) => number)(fd, ...rest)
    }) as typeof disk.writeSync
    expect(() => createStub({ data: file })).toThrow('ENOSPC')
    expect(fs.readdirSync(dir)).not.toContain('pets.json.lock')
    Object.assign(disk, real)
    createStub({ data: file }).close() // at once, not after the 5 s a lock being taken is waited for
  })
})
