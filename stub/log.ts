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
  // The header names a preflight asked for are the client's text, lower-cased; only preflights pay for this.
  const asked = response?.allowedHeaders
  const lowered = asked === undefined ? [] : secrets.map((secret) => secret.toLowerCase())
  const allowed = asked === undefined ? '' : ` allow-headers=${JSON.stringify(withoutSecrets(asked, lowered))}`
  const socket = response?.socket === undefined ? '' : ` ${response.socket}`
  return `${request.method} ${printable(withoutSecrets(request.url, secrets))} ${status}${applied}${allowed}${socket} ${tenths(ms)}ms`
}

/**
 * `text` with each of `secrets` in it (the API keys, the admin key) replaced by `[redacted]`, however the client wrote
 * it: as is, or with any of its characters percent-encoded (`k%2By` for `k+y`). A client that sends its key in the
 * request target (`?api_key=`), a body or an odd header must not have it written to a log, a journal or a report.
 * With `keep`, only the first `keep` characters are shown, and a secret that starts before the cut is redacted whole.
 */
export function withoutSecrets(text: string, secrets: readonly string[], keep = Infinity, mark = '[redacted]'): string {
  // A secret that starts before the cut ends within its longest encoding past it; what lies further is never read.
  const window = text.length > keep ? text.slice(0, keep + longestEncoding(secrets)) : text
  let ranges: [number, number][] | undefined
  for (const secret of secrets) ranges = foundRanges(window, secret, keep, ranges)
  // A body in UTF-16 (the stub refuses it, but keeps it as sent) holds each character of a key beside a NUL byte.
  if (window.includes('\u0000'))
    for (const secret of secrets)
      if (secret.length > 1) ranges = foundRanges(window, secret.split('').join('\u0000'), keep, ranges)
  // Only a text with a `%` or a `\` in it can hold an escaped secret: the common target is searched as it is, and no more.
  // Each kind of escape alone, then both: a key with `%2F` in it, written in a body with another of its characters as
  // `\u0061`, is found only by decoding the backslash escapes and leaving its `%2F` as it is.
  const percent = window.includes('%')
  const backslash = window.includes('\\')
  if (percent) ranges = escapedRanges(window, secrets, keep, ranges, PERCENT)
  if (backslash) ranges = escapedRanges(window, secrets, keep, ranges, BACKSLASH)
  if (percent && backslash) ranges = escapedRanges(window, secrets, keep, ranges, PERCENT | BACKSLASH)
  if (ranges === undefined) return window.length > keep ? window.slice(0, keep) : window
  return redacted(window, ranges, keep, mark)
}

/** `ranges` and those of `text` where `needle` starts before `keep`. */
function foundRanges(
  text: string,
  needle: string,
  keep: number,
  ranges: [number, number][] | undefined,
): [number, number][] | undefined {
  if (needle === '') return ranges
  for (let at = text.indexOf(needle); at !== -1 && at < keep; at = text.indexOf(needle, at + 1))
    (ranges ??= []).push([at, at + needle.length])
  return ranges
}

/**
 * The most characters a secret can take in a text: each of its UTF-8 bytes percent-encoded (`%XX`), or each of its
 * UTF-16 units as a JSON escape (`\uXXXX`).
 */
export function longestEncoding(secrets: readonly string[]): number {
  let most = 0
  for (const secret of secrets) most = Math.max(most, 3 * Buffer.byteLength(secret), 6 * secret.length)
  return most
}

/**
 * `ranges` and the ranges of `text` that hold a secret once its escapes are decoded: `%XX` (URLs, forms; each to the
 * character of its byte, so a secret beyond ASCII is looked for as its UTF-8 bytes too), JSON's `\uXXXX` (a body),
 * and a backslash before any other character (JSON's `\"`, `\\`, `\/`; a quoted-pair in a header's quoted string,
 * RFC 9110 §5.6.4, which the stub reads as the character). `escapes` and `wider` map the decoded text back.
 */
function escapedRanges(
  text: string,
  secrets: readonly string[],
  keep: number,
  ranges: [number, number][] | undefined,
  kinds: number,
): [number, number][] | undefined {
  const parts: string[] = [] // joined once: a text grown a piece at a time is slow to search
  let length = 0
  const escapes: number[] = [] // where in the decoded text each escape stands
  const wider: number[] = [] // how many characters more than one the escapes up to this one took in `text`
  let last = 0
  const escape = (at: number, unit: number, width: number) => {
    parts.push(text.slice(last, at), String.fromCharCode(unit))
    length += at - last
    escapes.push(length++)
    wider.push((wider.at(-1) ?? 0) + width - 1)
    last = at + width
  }
  for (let at = nextEscape(text, 0, kinds); at !== -1; at = nextEscape(text, last > at ? last : at + 1, kinds)) {
    if (text.charCodeAt(at) === 0x25 /* % */) {
      const byte = hexByte(text, at + 1)
      if (byte >= 0) escape(at, byte, 3)
      continue
    }
    const next = text.charCodeAt(at + 1)
    if (Number.isNaN(next)) break
    const high = next === 0x75 /* u */ ? hexByte(text, at + 2) : -1
    const low = high < 0 ? -1 : hexByte(text, at + 4)
    if (low >= 0) escape(at, high * 256 + low, 6)
    else escape(at, next, 2) // JSON's \" \\ \/, or a quoted-pair: any character after a backslash
  }
  if (escapes.length === 0) return ranges
  parts.push(text.slice(last))
  const decoded = parts.join('')
  // Each escape before `place` took more characters in `text`; they are counted by halving (a 16 KB target of
  // escapes and a one-letter key would make a count from the start for each of thousands of matches).
  const inText = (place: number) => {
    let low = 0
    let high = escapes.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (escapes[middle]! < place) low = middle + 1
      else high = middle
    }
    return place + (low === 0 ? 0 : wider[low - 1]!)
  }
  for (const secret of secrets) {
    if (secret === '') continue
    for (const wanted of [secret, bytesOf(secret)]) {
      if (wanted === undefined) continue
      for (let at = decoded.indexOf(wanted); at !== -1; at = decoded.indexOf(wanted, at + 1)) {
        const start = inText(at)
        if (start >= keep) break
        ranges ??= []
        ranges.push([start, inText(at + wanted.length)])
      }
    }
  }
  return ranges
}

/** The kinds of escape {@link escapedRanges} decodes: `%XX`, and a backslash's (JSON's, a quoted-pair). */
const PERCENT = 1
const BACKSLASH = 2

/** Where the next escape of `kinds` (a `%` or a `\`) at or after `from` is in `text`, or -1. */
function nextEscape(text: string, from: number, kinds: number): number {
  const percent = kinds & PERCENT ? text.indexOf('%', from) : -1
  const backslash = kinds & BACKSLASH ? text.indexOf('\\', from) : -1
  if (percent === -1) return backslash
  return backslash === -1 || percent < backslash ? percent : backslash
}

/** `secret` as its UTF-8 bytes, a character each (what its `%XX` escapes decode to), or undefined for ASCII. */
function bytesOf(secret: string): string | undefined {
  for (let i = 0; i < secret.length; i++)
    if (secret.charCodeAt(i) > 0x7f) return Buffer.from(secret, 'utf8').toString('latin1')
  return undefined
}

/** The byte written as two hex digits at `at` in `text`, or -1. */
function hexByte(text: string, at: number): number {
  const high = hexDigit(text.charCodeAt(at))
  const low = high < 0 ? -1 : hexDigit(text.charCodeAt(at + 1))
  return low < 0 ? -1 : high * 16 + low
}

function hexDigit(unit: number): number {
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30
  const lower = unit | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1
}

/**
 * `text` up to `keep` with `ranges` merged where they overlap or touch and each merged range replaced once by `mark`:
 * one secret that begins another (`dev`, `dev-secret-key-42`) leaves nothing of the longer one, and `mark` itself
 * is never searched.
 */
function redacted(text: string, ranges: [number, number][], keep: number, mark: string): string {
  ranges.sort((a, b) => a[0] - b[0])
  let shown = ''
  let last = 0
  for (let i = 0; i < ranges.length;) {
    const start = ranges[i]![0]
    let end = ranges[i]![1]
    for (i++; i < ranges.length && ranges[i]![0] <= end; i++) end = Math.max(end, ranges[i]![1])
    shown += text.slice(last, start) + mark
    last = end
  }
  return shown + text.slice(last, Math.max(last, keep))
}

/** The schemes an `Authorization` may name, lower-cased: IANA's registry, and NTLM and Token in common use. */
const AUTH_SCHEMES = new Set([
  'basic',
  'bearer',
  'concealed',
  'digest',
  'dpop',
  'gnap',
  'hoba',
  'mutual',
  'negotiate',
  'ntlm',
  'oauth',
  'privatetoken',
  'scram-sha-1',
  'scram-sha-256',
  'token',
  'vapid',
])

/**
 * An `Authorization` value as a journal or a report shows it: `Bearer [redacted]`, the scheme only when it is a known
 * one and no secret (`dev-secret-key-42 Bearer` shows none), else `mark` alone; never the credentials.
 */
export function credentialsShown(
  value: string | readonly string[],
  secrets: readonly string[],
  mark = '[redacted]',
): string {
  if (typeof value !== 'string') return value.map((one) => credentialsShown(one, secrets, mark)).join(', ')
  const text = value.trim()
  const space = text.search(/[ \t]/)
  // One word is a bare token, not a scheme.
  const scheme = space < 0 ? '' : text.slice(0, space)
  return AUTH_SCHEMES.has(scheme.toLowerCase()) && withoutSecrets(scheme, secrets) === scheme
    ? `${scheme} ${mark}`
    : mark
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
