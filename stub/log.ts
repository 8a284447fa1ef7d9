/** The stub's request log: one line per request, gathered and written in batches so that logging costs little under load. */
import type { AppRequest, AppResponse } from './app.js'

/** A log that gathers its lines and writes them together; {@link BufferedLog.flush} writes what it holds now. */
export interface BufferedLog {
  (line: string): void
  /** Writes every line gathered so far (before the process exits, say). */
  flush(): void
}

/** Log lines wait at most this long to be written together, so that a busy stub writes a few times a second. */
export const LOG_INTERVAL_MS = 100
/** Once this many bytes of lines wait, they are written at the next turn of the event loop, whatever the interval. */
const LOG_BATCH_BYTES = 64 * 1024
/** The room lines wait in; when a line could overflow it, what waits there is kept as text until the next write. */
const LOG_ROOM_BYTES = 4 * LOG_BATCH_BYTES

/**
 * A log writer that gathers lines and writes them in one call, in order: at once after a quiet spell, else at most
 * every {@link LOG_INTERVAL_MS} ms (sooner once {@link LOG_BATCH_BYTES} wait), so logging costs little under load.
 * Lines wait as UTF-8 bytes in one buffer, not as strings: a busy stub logs thousands of lines between two writes,
 * and strings kept that long outlive the young generation, which then copies each of them.
 */
export function bufferedLog(write: (text: string) => void): BufferedLog {
  const room = Buffer.allocUnsafe(LOG_ROOM_BYTES)
  let used = 0
  /** Text taken out of a full room (and any line longer than the room), written before the room's at the next write. */
  let spilled: string[] = []
  let timer: NodeJS.Timeout | undefined
  let soon = false
  let written = -Infinity
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    soon = false
    if (used === 0 && spilled.length === 0) return
    const text = spilled.join('') + room.toString('utf8', 0, used)
    spilled = []
    used = 0
    written = performance.now()
    write(text)
  }
  // Writes happen on a timer, never inside the request that logs: a failing write cannot break an answer.
  const log = (line: string) => {
    const most = line.length * 3 + 1 // UTF-8 takes at most 3 bytes per UTF-16 unit
    if (used + most > LOG_ROOM_BYTES) {
      spilled.push(room.toString('utf8', 0, used))
      used = 0
    }
    if (most > LOG_ROOM_BYTES) spilled.push(line + '\n')
    else {
      used += room.write(line, used)
      room[used++] = 0x0a
    }
    if (timer === undefined) timer = setTimeout(flush, Math.max(0, written + LOG_INTERVAL_MS - performance.now()))
    else if ((used >= LOG_BATCH_BYTES || spilled.length > 0) && !soon) {
      clearTimeout(timer)
      timer = setTimeout(flush, 0)
      soon = true
    }
  }
  return Object.assign(log, { flush })
}

/** Most bytes of log lines a destination may hold unwritten (a pipe nobody reads, a terminal paused with Ctrl-S). */
export const LOG_BACKLOG_BYTES = 1024 * 1024

/** Where a log's text goes: a stream that holds what it could not write yet (`process.stderr`). */
export interface LogStream {
  readonly writableLength: number
  write(text: string): unknown
}

/**
 * Writes log text to `stream` while it keeps up, and drops it while {@link LOG_BACKLOG_BYTES} wait unwritten: a stub
 * whose log nobody reads keeps serving in bounded memory. Once the stream takes text again, one line says how many
 * lines were dropped.
 */
export function streamLog(stream: LogStream): (text: string) => void {
  let dropped = 0
  return (text) => {
    if (stream.writableLength > LOG_BACKLOG_BYTES) {
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) dropped++
      return
    }
    if (dropped > 0) {
      stream.write(`- - ${dropped} log lines dropped: the log was not being read\n`)
      dropped = 0
    }
    stream.write(text)
  }
}

/**
 * `METHOD target status [code] [prefer="..."] [allow-headers="..."] [socket directive] time`: never a header
 * value, except the header names a CORS preflight asked for and was allowed.
 */
export function logLine(
  request: Pick<AppRequest, 'method' | 'url'>,
  response: AppResponse | undefined,
  ms: number,
  secrets: readonly string[] = [],
): string {
  const status =
    response === undefined
      ? 'aborted'
      : response.code === undefined
        ? response.status
        : `${response.status} ${response.code}`
  const applied = response?.applied === undefined ? '' : ` prefer=${JSON.stringify(response.applied)}`
  const allowed =
    response?.allowedHeaders === undefined ? '' : ` allow-headers=${JSON.stringify(response.allowedHeaders)}`
  const socket = response?.socket === undefined ? '' : ` ${response.socket}`
  return `${request.method} ${printable(withoutSecrets(request.url, secrets))} ${status}${applied}${allowed}${socket} ${tenths(ms)}ms`
}

/**
 * `text` with each of `secrets` in it (the API keys, the admin key) replaced by `[redacted]`: a client that sends its key
 * in the request target (`?api_key=`) instead of in Authorization must not have it written to a log or a journal.
 */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let shown = text
  for (const secret of secrets)
    if (secret !== '' && shown.includes(secret)) shown = shown.replaceAll(secret, '[redacted]')
  return shown
}

/** A duration in ms to one decimal (`0.4`, `12.0`), as `toFixed(1)` writes it (to within a rounding tie), at less cost. */
function tenths(ms: number): string {
  const count = Math.round(ms * 10)
  return count >= 0 && count < 1e15 ? `${(count - (count % 10)) / 10}.${count % 10}` : ms.toFixed(1)
}

/** The request target as a log can show it: control characters escaped, so one request is one line. */
function printable(url: string): string {
  for (let i = 0; i < url.length; i++) {
    const unit = url.charCodeAt(i)
    if (unit < 0x20 || unit === 0x7f) return JSON.stringify(url)
  }
  return url
}
