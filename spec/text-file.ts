/**
 * Reading a file a user names (a spec, a seed, a report): a regular file, or a pipe (`--seed <(curl ...)`), read to its
 * end. Never a wait without end: a named pipe no program writes to is read as giving nothing (opening it the usual way
 * would wait for a writer for ever, deaf even to Ctrl-C), and one that stays silent is given up after a while. A device
 * (/dev/zero) never ends, and the read would grow until the process died; a folder or a socket is no file to read. Those
 * are refused before any read.
 */
import fs from 'node:fs'

/** The most characters Node holds in one string: a file larger than that cannot be read as one text. */
export const MAX_TEXT = 0x1fffffe8

/** How long a pipe may stay silent before its read is given up. */
export const PIPE_SILENCE_MS = 10_000

/**
 * The UTF-8 text of the file at `path` (links followed). Throws, in one line, when there is none, when it is neither a
 * file nor a pipe (`it is a device, not a file`), when it is too large to be one text (said at once, before a read that
 * would take the time and memory of the whole file to fail), or when it is a pipe that gives nothing.
 */
export function readTextFile(path: string): string {
  const stats = fs.statSync(path)
  if (stats.isFIFO()) return readPipe(path)
  if (!stats.isFile()) throw new Error(`it is ${kindOfStats(stats)}, not a file`)
  if (stats.size > MAX_TEXT)
    throw new Error(`it holds ${stats.size} bytes, more than Node reads as one text (${MAX_TEXT})`)
  return fs.readFileSync(path, 'utf8')
}

/** A pipe's text to its end, read without blocking: silence is waited out in short sleeps, up to {@link PIPE_SILENCE_MS}. */
function readPipe(path: string): string {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
  try {
    const chunks: Buffer[] = []
    let total = 0
    const pause = new Int32Array(new SharedArrayBuffer(4))
    for (let silentSince = performance.now(); ;) {
      const chunk = Buffer.allocUnsafe(64 * 1024)
      let got: number
      try {
        got = fs.readSync(fd, chunk, 0, chunk.length, null)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
        if (performance.now() - silentSince > PIPE_SILENCE_MS)
          throw new Error(`it is a pipe that gave nothing for ${PIPE_SILENCE_MS / 1000} s`)
        Atomics.wait(pause, 0, 0, 10)
        continue
      }
      if (got === 0) break
      total += got
      if (total > MAX_TEXT) throw new Error(`it is a pipe that gave more than Node reads as one text (${MAX_TEXT})`)
      chunks.push(chunk.subarray(0, got))
      silentSince = performance.now()
    }
    if (total === 0) throw new Error('it is a pipe that gave nothing (no program was writing to it)')
    return Buffer.concat(chunks, total).toString('utf8')
  } finally {
    fs.closeSync(fd)
  }
}

/** What a file's stats say it is, in words: `a file` for a regular one. */
export function kindOfStats(stats: fs.Stats): string {
  if (stats.isFile()) return 'a file'
  if (stats.isDirectory()) return 'a directory'
  if (stats.isFIFO()) return 'a named pipe (FIFO)'
  if (stats.isSocket()) return 'a socket'
  if (stats.isSymbolicLink()) return 'a symbolic link'
  return 'a device'
}
