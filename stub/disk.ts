/**
 * How the stub writes to the disk: the node:fs calls of the data file, its log and its lock, a file written whole and
 * flushed, a folder flushed, and what tells a file it wrote from one put in its place.
 */
import fs from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { kindOfStats } from '../spec/index.js'

/**
 * The calls that write a data file, its log, its lock and its folder: node:fs's own. Tests replace them to play what
 * a crash test cannot make happen (a disk filling up in the middle of a write, a power cut between two steps).
 */
export const disk = {
  openSync: fs.openSync,
  closeSync: fs.closeSync,
  writeSync: fs.writeSync,
  fdatasync: fs.fdatasync,
  fsyncSync: fs.fsyncSync,
  ftruncateSync: fs.ftruncateSync,
  renameSync: fs.renameSync,
  /** Asks whether the data file may be written: renaming over a read-only file works, so its mode is asked first. */
  accessSync: fs.accessSync,
}

/** The log of changes beside a data file. */
export function logPathOf(path: string): string {
  return `${path}.log`
}

/**
 * Where the stub of process `pid` writes the next version of a file (a data file's snapshot, its log) before renaming
 * it over the file.
 */
export function temporaryPathOf(path: string, pid = process.pid): string {
  return `${path}.${pid}.tmp`
}

/**
 * The new logs of compactions cut short beside a data file (`FILE.log.PID.tmp`, of any process): what tells, at the
 * start, that a stub stopped between a compaction's two renames. None when the folder cannot be read.
 */
export function leftoverLogsOf(path: string): string[] {
  const folder = dirname(path)
  const prefix = `${basename(logPathOf(path))}.`
  try {
    return fs
      .readdirSync(folder)
      .filter((name) => name.startsWith(prefix) && /^[0-9]+\.tmp$/.test(name.slice(prefix.length)))
      .map((name) => join(folder, name))
  } catch {
    return []
  }
}

/**
 * Opening a file made anew (failing on anything at the name, a symbolic link included) whose writes all go to its end:
 * a log emptied in place under the stub (a log rotation's `copytruncate`) is then written from its new end, and noticed,
 * instead of being written at the old offset after a hole.
 */
export const APPEND_NEW =
  fs.constants.O_WRONLY |
  fs.constants.O_CREAT |
  fs.constants.O_EXCL |
  fs.constants.O_APPEND |
  (fs.constants.O_NOFOLLOW ?? 0)

/**
 * Lets the stub read and write a file it made (`fd`): with the mode of the file it replaces (`like`, when there is one),
 * else with the one the umask gave it, and the owner's reading and writing added either way. Under `umask 0777` the data
 * file and its log were made unreadable, and the next start could not read back what had been acknowledged.
 */
export function ownerReadWrite(fd: number, like?: string): void {
  let mode = fs.fstatSync(fd).mode
  try {
    if (like !== undefined) mode = fs.statSync(like).mode
  } catch {
    // nothing there yet: the new file's own mode
  }
  const wanted = (mode & 0o7777) | 0o600
  if ((fs.fstatSync(fd).mode & 0o7777) !== wanted) fs.fchmodSync(fd, wanted)
}

/**
 * What is at a path, in words: `a file` for a regular one. With `links`, a symbolic link is told as one instead of
 * what it leads to. Throws (ENOENT) when nothing is there.
 */
export function kindOf(path: string, links = false): string {
  return kindOfStats(links ? fs.lstatSync(path) : fs.statSync(path))
}

/** Opening for reading without waiting: a named pipe with no writer opens at once instead of holding the stub for ever. */
const READ_NOW = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0)

/**
 * The first `most` bytes of a regular file as UTF-8; `undefined` when there is none at the path, or something else is
 * there (a named pipe, a device, a folder, a symbolic link), which is never read: a pipe would wait for a writer for ever
 * and a device like /dev/zero never end.
 */
export function readSmallFile(path: string, most: number): string | undefined {
  let fd: number
  try {
    fd = fs.openSync(path, READ_NOW)
  } catch {
    return undefined
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return undefined
    const bytes = Buffer.alloc(most)
    let read = 0
    for (let got = -1; got !== 0 && read < most; read += got) got = fs.readSync(fd, bytes, read, most - read, null)
    return bytes.toString('utf8', 0, read)
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * A file's inode, size and last change, which a file removed, replaced or written over changes; `undefined` when it is
 * not there.
 */
export function identityOf(path: string): string | undefined {
  try {
    const stats = fs.statSync(path)
    return `${stats.ino} ${stats.size} ${stats.mtimeMs}`
  } catch {
    return undefined
  }
}

/**
 * Writes a file and flushes it to the disk before returning: `text`, or the texts and bytes of `pieces` one after the
 * other (a large file written from what is in memory already, with no copy of it whole). Its mode is that of `like`
 * (the file it is to replace), readable and writable by its owner ({@link ownerReadWrite}).
 */
export function writeDurably(
  path: string,
  content: string | Iterable<string | Uint8Array>,
  flags: string | number,
  like?: string,
): void {
  const fd = disk.openSync(path, flags)
  try {
    ownerReadWrite(fd, like)
    let total = 0
    for (const piece of typeof content === 'string' ? [content] : content) {
      const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece
      // A disk that fills up writes part and says so only by the count; the next write then fails with ENOSPC.
      for (let at = 0; at < bytes.length;) {
        const written = disk.writeSync(fd, bytes, at, bytes.length - at)
        if (written <= 0) throw new Error(`the disk took ${total + at} bytes and no more (full?)`)
        at += written
      }
      total += bytes.length
    }
    disk.fsyncSync(fd)
  } finally {
    disk.closeSync(fd)
  }
}

/** Flushes a folder's entries (a rename, a new file) to the disk; some platforms cannot, and need not. */
export function syncFolder(path: string): void {
  let fd: number
  try {
    fd = disk.openSync(dirname(path), 'r')
  } catch {
    return
  }
  try {
    disk.fsyncSync(fd)
  } catch {
    // Windows cannot flush a folder; its renames are durable on their own
  } finally {
    disk.closeSync(fd)
  }
}

/** Removes what is at `path`, if anything is and it can: a leftover that cannot be removed is left (another user's). */
export function removeIfCan(path: string): void {
  try {
    fs.rmSync(path, { force: true })
  } catch {
    // a folder, another user's file in a shared folder: left as it is
  }
}
