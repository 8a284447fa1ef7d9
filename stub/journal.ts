/**
 * The request journal: what clients sent and what they got, newest first, bounded in entries and in bytes.
 * Recording keeps raw fields; the entry a reader sees is built only when the journal is read, and secrets are redacted
 * then, so recording pays nothing for them.
 */
import type { AppRequest, AppResponse } from './app.js'
import { credentialsShown, longestEncoding, withoutSecrets } from './log.js'

/** How many entries, and how many bytes of recorded text, the journal holds by default. */
export const JOURNAL_DEFAULTS = { entries: 1000, bytes: 1024 * 1024 } as const

/** The most a journal keeps whatever it is told: its columns are allocated whole at start. */
export const JOURNAL_LIMITS = { entries: 1_000_000, bytes: 256 * 1024 * 1024 } as const

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

/** The journal's limits. */
export interface JournalOptions {
  entries?: number
  bytes?: number
  /** Texts never shown (the API keys, the admin key): each is replaced by `[redacted]` in every field of an entry. */
  secrets?: readonly string[]
}

/**
 * A ring of the latest requests, kept in columns (one preallocated array per field) rather than one object per
 * request: objects that live for a thousand requests would all be promoted by the garbage collector, which
 * costs more than recording. Repeated strings (the same target, key, content type) are stored once.
 */
export class Journal {
  readonly maxEntries: number
  readonly maxBytes: number
  readonly #secrets: readonly string[]
  /** What a target or a body keeps past its cut, so a secret the cut runs through is still found and redacted whole. */
  readonly #margin: number
  readonly #seq: Float64Array
  readonly #at: Float64Array
  readonly #ms: Float64Array
  readonly #status: Int16Array
  readonly #bodyBytes: Float64Array
  readonly #size: Float64Array
  readonly #method: (string | undefined)[]
  readonly #target: (string | undefined)[]
  readonly #authorization: (string | string[] | undefined)[]
  readonly #contentType: (string | string[] | undefined)[]
  readonly #prefer: (string | string[] | undefined)[]
  readonly #code: (string | undefined)[]
  readonly #applied: (string | undefined)[]
  readonly #socket: (string | undefined)[]
  readonly #body: (string | undefined)[]
  #oldest = 0
  #count = 0
  /** Grows with every change: what was read of the journal holds while it stays the same. */
  #changes = 0
  #bytes = 0
  #sequence = 0
  #dropped = 0

  constructor(options: JournalOptions = {}) {
    const entries = (this.maxEntries = options.entries ?? JOURNAL_DEFAULTS.entries)
    this.maxBytes = options.bytes ?? JOURNAL_DEFAULTS.bytes
    this.#secrets = options.secrets ?? []
    this.#margin = longestEncoding(this.#secrets)
    this.#seq = new Float64Array(entries)
    this.#at = new Float64Array(entries)
    this.#ms = new Float64Array(entries)
    this.#status = new Int16Array(entries)
    this.#bodyBytes = new Float64Array(entries)
    this.#size = new Float64Array(entries)
    const column = () => new Array<undefined>(entries).fill(undefined) as (string | undefined)[]
    this.#method = column()
    this.#target = column()
    this.#authorization = column()
    this.#contentType = column()
    this.#prefer = column()
    this.#code = column()
    this.#applied = column()
    this.#socket = column()
    this.#body = column()
  }

  /** Entries held, their bytes, and how many older ones were dropped to stay within the bounds. */
  get stats(): { entries: number; bytes: number; dropped: number; maxEntries: number; maxBytes: number } {
    return {
      entries: this.#count,
      bytes: this.#bytes,
      dropped: this.#dropped,
      maxEntries: this.maxEntries,
      maxBytes: this.maxBytes,
    }
  }

  /** Grows with every request recorded and every clearing: an answer read from the journal holds while it stays. */
  get changes(): number {
    return this.#changes
  }

  /**
   * Records one answered (or abandoned) request, answered at `when` (ms since the epoch; now when not given). Cheap:
   * nothing is formatted here.
   */
  record(
    request: AppRequest,
    response: AppResponse | undefined,
    ms: number,
    body?: Uint8Array | string,
    when: number = Date.now(),
  ): void {
    const max = this.maxEntries
    if (max === 0 || request.unrecorded) return
    this.#changes++
    if (this.#count === max) this.#dropOldest(false) // its slot is the one written now
    let at = this.#oldest + this.#count
    if (at >= max) at -= max
    const previous = at === 0 ? max - 1 : at - 1
    const headers = request.headers
    const targetRoom = TARGET_KEPT + this.#margin
    const url = request.url.length > targetRoom ? request.url.slice(0, targetRoom) : request.url
    const target = (this.#target[at] = same(url, this.#target[previous]))
    // Credentials are held in memory only, to be redacted whenever the journal is read; they count in its size.
    const authorization = (this.#authorization[at] = same(headers.authorization, this.#authorization[previous]))
    const contentType = (this.#contentType[at] = same(headers['content-type'], this.#contentType[previous]))
    const prefer = (this.#prefer[at] = headers.prefer)
    let size = ENTRY_OVERHEAD + target.length + textLength(authorization) + textLength(contentType) + textLength(prefer)
    let bytes = 0
    let kept: string | undefined
    if (body !== undefined && body.length > 0) {
      // A copy of at most BODY_KEPT bytes and the margin: holding the request's own buffer, or a slice of its text
      // (which V8 keeps as a view of the whole), would keep all of it alive.
      bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
      const room = BODY_KEPT + this.#margin
      const end = Math.min(bytes, room)
      const text =
        typeof body === 'string'
          ? body.length <= room
            ? body
            : Buffer.from(body.slice(0, room)).toString('utf8')
          : Buffer.isBuffer(body)
            ? body.toString('utf8', 0, end)
            : Buffer.from(body.buffer, body.byteOffset, end).toString('utf8')
      kept = same(text, this.#body[previous])
      size += kept.length
    }
    this.#body[at] = kept
    this.#bodyBytes[at] = bytes
    this.#seq[at] = ++this.#sequence
    this.#at[at] = when
    this.#ms[at] = ms
    this.#method[at] = request.method
    this.#status[at] = response === undefined ? -1 : response.status
    this.#code[at] = response?.code
    this.#applied[at] = response?.applied
    this.#socket[at] = response?.socket
    this.#size[at] = size
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
      const entry = this.#present((this.#oldest + i) % this.maxEntries)
      if (method !== undefined && entry.method !== method) continue
      if (path !== undefined && (prefix !== undefined ? !entry.path.startsWith(prefix) : entry.path !== path)) continue
      if (filter.status !== undefined && !statusMatches(entry.status, filter.status)) continue
      entries.push(entry)
    }
    return entries
  }

  /** Empties the journal; returns how many entries it held. */
  clear(): number {
    this.#changes++
    const count = this.#count
    while (this.#count > 0) this.#dropOldest()
    this.#oldest = 0
    this.#dropped = 0
    return count
  }

  #dropOldest(release = true): void {
    const at = this.#oldest
    // Let go of the strings at once, so a dropped entry's text is not held until its slot is reused.
    if (release) {
      this.#target[at] = this.#authorization[at] = this.#contentType[at] = this.#prefer[at] = this.#body[at] = undefined
      this.#code[at] = this.#applied[at] = this.#socket[at] = undefined
    }
    this.#oldest = at + 1 === this.maxEntries ? 0 : at + 1
    this.#count--
    this.#bytes -= this.#size[at]!
    this.#dropped++
  }

  /** One record as readers see it, every secret redacted. */
  #present(at: number): JournalEntry {
    const secrets = this.#secrets
    const target = withoutSecrets(this.#target[at]!, secrets, TARGET_KEPT)
    const mark = target.indexOf('?')
    const socket = this.#socket[at]
    const status = this.#status[at]!
    const entry: JournalEntry = {
      seq: this.#seq[at]!,
      time: new Date(this.#at[at]!).toISOString(),
      method: withoutSecrets(this.#method[at]!, secrets),
      path: mark < 0 ? target : target.slice(0, mark),
      query: mark < 0 ? '' : target.slice(mark + 1),
      // reset, empty and hang send no status line; trickle and malformed-chunk do.
      status: status < 0 || socket === 'reset' || socket === 'empty' || socket === 'hang' ? null : status,
      durationMs: Math.round(this.#ms[at]! * 10) / 10,
      headers: {},
    }
    if (this.#code[at] !== undefined) entry.code = this.#code[at]
    if (this.#applied[at] !== undefined) entry.preferenceApplied = withoutSecrets(this.#applied[at]!, secrets)
    if (socket !== undefined) entry.socket = socket
    const authorization = this.#authorization[at]
    if (authorization !== undefined) entry.headers.authorization = credentialsShown(authorization, secrets)
    const contentType = this.#contentType[at]
    if (contentType !== undefined)
      entry.headers['content-type'] = withoutSecrets([contentType].flat().join(', '), secrets)
    const prefer = this.#prefer[at]
    if (prefer !== undefined) entry.headers.prefer = withoutSecrets([prefer].flat().join(', '), secrets)
    const body = this.#body[at]
    if (body !== undefined) {
      const bytes = this.#bodyBytes[at]!
      entry.body = withoutSecrets(body, secrets, bytes > BODY_KEPT ? unitsWithin(body, BODY_KEPT) : Infinity)
      entry.bodyBytes = bytes
      entry.bodyTruncated = bytes > BODY_KEPT
    }
    return entry
  }
}

/** `value`, or `earlier` when it is the same text: the new copy then dies young instead of being kept. */
function same<T extends string | string[] | undefined>(value: T, earlier: string | string[] | undefined): T {
  return typeof value === 'string' && value === earlier ? (earlier as T) : value
}

function textLength(value: string | string[] | undefined): number {
  return value === undefined ? 0 : typeof value === 'string' ? value.length : value.join().length
}

function statusMatches(status: number | null, wanted: string): boolean {
  if (status === null) return false
  return /^[1-5]xx$/i.test(wanted) ? String(status)[0] === wanted[0] : String(status) === wanted
}

/** How many of `text`'s first UTF-16 units fit in `bytes` bytes of UTF-8, never half a character. */
function unitsWithin(text: string, bytes: number): number {
  let used = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    const next = text.charCodeAt(i + 1)
    const pair = unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff
    used += unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3
    if (used > bytes) return i
    if (pair) i++
  }
  return text.length
}
