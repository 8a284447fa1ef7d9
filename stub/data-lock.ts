/**
 * One stub per data file: `FILE.lock` names the process of the stub that keeps FILE (see {@link DataFileLock}).
 */
import { readFileSync, realpathSync, rmSync, statSync } from 'node:fs'
import { uptime } from 'node:os'
import { threadId } from 'node:worker_threads'
import { basename, dirname, join, resolve } from 'node:path'
import { identityOf, kindOf, readSmallFile, removeIfCan, temporaryPathOf, writeDurably } from './disk.js'
import { PersistError } from './store.js'

/** The lock file beside a data file. */
export function lockPathOf(path: string): string {
  return `${path}.lock`
}

/** A lock file is a line of a few dozen bytes; no more than this is ever read of one. */
const LOCK_MOST_BYTES = 4096

/** A lock file with no process in it yet is one being taken, for this long; after that, one a crash left half made. */
const TAKING_MS = 5_000

/**
 * How long a start waits for the process a lock names to end: one killed a moment ago (a restart right after a kill -9)
 * may still be running while the system frees its memory, or not yet be reaped by its parent.
 */
const ENDING_MS = 1_000

/**
 * How far the clock may be set forward after a lock is made (a sync at boot) without the lock being read as one of an
 * earlier boot of the machine.
 */
const CLOCK_SLACK_MS = 60_000

/**
 * One stub's hold on a data file. Two stubs on one file would each answer 201 with the same ids and write over each
 * other's changes, so the second is refused: `FILE.lock` holds the process id of the stub keeping FILE, and a start
 * that finds it naming a live process other than its own stops. A lock whose process is gone (a crash, a kill -9) is
 * taken over; so is one naming this very process, left by an earlier run of a container whose process ids repeat,
 * one made before the machine last started (a power cut), whose process id another program may have now (on Linux by
 * the boot's id, elsewhere by the file's time), and, on Linux, one whose process id names a process that started at
 * another time than the stub that made it.
 * Node has no portable lock on a file's contents, so the lock is this file; stubs of one process are told apart by a
 * set of the files they hold.
 */
export class DataFileLock {
  /** The data files held by stubs of this process, by absolute path. */
  static readonly #held = new Set<string>()

  /** The lock file as this stub made it (inode, size, time): while it is unchanged, it needs no reading. */
  #made: string | undefined

  private constructor(
    readonly path: string,
    readonly key: string,
  ) {
    this.#made = identityOf(lockPathOf(path))
  }

  /** Takes the lock of the data file at `path`; throws {@link PersistError} (one line) when another stub holds it. */
  static take(path: string): DataFileLock {
    const key = absolute(path)
    if (DataFileLock.#held.has(key))
      throw new PersistError(`the data file ${path} is in use by another stub of this process: give each its own file`)
    const lockPath = lockPathOf(path)
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        makeLock(lockPath) // EEXIST when another has it
        DataFileLock.#held.add(key)
        return new DataFileLock(path, key)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
          throw new PersistError(`cannot write the data file ${path}: ${(error as Error).message}`)
      }
      // Anything but a file there is no lock a stub made: left as it is, and never read (a named pipe would hold the start
      // for ever, /dev/zero never end).
      const kind = kindAt(lockPath)
      if (kind !== undefined && kind !== 'a file')
        throw new PersistError(`cannot use ${lockPath} as the data file's lock: it is ${kind}; remove it`)
      const lock = lockOf(lockPath)
      if (lock === 'taking' || (lock !== undefined && stillHeld(lock, lockPath)))
        throw new PersistError(
          typeof lock === 'object' && lock.pid === process.pid
            ? `the data file ${path} is in use by a stub of another thread of this process (thread ${lock.thread ?? '?'}): close it, or give each its own file (if that thread ended without closing it, remove ${lockPath})`
            : `the data file ${path} is in use by another stub (${lock === 'taking' ? 'starting now' : `process ${lock.pid}`}): stop it or give this one another file (if no stub runs, remove ${lockPath})`,
        )
      try {
        rmSync(lockPath, { force: true }) // left by a stub that is gone
      } catch (error) {
        throw new PersistError(
          `cannot take over the lock ${lockPath} of the data file ${path}, left by a stub that is gone: ${(error as Error).message}; remove it`,
        )
      }
      // So is the snapshot it was writing, if it died at that moment: its temporary file would stay for ever. (The log
      // it was writing is read first: it tells a compaction that had put its snapshot in; see stub/data-read.ts.)
      if (lock !== undefined) removeIfCan(temporaryPathOf(path, lock.pid))
    }
    throw new PersistError(`cannot take the lock ${lockPath} of the data file ${path}: other stubs keep taking it`)
  }

  /**
   * Whether this stub still holds the file. A lock removed under it (a clean-up script) is put back; `false` when
   * another stub holds the file now, which it may since the lock was gone: this one must not write the file again.
   */
  keep(): boolean {
    const lockPath = lockPathOf(this.path)
    if (this.#made !== undefined && identityOf(lockPath) === this.#made) return true // still the lock this stub made
    if (holderOf(lockPath) === undefined) {
      try {
        makeLock(lockPath)
      } catch {
        // another stub made it first (read below), or the folder is gone (the data file's own write reports that)
      }
    }
    const lock = lockOf(lockPath)
    const ours = typeof lock === 'object' && isOurs(lock)
    if (ours) this.#made = identityOf(lockPath)
    return ours || lock === undefined
  }

  /** The process that holds the file now, as its lock names it (`undefined`: none, or not readable). */
  holder(): number | 'taking' | undefined {
    return holderOf(lockPathOf(this.path))
  }

  /** Gives the file up: the lock file goes, unless another stub has taken it over meanwhile. */
  release(): void {
    if (!DataFileLock.#held.delete(this.key)) return
    const lockPath = lockPathOf(this.path)
    try {
      const lock = lockOf(lockPath)
      if (typeof lock === 'object' && isOurs(lock)) rmSync(lockPath, { force: true })
    } catch {
      // a lock that cannot be removed is taken over at the next start, its process being gone
    }
  }
}

/**
 * Whether the stub a lock names still runs: its process is another one than this (a container started again gives
 * out the same process ids), it runs, and it is the one that made the lock. After a power cut its process id may be
 * another program's since the machine started again, so a lock older than this boot names no stub, whatever runs
 * under its number; and one killed a moment ago is waited for, up to {@link ENDING_MS}.
 */
function stillHeld(lock: LockContent, lockPath: string): boolean {
  // This process's own id: a stub of another of its threads holds the file (its workers share the id and the clock's
  // origin, while their sets of files held are their own), or an earlier process with the same id made the lock.
  if (lock.pid === process.pid) return lock.origin === performance.timeOrigin
  // Linux names each boot: a lock of another boot names no stub, and one of this boot is judged by its process alone,
  // whatever the clock did since (set forward by hours at the first network sync of a machine with no clock battery).
  const boot = bootId()
  const earlierBoot = lock.boot !== undefined && boot !== undefined ? lock.boot !== boot : madeBeforeBoot(lockPath)
  return !earlierBoot && isRunning(lock.pid, lock.started) && !endsWithin(lock.pid, lock.started, ENDING_MS)
}

/** True for a lock this thread of this process made (one of a lock's older form: of this process). */
function isOurs(lock: LockContent): boolean {
  if (lock.pid !== process.pid) return false
  return lock.origin === undefined || (lock.origin === performance.timeOrigin && lock.thread === threadId)
}

/** A path made absolute, its folder's links resolved: one file under two names is one key. */
export function absolute(path: string): string {
  const full = resolve(path)
  try {
    return join(realpathSync(dirname(full)), basename(full))
  } catch {
    return full
  }
}

/**
 * Makes the lock file naming this process, and when it started where the system shows it; throws (EEXIST) when
 * anything is at its path already.
 */
function makeLock(lockPath: string): void {
  const started = procStat('self')?.started // when this process started, as Linux shows it
  const boot = bootId()
  const lock: LockContent = {
    pid: process.pid,
    origin: performance.timeOrigin,
    thread: threadId,
    ...(started === undefined ? {} : { started }),
    ...(boot === undefined ? {} : { boot }),
  }
  try {
    writeDurably(lockPath, JSON.stringify(lock) + '\n', 'wx')
  } catch (error) {
    // Made but not written (a full disk): left there, it would pass for a stub starting, and refuse starts for a while.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') removeIfCan(lockPath)
    throw error
  }
}

/**
 * What a lock file holds: the process of the stub that keeps the file, and on Linux when that process started and the
 * boot of the machine it ran in.
 */
interface LockContent {
  pid: number
  /** When this process began, to the microsecond (`performance.timeOrigin`, one for all its threads). */
  origin?: number
  /** The thread of the stub (`worker_threads.threadId`): stubs in two workers of one process are two stubs. */
  thread?: number
  started?: string
  boot?: string
}

/** This boot of the machine, as Linux names it (a random id drawn at every start); `undefined` elsewhere. */
function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim() || undefined
  } catch {
    return undefined
  }
}

/** The process a lock file names; `taking` for one just made and not written yet; `undefined` for none or garbage. */
function holderOf(lockPath: string): number | 'taking' | undefined {
  const lock = lockOf(lockPath)
  return typeof lock === 'object' ? lock.pid : lock
}

/** What a lock file holds; `taking` for one just made and not written yet; `undefined` for none or garbage. */
function lockOf(lockPath: string): LockContent | 'taking' | undefined {
  const text = readSmallFile(lockPath, LOCK_MOST_BYTES)
  if (text === undefined) return undefined
  try {
    const { pid, origin, thread, started, boot } = JSON.parse(text) as Record<string, unknown>
    if (typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0)
      return {
        pid,
        ...(typeof origin === 'number' ? { origin } : {}),
        ...(typeof thread === 'number' ? { thread } : {}),
        ...(typeof started === 'string' ? { started } : {}),
        ...(typeof boot === 'string' ? { boot } : {}),
      }
  } catch {
    // not written whole: being taken, or left half made by a crash
  }
  try {
    // Made a moment ago; a time ahead of the clock (set back since) is no moment ago.
    const age = Date.now() - statSync(lockPath).mtimeMs
    return text === '' && age >= -CLOCK_SLACK_MS && age < TAKING_MS ? 'taking' : undefined
  } catch {
    return undefined
  }
}

/** What is at the lock's path, links not followed; `undefined` when nothing is. */
function kindAt(lockPath: string): string | undefined {
  try {
    return kindOf(lockPath, true)
  } catch {
    return undefined
  }
}

/**
 * True when the lock file was made before the machine last started (by {@link CLOCK_SLACK_MS} at least): where the
 * system names no boot, and for locks made before stubs wrote the boot in them.
 */
function madeBeforeBoot(lockPath: string): boolean {
  try {
    return statSync(lockPath).mtimeMs < Date.now() - uptime() * 1000 - CLOCK_SLACK_MS
  } catch {
    return false
  }
}

/** True when the process with this id stops running within `ms` (checked every few milliseconds). */
function endsWithin(pid: number, started: string | undefined, ms: number): boolean {
  const until = performance.now() + ms // the monotonic clock: a clock set back meanwhile must not stretch the wait
  const pause = new Int32Array(new SharedArrayBuffer(4))
  while (performance.now() < until) {
    Atomics.wait(pause, 0, 0, 10) // the start is synchronous: nothing else is to be done meanwhile
    if (!isRunning(pid, started)) return true
  }
  return false
}

/**
 * True when the process with this id runs (one of another user's too: signalling it is refused, not unknown), and is
 * the one that started at `started` when that is known. Where the system shows them (Linux's /proc), a process that
 * has ended and that its parent has not reaped yet (a zombie) runs no more, and neither does the stub of a lock whose
 * process id another program has now (a container started again, its process ids given out anew).
 */
function isRunning(pid: number, started: string | undefined): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  const stat = procStat(pid)
  if (stat === undefined) return true
  return stat.state !== 'Z' && stat.state !== 'X' && (started === undefined || stat.started === started)
}

/**
 * What Linux's /proc shows of a process: its state (`Z` ended and not reaped, `X` being removed) and when it started
 * (clock ticks since the machine started); `undefined` where there is no /proc (macOS, Windows) or no such process.
 */
function procStat(pid: number | 'self'): { state: string; started: string } | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
  } catch {
    return undefined
  }
  // "pid (command) state ppid ... starttime ...": the command may hold spaces and parentheses, so the fields are
  // counted from the last ')'; the start time is the 22nd field.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { state: fields[0] ?? '', started: fields[19] ?? '' }
}
