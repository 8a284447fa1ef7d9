/**
 * `--data FILE`: the store kept on disk, every change there before the answer that reports it leaves.
 *
 * FILE holds a snapshot (`{ "nextId": N, "pets": [...] }`, as `GET /__stub/state` gives it); `FILE.log` beside it
 * holds the changes made since, one JSON line each (`{"add":PET}` or `{"nextId":N}`). A change is appended to the log
 * and flushed to the disk (fdatasync) before its answer goes out, and the changes of the same moments share one flush
 * (group commit). The log is folded into the snapshot at start, when it grows past a bound, on a reset or restore, and
 * at shutdown; the snapshot is written to a temporary file renamed over the old one, so a crash never leaves half a
 * file. A crash may leave half a line at the log's end: that change was never acknowledged, and is dropped at restart.
 * One stub at a time keeps a data file: `FILE.lock` names the process that does (stub/data-lock.ts). Its writes go
 * through stub/disk.ts.
 */
import { accessSync, constants, existsSync, fstatSync, lstatSync, readlinkSync, rmSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { parseJson, readTextFile, type JsonValue, type Spec } from '../spec/index.js'
import { DataFileLock } from './data-lock.js'
import { disk, identityOf, kindOf, syncFolder, temporaryPathOf, WRITE_NO_FOLLOW, writeDurably } from './disk.js'
import { readJsonFile, readSnapshot, type Snapshot } from './seed.js'
import { PersistError, StoreError, type ChangeLog, type Int64, type PetStore } from './store.js'

/**
 * The file a `--data` path names, its symbolic links followed (the file they point to may not exist yet): the stub keeps
 * the store there, its log and lock beside it. A snapshot renamed over the link itself would replace it: the file it
 * points to (in a synced or shared folder, say) would keep an old state, and a stub given the other name would not
 * share the lock. As Linux's protected_symlinks rule has it, a link in a folder anyone may write to is followed only
 * when it is this user's (`uid`: this process's): planted there by another, it would aim the stub's writes at one of
 * the user's files. Throws PersistError (one line: nothing could be kept) for such a link and for a loop of links.
 */
export function dataFileOf(path: string, uid = process.getuid?.()): string {
  let current = path
  for (let hops = 0; hops <= 40; hops++) {
    let stats
    try {
      stats = lstatSync(current)
    } catch {
      return current // nothing there yet; or unreadable, which reading it says
    }
    if (!stats.isSymbolicLink()) return current
    if (uid !== undefined && stats.uid !== uid && (statSync(dirname(current)).mode & 0o002) !== 0)
      throw new PersistError(
        `the data file ${path} is a symbolic link in a folder anyone may write to, made by another user (uid ${stats.uid}): it is not followed; give the path of the file itself`,
      )
    const target = readlinkSync(current)
    current = isAbsolute(target) ? target : join(dirname(current), target)
  }
  throw new PersistError(`the data file ${path} is a loop of symbolic links`)
}

/** The log of changes beside a data file. */
export function logPathOf(path: string): string {
  return `${path}.log`
}

/** The log is folded into the snapshot once it holds this many bytes and more than the snapshot itself. */
export const COMPACT_BYTES = 8 * 1024 * 1024

/**
 * The state kept in the data file and its log (the snapshot with the logged changes after it), its pets checked against
 * `spec` (the one in use by default), or `undefined` when there is no file yet. `onNotice` hears of a torn last
 * record, which is dropped. Throws StoreError (one line) otherwise.
 */
export function readDataFile(
  path: string,
  spec?: Spec,
  onNotice: (message: string) => void = () => undefined,
): Snapshot | undefined {
  const logPath = logPathOf(path)
  const hasFile = existsSync(path)
  if (!hasFile && !existsSync(logPath)) return undefined
  // Reading a FIFO would wait for a writer for ever, deaf even to SIGTERM; a device or a folder is no data file either.
  for (const file of [path, logPath]) {
    const kind = existsSync(file) ? kindOf(file) : 'a file'
    if (kind !== 'a file')
      throw new StoreError(`cannot use ${file} as the data file${file === path ? '' : "'s log"}: it is ${kind}`)
  }
  const where = `the data file ${path}`
  const changes = readLog(logPath, onNotice)
  if (!hasFile) {
    // The stub writes the snapshot before it makes the log, so a log alone is one whose data file was removed or moved:
    // read alone it would bring back the last changes without the pets before them.
    if (changes.length === 0) return undefined
    throw new StoreError(
      `the data file ${path} is missing but its log ${logPath} holds changes made after it: put the data file back, or remove the log to start afresh`,
    )
  }
  const saved: JsonValue = readJsonFile(path, 'data file')
  const value = Array.isArray(saved) ? { pets: saved } : saved
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Array.isArray(value.pets))
    return readSnapshot(value, where, spec) // throws, naming what is wrong
  if (changes.length === 0) return readSnapshot(value, where, spec)
  // Changes older than the snapshot are in it already (a crash between writing it and emptying the log).
  const pets = [...value.pets]
  let next = bigOf(value.nextId) ?? pets.reduce<bigint>((most, pet) => max(most, (bigOf(idOf(pet)) ?? 0n) + 1n), 1n)
  const since = next
  for (const change of changes) {
    if ('add' in change) {
      const id = bigOf(idOf(change.add))!
      if (id < since) continue
      pets.push(change.add)
      next = max(next, id + 1n)
    } else next = max(next, change.nextId)
  }
  return readSnapshot({ pets, nextId: next }, where, spec)
}

type Change = { add: JsonValue } | { nextId: bigint }

/** The log's changes in order; a torn tail (a crash mid-write: never acknowledged) is dropped with one notice. */
function readLog(logPath: string, onNotice: (message: string) => void): Change[] {
  let text: string
  try {
    text = readTextFile(logPath)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw new StoreError(`cannot read the data file's log ${logPath}: ${(error as Error).message}`)
  }
  const lines = text.split('\n')
  const changes: Change[] = []
  let bad: { line: number; why: string } | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line === '') continue
    // A line with no newline after it was never flushed whole, so never acknowledged.
    const change = i === lines.length - 1 ? undefined : changeOf(line)
    if (change === undefined) {
      bad ??= { line: i + 1, why: i === lines.length - 1 ? 'it ends before its newline' : 'it is not a change' }
      continue
    }
    if (bad !== undefined)
      throw new StoreError(
        `the data file's log ${logPath}: line ${bad.line} is not a change (${bad.why}), and changes follow it`,
      )
    changes.push(change)
  }
  if (bad !== undefined) {
    const bytes = Buffer.byteLength(lines.slice(bad.line - 1).join('\n'))
    onNotice(
      `the data file's log ${logPath} ends in a torn record from a crash (line ${bad.line}, ${bytes} bytes): dropped, it was never acknowledged`,
    )
  }
  return changes
}

function changeOf(line: string): Change | undefined {
  let value: JsonValue
  try {
    value = parseJson(line)
  } catch {
    return undefined
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const keys = Object.keys(value)
  if (keys.length !== 1) return undefined
  if (keys[0] === 'add' && bigOf(idOf(value.add)) !== undefined) return { add: value.add! }
  const next = keys[0] === 'nextId' ? bigOf(value.nextId) : undefined
  return next === undefined ? undefined : { nextId: next }
}

function idOf(pet: JsonValue | undefined): JsonValue | undefined {
  return pet !== null && typeof pet === 'object' && !Array.isArray(pet) ? pet.id : undefined
}

function bigOf(value: JsonValue | undefined): bigint | undefined {
  return typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value))
    ? BigInt(value)
    : undefined
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}

/** The changes of one flush, and who waits for them. */
interface Batch {
  lines: string[]
  /** The store's size before the first pet of this batch: where a failed flush takes the store back to. */
  sizeBefore: number
  promise: Promise<void>
  resolve: () => void
  reject: (error: Error) => void
}

/** A data file kept up to date with a store: see the module's summary. */
export interface DataFile {
  /** Folds the log into the snapshot (what a clean shutdown leaves), keeps nothing more, and closes the log. */
  close(): void
}

/**
 * Keeps `store` in the file at `path` from now on: writes the snapshot at once (so a path that cannot be written
 * stops the start), then logs every change. Throws {@link PersistError} naming the path when it cannot be written.
 * `onError` hears of what no answer reports: a failure of the last write at shutdown, a file rewritten after it was
 * removed or replaced under the stub.
 */
export function keepInFile(
  store: PetStore,
  path: string,
  onError: (message: string) => void = () => undefined,
  lock?: DataFileLock,
): DataFile {
  const log = new DataLog(store, path, onError, lock)
  store.changeLog = log
  return log
}

/** The {@link ChangeLog} of a store kept in a data file. */
class DataLog implements ChangeLog, DataFile {
  readonly #logPath: string
  /** The log, open for appending, and its inode: a log replaced or removed under the stub is noticed. */
  #fd = -1
  #inode = -1
  /** The snapshot as written (inode, size, time): a data file removed, replaced or written over is noticed too. */
  #snapshot: string | undefined
  /** Bytes of the log known whole: a failed append is cut back to here. */
  #length = 0
  /** The changes waiting for the next flush. */
  #open: Batch | undefined
  #flushing = false
  /** A write failed: the next flush first writes the whole state afresh, as the log may have lost its way. */
  #broken = false
  #closed = false
  /** Grows with every compaction: a flush begun before one finds its changes kept by it. */
  #generation = 0
  /** Logs replaced while a flush was writing to them, closed once it is done. */
  #retired: number[] = []
  /** This stub's hold on the file, given up on close. */
  readonly #lock: DataFileLock
  /**
   * Set once another stub keeps the file (started while this one's lock was removed): this stub then writes it no more,
   * since writing would undo that stub's acknowledged changes, and refuses its own changes with this message.
   */
  #lostTo: string | undefined

  constructor(
    readonly store: PetStore,
    readonly path: string,
    readonly onError: (message: string) => void,
    lock?: DataFileLock,
  ) {
    this.#logPath = logPathOf(path)
    this.#lock = lock ?? DataFileLock.take(path)
    try {
      if (existsSync(path)) {
        const kind = kindOf(path)
        if (kind !== 'a file') throw new PersistError(`cannot write the data file ${path}: it is ${kind}`)
        // Renaming over a read-only file works, so its mode is asked: the user meant it not to be written.
        try {
          accessSync(path, constants.W_OK)
        } catch (error) {
          throw new PersistError(`cannot write the data file ${path}: ${(error as Error).message}`)
        }
      }
      this.compact()
    } catch (error) {
      this.#lock.release()
      throw error
    }
  }

  added(json: string): void {
    this.#batch(this.store.size - 1).lines.push('{"add":' + json + '}\n')
  }

  reserved(nextId: Int64): void {
    this.#batch(this.store.size).lines.push('{"nextId":' + String(nextId) + '}\n')
  }

  replaced(): void {
    this.compact()
  }

  settled(): Promise<void> | undefined {
    return this.#open?.promise
  }

  /** The batch the next change joins; the first change of a batch schedules its flush. */
  #batch(sizeBefore: number): Batch {
    if (this.#open) return this.#open
    let resolve!: () => void
    let reject!: (error: Error) => void
    const promise = new Promise<void>((yes, no) => ((resolve = yes), (reject = no)))
    promise.catch(() => undefined) // a batch nobody waits for (a fault's reserved id) must not fail the process
    const batch: Batch = { lines: [], sizeBefore, promise, resolve, reject }
    this.#open = batch
    if (!this.#flushing) setImmediate(this.#flush) // after this turn's requests, so that they share the flush
    return batch
  }

  readonly #flush = (): void => {
    const batch = this.#open
    if (batch === undefined || this.#flushing || this.#closed) return
    this.#open = undefined
    this.#flushing = true
    if (!this.#stillKept()) return this.#refuse(batch)
    if (this.#broken) return this.#rewrite(batch) // the log may have lost its way
    const text = batch.lines.length === 1 ? batch.lines[0]! : batch.lines.join('')
    const fd = this.#fd
    const generation = this.#generation
    const bytes = Buffer.from(text, 'utf8')
    // Written now, not in the thread pool: a compaction (a reset, a restore, the shutdown) empties this very file, and
    // a write still queued there would land at the log's old end, in the emptied log, over the changes after it. Only
    // the flush to the disk, which takes long, is left to the thread pool.
    let written: number
    try {
      written = disk.writeSync(fd, bytes, 0, bytes.length)
    } catch (error) {
      return this.#failed(batch, error as Error, generation)
    }
    // A disk that fills up mid-write writes part of the text and says so only by the count: that part is cut off.
    if (written < bytes.length)
      return this.#failed(batch, new Error(`the disk took ${written} of ${bytes.length} bytes (full?)`), generation)
    disk.fdatasync(fd, (synced) => {
      if (synced) return this.#failed(batch, synced, generation)
      if (generation !== this.#generation) return this.#done(batch) // a compaction kept these changes already
      this.#length += written
      // Asked after the flush, so that a file removed while it ran is noticed before the answers leave.
      if (this.#sameFiles()) return this.#done(batch)
      if (!this.#stillKept()) return this.#refuse(batch) // the other stub's files now: never written over
      this.onError(
        `the data file ${this.path} or its log was removed or replaced while the stub ran: both written again from the stub's pets`,
      )
      this.#rewrite(batch)
    })
  }

  #done(batch: Batch): void {
    this.#flushing = false
    this.#closeRetired()
    batch.resolve()
    if (this.#open) return this.#flush() // what came in during this flush goes at once
    if (this.#length > COMPACT_BYTES && this.#length > this.store.size * 64) {
      try {
        this.compact()
      } catch (error) {
        this.#broken = true // kept in the log still; the next change tries again
        this.onError((error as Error).message)
      }
    }
  }

  /** Nothing of a batch that could not be kept is stored: its pets, and those after it, are taken back. */
  #failed(batch: Batch, error: Error, generation = this.#generation): void {
    // A compaction since the flush began (a restore, the shutdown) kept its changes or replaced them on purpose.
    if (generation !== this.#generation) return this.#done(batch)
    this.#flushing = false
    this.#closeRetired()
    this.#broken = true
    try {
      if (this.#fd >= 0) disk.ftruncateSync(this.#fd, this.#length)
    } catch {
      // the next flush writes the whole state afresh anyway
    }
    this.#takeBack(
      batch,
      error instanceof PersistError
        ? error
        : new PersistError(`cannot write the data file ${this.path}: ${error.message}`),
    )
  }

  /** Takes the pets of a batch, and of any after it, out of the store, and refuses them with `failure`. */
  #takeBack(batch: Batch, failure: PersistError): void {
    const later = this.#open
    this.#open = undefined
    this.store.truncate(batch.sizeBefore)
    batch.reject(failure)
    later?.reject(failure)
  }

  /** False once another stub keeps the data file (see {@link #lostTo}); a lock removed under this one is put back. */
  #stillKept(): boolean {
    if (this.#lostTo === undefined && !this.#lock.keep()) {
      const holder = this.#lock.holder()
      this.#lostTo = `the data file ${this.path} is kept by another stub now (${typeof holder === 'number' ? `process ${holder}` : 'starting'}), started while this one's lock was removed: this stub keeps no more changes; stop it`
      this.onError(this.#lostTo)
    }
    return this.#lostTo === undefined
  }

  /** Takes back a batch, and those after it, without touching the files: they are another stub's now. */
  #refuse(batch: Batch): void {
    this.#flushing = false
    this.#closeRetired()
    this.#takeBack(batch, new PersistError(this.#lostTo!))
  }

  /**
   * Writes the whole state afresh, which keeps this batch (and any after it) at once: after a failed write, or when the
   * data file or its log was removed, replaced or moved away under the stub (by hand, a clean-up script).
   */
  #rewrite(batch: Batch): void {
    try {
      this.compact()
      this.#done(batch)
    } catch (error) {
      this.#failed(batch, error as Error)
    }
  }

  /**
   * True while the snapshot and the open log are still the files at their paths. Otherwise the changes flushed to the
   * log would be lost at the next start (a removed log), or read on top of another snapshot (a replaced data file).
   */
  #sameFiles(): boolean {
    try {
      return (
        statSync(this.#logPath).ino === this.#inode &&
        fstatSync(this.#fd).nlink > 0 &&
        this.#snapshot !== undefined &&
        identityOf(this.path) === this.#snapshot
      )
    } catch {
      return false
    }
  }

  /**
   * Writes the whole state as the snapshot and starts an empty log: synchronously, so that nothing changes meanwhile.
   * Throws {@link PersistError} naming the file when it cannot.
   */
  compact(): void {
    if (!this.#stillKept()) throw new PersistError(this.#lostTo!) // a reset or a shutdown too: the files are another's
    const temporary = temporaryPathOf(this.path)
    try {
      // Made anew ('wx' fails on anything at the name, a symbolic link included), never written through what is there.
      rmSync(temporary, { force: true })
      writeDurably(temporary, this.store.stateJsonPieces(), 'wx')
      disk.renameSync(temporary, this.path) // atomic: readers see the old file or the new one, never a mix
      this.#snapshot = identityOf(this.path)
      // The new snapshot is on disk under its name before the log is emptied: a power cut between the two must not
      // leave the old snapshot with an empty log.
      syncFolder(this.path)
      const fd = disk.openSync(this.#logPath, WRITE_NO_FOLLOW) // emptied: everything in it is in the snapshot now
      syncFolder(this.path) // a log made just now: its name on disk before any change flushed to it is acknowledged
      if (this.#fd >= 0) this.#retired.push(this.#fd)
      if (!this.#flushing) this.#closeRetired()
      this.#fd = fd
      this.#inode = fstatSync(fd).ino
      this.#length = 0
      this.#broken = false
      this.#generation++
      // The changes waiting for a flush are in the snapshot now (or were replaced away by a reset or restore).
      const waiting = this.#open
      this.#open = undefined
      waiting?.resolve()
    } catch (error) {
      try {
        rmSync(temporary, { force: true })
      } catch {
        // its folder is gone or is no folder: there is nothing to remove
      }
      throw new PersistError(`cannot write the data file ${this.path}: ${(error as Error).message}`)
    }
  }

  #closeRetired(): void {
    for (const fd of this.#retired.splice(0)) disk.closeSync(fd)
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.store.changeLog = undefined
    try {
      this.compact()
    } catch (error) {
      this.onError((error as Error).message)
      const pending = this.#open
      this.#open = undefined
      pending?.reject(error as Error)
    }
    if (this.#fd >= 0) this.#retired.push(this.#fd)
    this.#fd = -1
    if (!this.#flushing) this.#closeRetired()
    this.#lock.release()
  }
}
