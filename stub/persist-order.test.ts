// What a crash test cannot make happen: the order of a compaction's steps on disk (only a power cut between two of
// them would tell), and a disk that fills up in the middle of a write.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { disk } from './disk.js'
import { keepInFile, logPathOf, readDataFile } from './persist.js'
import { PetStore } from './store.js'

/** Every open, rename and fsync, in order, each named by its path. */
const steps: string[] = []
const pathOf = new Map<number, string>()
/** The next append writes only half of its bytes, as a disk filling up does. */
let shortWrite = false
/** The next flush of the log to the disk waits for this, as one that takes long does. */
let heldSync: Promise<void> | undefined
/** The disk is full: a synchronous write takes half of its bytes, and the one after fails with ENOSPC. */
let diskFull = false
let tookHalf = false

const real = { ...disk }

/** The bytes a write call names: a string, or a buffer's range. */
function bytesOf(data: string | Uint8Array, rest: unknown[]): Uint8Array {
  if (typeof data === 'string') return Buffer.from(data)
  const offset = typeof rest[0] === 'number' ? rest[0] : 0
  const length = typeof rest[1] === 'number' ? rest[1] : data.length - offset
  return data.subarray(offset, offset + length)
}

/** The data file's disk calls, each recorded or made to fail as the test asks. */
const watched: Partial<typeof disk> = {
  openSync: ((path: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
    const fd = real.openSync(path, flags ?? 'r', mode)
    pathOf.set(fd, String(path))
    steps.push(`open ${String(path)} ${String(flags)}`)
    return fd
  }) as typeof fs.openSync,
  renameSync: (from: fs.PathLike, to: fs.PathLike) => {
    real.renameSync(from, to)
    steps.push(`rename ${String(from)} -> ${String(to)}`)
  },
  writeSync: ((fd: number, data: string | Uint8Array, ...rest: unknown[]) => {
    const bytes = bytesOf(data, rest)
    if (shortWrite && pathOf.get(fd)?.includes('.log')) {
      shortWrite = false
      return real.writeSync(fd, bytes, 0, Math.floor(bytes.length / 2))
    }
    if (!diskFull) return real.writeSync(fd, bytes)
    if (tookHalf) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    tookHalf = true
    return real.writeSync(fd, bytes, 0, Math.floor(bytes.length / 2))
  }) as typeof fs.writeSync,
  fdatasync: ((fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
    const held = heldSync
    heldSync = undefined
    if (held) void held.then(() => real.fdatasync(fd, done))
    else real.fdatasync(fd, done)
  }) as typeof fs.fdatasync,
  fsyncSync: (fd: number) => {
    real.fsyncSync(fd)
    steps.push(`fsync ${pathOf.get(fd)}`)
  },
}

beforeEach(() => void Object.assign(disk, watched))
afterEach(() => {
  Object.assign(disk, real)
  shortWrite = diskFull = tookHalf = false
  heldSync = undefined
  steps.length = 0
})

/** The changes in a data file's log, after its first line (the snapshot it follows). */
function changesIn(file: string): string[] {
  const [follows, ...changes] = fs.readFileSync(logPathOf(file), 'utf8').split('\n')
  expect(follows).toMatch(/^\{"follows":"[0-9a-f]{64}"\}$/)
  return changes.filter((line) => line !== '')
}

let dir: string
beforeEach(() => void (dir = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'stub-order-')))))
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('a compaction on disk', () => {
  // Windows cannot flush a folder (its renames are durable on their own).
  it.skipIf(process.platform === 'win32')(
    'makes the new snapshot durable under its name before the new log replaces the old one, and the new log before any change',
    () => {
      const file = join(dir, 'state.json')
      const kept = keepInFile(new PetStore(), file)
      steps.length = 0
      kept.close()
      const at = (step: string) => {
        const index = steps.findIndex((s) => s.startsWith(step))
        expect(index, `${step} in ${JSON.stringify(steps)}`).toBeGreaterThanOrEqual(0)
        return index
      }
      const renamed = at(`rename ${file}.${process.pid}.tmp -> ${file}`)
      const logRenamed = at(`rename ${logPathOf(file)}.${process.pid}.tmp -> ${logPathOf(file)}`)
      const folderSynced = steps.findIndex((s, i) => i > renamed && s === `fsync ${dirname(file)}`)
      expect(at(`fsync ${file}.${process.pid}.tmp`)).toBeLessThan(renamed) // the snapshot's bytes before its name
      expect(at(`fsync ${logPathOf(file)}.${process.pid}.tmp`)).toBeLessThan(renamed) // and the new log's first line
      expect(folderSynced).toBeGreaterThan(renamed)
      expect(folderSynced).toBeLessThan(logRenamed) // the new snapshot's name on disk before the new log's
      expect(steps.slice(logRenamed + 1).some((s) => s === `fsync ${dirname(file)}`)).toBe(true)
      expect(steps.filter((s) => s.startsWith(`open ${logPathOf(file)} `))).toEqual([]) // the old log never opened
    },
  )
})

describe('a disk that fills up mid-write', () => {
  it('refuses the changes only partly written, cuts them off, and keeps the log readable', async () => {
    const file = join(dir, 'state.json')
    const store = new PetStore()
    const kept = keepInFile(store, file)
    store.add({ name: 'kept', categoryId: 1 })
    await store.settled()
    shortWrite = true
    store.add({ name: 'half written', categoryId: 1 })
    await expect(store.settled()).rejects.toThrow(/cannot write the data file .*: the disk took \d+ of \d+ bytes/)
    expect(store.size).toBe(1) // taken back: never acknowledged
    expect(changesIn(file)).toEqual(['{"add":{"id":1,"name":"kept","categoryId":1}}'])
    store.add({ name: 'after', categoryId: 1 })
    await store.settled()
    expect(readDataFile(file)!.pets.map((pet) => pet.name)).toEqual(['kept', 'after'])
    kept.close()
  })
})

describe('a disk full when the snapshot is written', () => {
  it('keeps the old snapshot and the log whole: nothing acknowledged is lost', async () => {
    const file = join(dir, 'state.json')
    const store = new PetStore()
    const errors: string[] = []
    const kept = keepInFile(store, file, (message) => errors.push(message))
    for (const name of ['a', 'b', 'c']) store.add({ name, categoryId: 1 })
    await store.settled()
    diskFull = true
    try {
      kept.close() // the shutdown's compaction cannot write the new snapshot whole
    } finally {
      diskFull = false
    }
    expect(errors).toEqual([expect.stringMatching(/^cannot write the data file .*state\.json: ENOSPC/)])
    expect(fs.readdirSync(dir).sort()).toEqual(['state.json', 'state.json.log']) // no half snapshot left behind
    expect(readDataFile(file)!.pets.map((pet) => pet.name)).toEqual(['a', 'b', 'c'])
  })
})

describe('a reset while an append is on its way to the disk', () => {
  it('leaves the append out of the new log: no bytes of it land in the log the reset emptied', async () => {
    const file = join(dir, 'state.json')
    const store = new PetStore()
    const kept = keepInFile(store, file)
    store.add({ name: 'kept', categoryId: 1 })
    await store.settled()
    let release!: () => void
    heldSync = new Promise((resolve) => (release = resolve))
    store.add({ name: 'in flight', categoryId: 1 })
    const inFlight = store.settled()
    await new Promise((resolve) => setImmediate(resolve)) // the flush has begun, and waits for the disk
    store.replace([{ id: 7, name: 'seed', categoryId: 1 }], 8) // a reset: the log is emptied under the flush
    release()
    await inFlight
    store.add({ name: 'after', categoryId: 1 })
    await store.settled()
    const log = fs.readFileSync(logPathOf(file))
    expect(log.includes(0)).toBe(false) // no hole where the append would have landed
    expect(changesIn(file)).toEqual(['{"add":{"id":8,"name":"after","categoryId":1}}'])
    expect(readDataFile(file)!.pets.map((pet) => pet.name)).toEqual(['seed', 'after'])
    kept.close()
  })
})
