/**
 * The one redaction point: every text the kit writes (console, reports, JUnit, curl lines, error messages)
 * passes through a `Redactor` that knows the secrets by value. It finds them in any letter case and in the
 * escapings a target or a writer may apply: JSON `\u` escapes, URL percent-encoding, HTML/XML entities.
 */

/** What every secret becomes. */
export const REDACTED = '[REDACTED]'

const hex2 = (code: number) => code.toString(16).padStart(2, '0')
const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
const ENTITY: Record<string, string[]> = {
  '&': ['&amp;'],
  '<': ['&lt;'],
  '>': ['&gt;'],
  '"': ['&quot;'],
  "'": ['&#39;', '&apos;'],
}

/** Every way one character of a secret may be written in output: itself, \u-escaped, %-encoded, as an entity. */
function characterPattern(char: string): string {
  const forms = new Set<string>([escapeRegExp(char)])
  for (const unit of [...char].map((c) => c.codePointAt(0)!)) {
    if (unit > 0xffff) continue
    forms.add(`\\\\u${unit.toString(16).padStart(4, '0')}`) // JSON: \u0061 (hex digits in either case: flag i)
    forms.add(`&#0*${unit};|&#x0*${unit.toString(16)};`) // HTML/XML numeric character references
  }
  for (const byte of Buffer.from(char, 'utf8')) forms.add(`%${hex2(byte)}`) // URL encoding of each UTF-8 byte
  for (const entity of ENTITY[char] ?? []) forms.add(escapeRegExp(entity))
  if (char === ' ') forms.add('\\+')
  return `(?:${[...forms].join('|')})`
}

/** Finds secrets by value and replaces them, wherever and however they are written. */
export class Redactor {
  readonly #pattern: RegExp | undefined
  readonly #tail: RegExp | undefined

  constructor(secrets: readonly (string | undefined)[]) {
    const usable = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length > 0))]
    // Longest first: a secret that contains another is replaced whole.
    usable.sort((a, b) => b.length - a.length)
    this.#pattern = usable.length
      ? new RegExp(usable.map((secret) => [...secret].map(characterPattern).join('')).join('|'), 'giu')
      : undefined
    const tails = usable.filter((secret) => [...secret].length > TAIL_MIN).map(prefixPattern)
    this.#tail = tails.length ? new RegExp(`(?:${tails.join('|')})$`, 'iu') : undefined
  }

  /** The text with every secret replaced by `[REDACTED]`. */
  text(text: string): string {
    return this.#pattern ? text.replace(this.#pattern, REDACTED) : text
  }

  /**
   * The text, cut before it was redacted, without the first characters of a secret left at its end (the cut
   * took the rest). Only for cut texts: a whole text is redacted with `text`.
   */
  tail(text: string): string {
    if (!this.#tail) return text
    const match = this.#tail.exec(text.slice(-TAIL_WINDOW))
    return match ? `${text.slice(0, text.length - match[0].length)}${REDACTED}` : text
  }

  /** A deep copy of plain data (JSON-like) with every string redacted, object keys included. */
  value<T>(value: T): T {
    if (!this.#pattern) return value
    return this.#walk(value) as T
  }

  #walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value)
    if (Array.isArray(value)) return value.map((v) => this.#walk(v))
    if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = {}
      for (const [key, v] of Object.entries(value)) copy[this.text(key)] = this.#walk(v)
      return copy
    }
    return value
  }
}

// A secret's beginning left at a cut is redacted from this many characters on; fewer tell nothing.
const TAIL_MIN = 4
// Longest text a secret's beginning may take at the end of a cut text, escaped (`&#x00000061;` per character).
const TAIL_WINDOW = 4096

/** Matches any beginning of `secret` of at least TAIL_MIN characters, in every form `characterPattern` knows. */
function prefixPattern(secret: string): string {
  const chars = [...secret].slice(0, -1).map(characterPattern)
  const nested = chars.slice(TAIL_MIN).reduceRight((inner, char) => `(?:${char}${inner})?`, '')
  return `${chars.slice(0, TAIL_MIN).join('')}${nested}`
}

/** The text with the user information (`user:password@`) of every URL in it removed. */
export function withoutUserinfo(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"]*@/gi, '$1')
}

/** A writable whose every write is redacted first (stdout, stderr, a report file's text). */
export interface TextSink {
  write(text: string): unknown
}

/** A sink that redacts what it is given and passes it on. */
export function redactingSink(sink: TextSink, redactor: Redactor): TextSink {
  return { write: (text: string) => sink.write(redactor.text(text)) }
}

/** What must never be printed of an API key: the key, and the key less its last character (a credential the suite sends). */
export function keySecrets(key: string | undefined): string[] {
  return key === undefined ? [] : [key, key.slice(0, -1)].filter((s) => s.length >= 4)
}
