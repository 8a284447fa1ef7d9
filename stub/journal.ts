/**
 * The request journal: what clients sent and what they got, newest first, bounded in entries and in bytes.
 * Recording keeps raw fields; the entry a reader sees is built only when the journal is read.
 */
import type { AppRequest, AppResponse } from './app.js'

/** How many entries, and how many bytes of recorded text, the journal holds by default. */
export const JOURNAL_DEFAULTS = { entries: 1000, bytes: 1024 * 1024 } as const

/** How much of a request body, and of a request target, an entry keeps. */
export const BODY_KEPT = 1024
export const TARGET_KEPT = 2048

/** What each entry costs besides its text, in the byte count (the object and its fields). */
const ENTRY_OVERHEAD = 200

/** One request as the journal shows it. */
export interface JournalEntry {
  /** Counts up from 1 since the stub started. */
  seq: number
  time: string
  method: string
  path: string
  query: string
  /** `null` when no answer was sent (the client left, or a socket directive stood in for it). */
  status: number | null
  code?: string
  durationMs: number
  preferenceApplied?: string
  socket?: string
  /** `Authorization` shows its scheme only, never the credentials. */
  headers: Record<string, string>
  /** The request body as text, cut to {@link BODY_KEPT} bytes. */
  body?: string
  bodyBytes?: number
  bodyTruncated?: boolean
}

/** Which entries to read; every field is optional. */
export interface JournalFilter {
  method?: string
  /** A path, or a prefix ending in `*`. */
  path?: string
  /** A status (`404`) or a class (`4xx`). */
  status?: string
  /** At most this many (newest first). */
  limit?: number
}

interface Raw {
  seq: number
  at: number
  method: string
  target: string
  /** `Bearer [redacted]`, already: the credentials themselves are never kept. */
  authorization: string | undefined
  contentType: string | string[] | undefined
  prefer: string | string[] | undefined
  status: number | undefined
  code: string | undefined
  applied: string | undefined
  socket: string | undefined
  ms: number
  body: string | undefined
  bodyBytes: number
  size: number
}

/** The journal's limits. */
export interface JournalOptions {
  entries?: number
  bytes?: number
}

/** A ring of the latest requests. */
export class Journal {
  readonly maxEntries: number
  readonly maxBytes: number
  #ring: (Raw | undefined)[]
  #oldest = 0
  #count = 0
  #bytes = 0
  #seq = 0
  #dropped = 0

  constructor(options: JournalOptions = {}) {
    this.maxEntries = options.entries ?? JOURNAL_DEFAULTS.entries
    this.maxBytes = options.bytes ?? JOURNAL_DEFAULTS.bytes
    this.#ring = new Array<Raw | undefined>(this.maxEntries)
  }

  /** Entries held, their bytes, and how many older ones were dropped to stay within the bounds. */
  get stats(): { entries: number; bytes: number; dropped: number; maxEntries: number; maxBytes: number } {
    return { entries: this.#count, bytes: this.#bytes, dropped: this.#dropped, maxEntries: this.maxEntries, maxBytes: this.maxBytes }
  }

  /** Records one answered (or abandoned) request. Cheap: nothing is formatted here. */
  record(request: AppRequest, response: AppResponse | undefined, ms: number, body?: Uint8Array | string): void {
    if (this.maxEntries === 0) return
    const target = request.url.length > TARGET_KEPT ? request.url.slice(0, TARGET_KEPT) : request.url
    let kept: string | undefined
    let bodyBytes = 0
    if (body !== undefined && body.length > 0) {
      // A copy of at most BODY_KEPT bytes: holding the request's own buffer would keep all of it alive.
      bodyBytes = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
      kept = typeof body === 'string' ? body.slice(0, BODY_KEPT) : Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, BODY_KEPT)).toString('utf8')
    }
    const headers = request.headers
    const prefer = headers.prefer
    const contentType = headers['content-type']
    const size = ENTRY_OVERHEAD + target.length + (kept?.length ?? 0) + textLength(prefer) + textLength(contentType)
    const raw: Raw = {
      seq: ++this.#seq,
      at: Date.now(),
      method: request.method,
      target,
      authorization: headers.authorization === undefined ? undefined : redact(headers.authorization),
      contentType,
      prefer,
      status: response?.status,
      code: response?.code,
      applied: response?.applied,
      socket: response?.socket,
      ms,
      body: kept,
      bodyBytes,
      size,
    }
    if (this.#count === this.maxEntries) this.#dropOldest()
    this.#ring[(this.#oldest + this.#count) % this.maxEntries] = raw
    this.#count++
    this.#bytes += size
    while (this.#bytes > this.maxBytes && this.#count > 1) this.#dropOldest()
  }

  /** The entries that pass `filter`, newest first. */
  read(filter: JournalFilter = {}): JournalEntry[] {
    const method = filter.method?.toUpperCase()
    const path = filter.path
    const prefix = path?.endsWith('*') ? path.slice(0, -1) : undefined
    const entries: JournalEntry[] = []
    for (let i = this.#count - 1; i >= 0 && entries.length < (filter.limit ?? Infinity); i--) {
      const entry = present(this.#ring[(this.#oldest + i) % this.maxEntries]!)
      if (method !== undefined && entry.method !== method) continue
      if (path !== undefined && (prefix !== undefined ? !entry.path.startsWith(prefix) : entry.path !== path)) continue
      if (filter.status !== undefined && !statusMatches(entry.status, filter.status)) continue
      entries.push(entry)
    }
    return entries
  }

  /** Empties the journal; returns how many entries it held. */
  clear(): number {
    const count = this.#count
    this.#ring = new Array<Raw | undefined>(this.maxEntries)
    this.#oldest = 0
    this.#count = 0
    this.#bytes = 0
    this.#dropped = 0
    return count
  }

  #dropOldest(): void {
    const raw = this.#ring[this.#oldest]!
    this.#ring[this.#oldest] = undefined
    this.#oldest = (this.#oldest + 1) % this.maxEntries
    this.#count--
    this.#bytes -= raw.size
    this.#dropped++
  }
}

function textLength(value: string | string[] | undefined): number {
  return value === undefined ? 0 : typeof value === 'string' ? value.length : value.join().length
}

function statusMatches(status: number | null, wanted: string): boolean {
  if (status === null) return false
  return /^[1-5]xx$/i.test(wanted) ? String(status)[0] === wanted[0] : String(status) === wanted
}

/** A raw record as readers see it. */
function present(raw: Raw): JournalEntry {
  const mark = raw.target.indexOf('?')
  const entry: JournalEntry = {
    seq: raw.seq,
    time: new Date(raw.at).toISOString(),
    method: raw.method,
    path: mark < 0 ? raw.target : raw.target.slice(0, mark),
    query: mark < 0 ? '' : raw.target.slice(mark + 1),
    // reset, empty and hang send no status line; trickle and malformed-chunk do.
    status: raw.status === undefined || raw.socket === 'reset' || raw.socket === 'empty' || raw.socket === 'hang' ? null : raw.status,
    durationMs: Math.round(raw.ms * 10) / 10,
    headers: {},
  }
  if (raw.code !== undefined) entry.code = raw.code
  if (raw.applied !== undefined) entry.preferenceApplied = raw.applied
  if (raw.socket !== undefined) entry.socket = raw.socket
  if (raw.authorization !== undefined) entry.headers.authorization = raw.authorization
  if (raw.contentType !== undefined) entry.headers['content-type'] = [raw.contentType].flat().join(', ')
  if (raw.prefer !== undefined) entry.headers.prefer = [raw.prefer].flat().join(', ')
  if (raw.body !== undefined) {
    entry.body = raw.body
    entry.bodyBytes = raw.bodyBytes
    entry.bodyTruncated = raw.bodyBytes > BODY_KEPT
  }
  return entry
}

/** `Bearer [redacted]`: the scheme a client used (a short word), never its credentials. */
function redact(value: string | string[]): string {
  if (typeof value !== 'string') return value.map(redact).join(', ')
  const text = value.trim()
  const space = text.search(/[ \t]/)
  const scheme = space < 0 ? '' : text.slice(0, space)
  return /^[A-Za-z][A-Za-z0-9-]{0,19}$/.test(scheme) ? `${scheme} [redacted]` : '[redacted]'
}
