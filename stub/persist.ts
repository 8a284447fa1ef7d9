/**
 * `--data FILE`: the store kept on disk, every change there before the answer that reports it leaves.
 *
 * FILE holds a snapshot (`{ "nextId": N, "pets": [...] }`, as `GET /__stub/state` gives it); `FILE.log` beside it
 * names that snapshot on its first line (`{"follows":DIGEST}`) and holds the changes made since, one JSON line each
 * (`{"add":PET}` or `{"nextId":N}`). A change is appended to the log and flushed to the disk (fdatasync) before its
 * answer goes out, and the changes of the same moments share one flush (group commit). The log is folded into the
 * snapshot at start, when it grows past a bound, on a reset or restore, and at shutdown: the snapshot and a new log
 * are written to temporary files renamed over the old ones, so a crash never leaves half a file, nor a log read on top
 * of a snapshot it does not follow. A crash may leave half a line at the log's end: that change was never acknowledged,
 * and is dropped at restart (stub/data-read.ts). One stub at a time keeps a data file: `FILE.lock` names the process
 * that does (stub/data-lock.ts). Its writes go through stub/disk.ts.
 */
import { constants, existsSync, fstatSync, lstatSync, readlinkSync, rmSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { DataFileLock } from './data-lock.js'
import {
  APPEND_NEW,
  disk,
  identityOf,
  kindOf,
  leftoverLogsOf,
  logPathOf,
  ownerReadWrite,
  removeIfCan,
  syncFolder,
  temporaryPathOf,
  writeDurably,
} from './disk.js'
import { digestOf, digested, followsLine } from './data-read.js'
import { PersistError, type ChangeLog, type Int64, type PetStore } from './store.js'

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

export { logPathOf }
export { readDataFile } from './data-read.js'

/** The log is folded into the snapshot once it holds this many bytes and more than the snapshot itself. */
export const COMPACT_BYTES = 8 * 1024 * 1024

/** The changes of one flush, and who waits for them. */
interface Batch {
  lines: string[]
  /** The store's size before the first pet of this batch: where a failed flush takes the store back to. */
  sizeBefore: number
  /** The store's size when the batch's flush began: the pets reads may see once it is on disk. */
  sizeAfter: number
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
  /** How long the log may grow before the next fold, after one failed (0: {@link COMPACT_BYTES}). */
  #foldAfter = 0
  #closed = false
  /** The data file was found read-only, and that was told (see {@link #writable}). */
  #readOnlyTold = false
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
          disk.accessSync(path, constants.W_OK)
        } catch (error) {
          throw new PersistError(`cannot write the data file ${path}: ${(error as Error).message}`)
        }
      }
      this.compact()
    } catch (error) {
      this.#lock.release()
      throw startError(error as Error, path, this.#logPath)
    }
    // The new logs of compactions cut short by a stop, read at the start (stub/data-read.ts), are of no use now.
    for (const leftover of leftoverLogsOf(path)) if (leftover !== temporaryPathOf(this.#logPath)) removeIfCan(leftover)
  }

  added(json: string): void {
    this.#batch(this.store.stored - 1).lines.push('{"add":' + json + '}\n')
  }

  reserved(nextId: Int64): void {
    this.#batch(this.store.stored).lines.push('{"nextId":' + String(nextId) + '}\n')
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
    const batch: Batch = { lines: [], sizeBefore, sizeAfter: sizeBefore, promise, resolve, reject }
    this.#open = batch
    if (!this.#flushing) setImmediate(this.#flush) // after this turn's requests, so that they share the flush
    return batch
  }

  readonly #flush = (): void => {
    const batch = this.#open
    if (batch === undefined || this.#flushing || this.#closed) return
    this.#open = undefined
    this.#flushing = true
    batch.sizeAfter = this.store.stored // what comes in from now on joins the next batch
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
      if (this.#sameFiles()) {
        this.store.commit(batch.sizeAfter) // reads see its pets from now on, as their creates are answered
        return this.#done(batch)
      }
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
    if (this.#length > Math.max(COMPACT_BYTES, this.#foldAfter) && this.#length > this.store.stored * 64) {
      // A data file made read-only is not folded into (see compact); the log, still written, keeps every change.
      if (!this.#writable()) return
      try {
        this.compact()
      } catch (error) {
        // A fold that fails changes nothing on disk (see compact): the log is whole and takes the next changes, which
        // are acknowledged as before. A full disk may have room for them but not for a second copy of the state: the
        // fold is tried again once the log has grown by as much again.
        this.#foldAfter = this.#length + COMPACT_BYTES
        this.onError(`${(error as Error).message}; changes go on in the log, and the fold is tried again later`)
      }
    }
  }

  /**
   * False when the data file is there and may not be written (made read-only while the stub runs): a rename over it
   * would work, so its mode is asked, as at the start. Told once, until it is writable again.
   */
  #writable(): boolean {
    let writable = true
    try {
      if (existsSync(this.path)) disk.accessSync(this.path, constants.W_OK)
    } catch {
      writable = false
    }
    if (!writable && !this.#readOnlyTold)
      this.onError(
        `the data file ${this.path} is read-only: changes go on in its log, and it is not written (a reset or restore answers 503) until it is writable again`,
      )
    this.#readOnlyTold = !writable
    return writable
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
    this.#keepAcknowledged()
  }

  /**
   * Writes what was acknowledged (the store, the refused changes taken back, the ids they took still taken) as the
   * snapshot alone, when it can: a log that could not be written may hold less than that (removed by hand, with a
   * folder put in its place), and the snapshot on disk is then all a crash would leave. The log it leaves names another
   * snapshot, so it is left out at the next start; the stub's next change writes both again.
   */
  #keepAcknowledged(): void {
    if (!this.#writable()) return // read-only: never written over (see compact)
    const temporary = temporaryPathOf(this.path)
    try {
      rmSync(temporary, { force: true })
      writeDurably(temporary, this.store.stateJsonPieces(), 'wx', this.path)
      disk.renameSync(temporary, this.path)
      this.#snapshot = identityOf(this.path)
      syncFolder(this.path)
    } catch {
      try {
        rmSync(temporary, { force: true })
      } catch {
        // its folder is gone or is no folder: there is nothing to remove
      }
    }
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
   * True while the snapshot and the open log are still the files at their paths, the log as long as the stub wrote it.
   * Otherwise the changes flushed to the log would be lost at the next start (a removed or emptied log), or read on top
   * of another snapshot (a replaced data file).
   */
  #sameFiles(): boolean {
    try {
      const log = fstatSync(this.#fd)
      return (
        statSync(this.#logPath).ino === this.#inode &&
        log.nlink > 0 &&
        log.size === this.#length && // emptied or cut in place (a rotation's copytruncate), or written to by another
        this.#snapshot !== undefined &&
        identityOf(this.path) === this.#snapshot
      )
    } catch {
      return false
    }
  }

  /**
   * Writes the whole state as the snapshot and starts a new log that follows it: synchronously, so that nothing changes
   * meanwhile. Both are written under temporary names and flushed, then renamed over the old ones, the snapshot first:
   * once it has its name, the state on disk is the new one whatever comes next (a crash before the log's rename leaves
   * the old log, which names another snapshot and is left unread). Nothing at the old names is opened or written
   * through (a log replaced by a named pipe would hold the stub for ever). Throws {@link PersistError} naming the file,
   * the disk unchanged, when it cannot.
   */
  compact(): void {
    if (!this.#stillKept()) throw new PersistError(this.#lostTo!) // a reset or a shutdown too: the files are another's
    const temporary = temporaryPathOf(this.path)
    const temporaryLog = temporaryPathOf(this.#logPath)
    let fd = -1
    let header: Buffer
    try {
      // A rename replaces a file (or a link, or nothing); a folder at the log's name would fail it after the snapshot's.
      const kind = existsSync(this.#logPath) ? kindOf(this.#logPath, true) : 'nothing'
      if (kind !== 'a file' && kind !== 'nothing' && kind !== 'a symbolic link')
        throw new Error(`its log ${this.#logPath} is ${kind}`)
      // A data file made read-only while the stub runs is not written over, as at the start: the user meant it so.
      if (!this.#writable()) disk.accessSync(this.path, constants.W_OK) // throws, saying why
      // Made anew ('wx' fails on anything at the name, a symbolic link included), never written through what is there.
      rmSync(temporary, { force: true })
      const digest = digestOf()
      writeDurably(temporary, digested(this.store.stateJsonPieces(), digest), 'wx', this.path)
      header = Buffer.from(followsLine(digest.digest('hex')))
      rmSync(temporaryLog, { force: true })
      fd = disk.openSync(temporaryLog, APPEND_NEW)
      ownerReadWrite(fd, this.#logPath)
      if (disk.writeSync(fd, header, 0, header.length) !== header.length) throw new Error('the disk is full')
      disk.fsyncSync(fd)
      disk.renameSync(temporary, this.path) // atomic: readers see the old file or the new one, never a mix
    } catch (error) {
      for (const file of [temporary, temporaryLog]) {
        try {
          rmSync(file, { force: true })
        } catch {
          // its folder is gone or is no folder: there is nothing to remove
        }
      }
      if (fd >= 0) disk.closeSync(fd)
      throw new PersistError(`cannot write the data file ${this.path}: ${(error as Error).message}`)
    }
    // The new state is on disk: from here on nothing is thrown, as nothing of it could be taken back.
    this.#snapshot = identityOf(this.path)
    if (this.#fd >= 0) this.#retired.push(this.#fd)
    if (!this.#flushing) this.#closeRetired()
    this.#fd = fd
    this.#length = header.length
    this.#broken = false
    this.#foldAfter = 0
    this.#generation++
    // The changes waiting for a flush are in the snapshot now (or were replaced away by a reset or restore).
    this.store.commit(this.store.stored)
    const waiting = this.#open
    this.#open = undefined
    waiting?.resolve()
    try {
      // The snapshot under its name before the log that follows it takes the old log's: a power cut between the two
      // must not leave the new log beside the old snapshot.
      syncFolder(this.path)
      disk.renameSync(temporaryLog, this.#logPath)
      syncFolder(this.path) // its name on disk before any change flushed to it is acknowledged
      this.#inode = fstatSync(fd).ino
    } catch (error) {
      // The snapshot holds every change so far; the next change writes both again (and is refused if that fails).
      this.#broken = true
      this.onError(`cannot write the data file's log ${this.#logPath}: ${(error as Error).message}`)
    }
  }

  #closeRetired(): void {
    for (const fd of this.#retired.splice(0)) disk.closeSync(fd)
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.store.changeLog = undefined
    // A stub used on after its close (the library's) would acknowledge what nothing keeps, and give its ids again.
    this.store.refuseChanges(new PersistError(`the data file ${this.path} is closed: this stub keeps no more changes`))
    try {
      this.compact()
    } catch (error) {
      // The fold failed before it changed anything (see compact): what was acknowledged is in the log, read at the start.
      const kept = this.#lostTo === undefined && !this.#broken
      this.onError(
        `${(error as Error).message}${kept ? `; every change acknowledged is in its log ${this.#logPath}, which the next start reads with it` : ''}`,
      )
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

/**
 * What stops a start whose first fold of the log into the data file failed: on a full disk, what it needs (room for a
 * second copy of the state, written beside the first before it replaces it) and that nothing was changed.
 */
function startError(error: Error, path: string, logPath: string): Error {
  if (!(error instanceof PersistError) || !/ENOSPC|disk is full|full\?/.test(error.message)) return error
  const size = (file: string) => (existsSync(file) ? statSync(file).size : 0)
  const mib = Math.max(1, Math.ceil((size(path) + size(logPath)) / (1024 * 1024)))
  return new PersistError(
    `${error.message}: the start folds the log into the data file, writing the state anew beside it, and needs about ${mib} MiB free on its disk; free that much, or move ${path} and its log to a larger disk (both are as they were)`,
  )
}
