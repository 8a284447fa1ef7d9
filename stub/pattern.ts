/**
 * Texts that a schema's `pattern` matches, made from the pattern itself: what the stub writes for a value it makes
 * (a header a revision requires, a property Pet requires) when the pattern leaves no word to use. It reads the
 * regular expressions specs write (literals, classes and ranges, `\d \w \s`, groups, alternatives, quantifiers,
 * anchors); one with lookarounds or back-references gets no text, and every text is checked against the pattern.
 */

/** A parsed piece of a pattern. */
type Piece =
  | { kind: 'chars'; pick: string } // one character of these
  | { kind: 'seq'; items: Piece[] }
  | { kind: 'alt'; options: Piece[] }
  | { kind: 'repeat'; item: Piece; min: number; max: number }

/** Printable ASCII: the characters a class that excludes some (`[^,]`, `\S`, `.`) picks from. */
const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('')
const DIGITS = '0123456789'
const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'
const SPACE = ' \t'
/** The characters each one-letter escape stands for: classes and their negations, control characters. */
const ESCAPES: Readonly<Record<string, string>> = {
  d: DIGITS,
  w: WORD,
  s: SPACE,
  D: without(PRINTABLE, DIGITS),
  W: without(PRINTABLE, WORD),
  S: without(PRINTABLE, SPACE),
  n: '\n',
  t: '\t',
  r: '\r',
  f: '\f',
  v: '\v',
  '0': '\0',
}

/** Unbounded repeats (`*`, `+`, `{n,}`) stop this far past their minimum, or as far as a minimum length needs. */
const MORE = 3

class Unsupported extends Error {}

/**
 * A text `pattern` matches, within `minLength` and `maxLength` code points, or `undefined` when none was found in a
 * few tries (or the pattern uses what this reader does not).
 */
export function sampleMatching(
  pattern: string,
  random: () => number,
  bounds: { minLength?: number; maxLength?: number } = {},
): string | undefined {
  let regex: RegExp
  let parsed: Piece
  try {
    regex = new RegExp(pattern, 'u')
    // Unbounded repeats may have to reach a minimum length alone.
    parsed = new Reader(pattern, Math.max(MORE, bounds.minLength ?? 0)).read()
  } catch {
    return undefined
  }
  for (let attempt = 0; attempt < 20; attempt++) {
    // Every other try repeats as much as it may: the way to a long minimum.
    const text = write(parsed, attempt % 2 === 1 ? () => 0.9999 : random)
    const length = [...text].length
    if (length < (bounds.minLength ?? 0) || length > (bounds.maxLength ?? Infinity)) continue
    if (regex.test(text)) return text
  }
  return undefined
}

function write(piece: Piece, random: () => number): string {
  switch (piece.kind) {
    case 'chars': {
      const chars = [...piece.pick]
      return chars[Math.floor(random() * chars.length)] ?? ''
    }
    case 'seq':
      return piece.items.map((item) => write(item, random)).join('')
    case 'alt':
      return write(piece.options[Math.floor(random() * piece.options.length)]!, random)
    case 'repeat': {
      const count = piece.min + Math.floor(random() * (piece.max - piece.min + 1))
      return Array.from({ length: count }, () => write(piece.item, random)).join('')
    }
  }
}

/** A recursive-descent reader of a pattern's source. */
class Reader {
  #at = 0
  /** How far past its minimum an unbounded repeat may go. */
  readonly #more: number
  constructor(
    readonly source: string,
    more: number,
  ) {
    this.#more = more
  }

  read(): Piece {
    const piece = this.#alternatives()
    if (this.#at < this.source.length) throw new Unsupported(`unexpected ${this.source[this.#at]}`)
    return piece
  }

  #peek(): string | undefined {
    return this.source[this.#at]
  }

  #alternatives(): Piece {
    const options = [this.#sequence()]
    while (this.#peek() === '|') {
      this.#at++
      options.push(this.#sequence())
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options }
  }

  #sequence(): Piece {
    const items: Piece[] = []
    while (this.#at < this.source.length && this.#peek() !== '|' && this.#peek() !== ')') {
      const atom = this.#atom()
      if (atom) items.push(this.#quantified(atom))
    }
    return { kind: 'seq', items }
  }

  /** One atom; `undefined` for an anchor, which writes nothing. */
  #atom(): Piece | undefined {
    const c = this.source[this.#at++]!
    switch (c) {
      case '^':
      case '$':
        return undefined
      case '.':
        return { kind: 'chars', pick: WORD }
      case '(': {
        if (this.#peek() === '?') {
          const next = this.source[this.#at + 1]
          if (next === ':') this.#at += 2
          else if (next === '<' && /[A-Za-z_]/.test(this.source[this.#at + 2] ?? '')) {
            const close = this.source.indexOf('>', this.#at)
            if (close < 0) throw new Unsupported('unclosed group name')
            this.#at = close + 1
          } else throw new Unsupported('lookaround')
        }
        const inner = this.#alternatives()
        if (this.source[this.#at++] !== ')') throw new Unsupported('unclosed group')
        return inner
      }
      case '[':
        return this.#class()
      case '\\':
        return this.#escape(false)
      case '*':
      case '+':
      case '?':
      case '{':
        throw new Unsupported('quantifier without an atom')
      default:
        return { kind: 'chars', pick: c }
    }
  }

  #quantified(atom: Piece): Piece {
    const c = this.#peek()
    let min: number
    let max: number
    if (c === '*') [min, max] = [0, this.#more]
    else if (c === '+') [min, max] = [1, 1 + this.#more]
    else if (c === '?') [min, max] = [0, 1]
    else if (c === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.#at))
      if (!match) return atom // a literal brace
      min = Number(match[1])
      max = match[2] === undefined ? min : match[3] === '' ? min + this.#more : Number(match[3])
      this.#at += match[0].length - 1
    } else return atom
    this.#at++
    if (this.#peek() === '?') this.#at++ // lazy: the same texts
    return { kind: 'repeat', item: atom, min, max: Math.max(min, max) }
  }

  /** `\d`, `\w`, `\s` and their negations, `\b`, control and code escapes, or an escaped literal. */
  #escape(inClass: boolean): Piece | undefined {
    const c = this.source[this.#at++]
    if (c === undefined) throw new Unsupported('trailing backslash')
    const chars = (pick: string): Piece => ({ kind: 'chars', pick })
    const named = ESCAPES[c]
    if (named !== undefined) return chars(named)
    switch (c) {
      case 'b':
        if (inClass) return chars('\b')
        return undefined // a word boundary writes nothing
      case 'B':
        return undefined
      case 'x':
      case 'u': {
        const match = (c === 'x' ? /^[0-9a-fA-F]{2}/ : /^(\{[0-9a-fA-F]{1,6}\}|[0-9a-fA-F]{4})/).exec(
          this.source.slice(this.#at),
        )
        if (!match) throw new Unsupported(`\\${c}`)
        this.#at += match[0].length
        return chars(String.fromCodePoint(parseInt(match[0].replace(/[{}]/g, ''), 16)))
      }
      default:
        if (/[1-9k]/.test(c)) throw new Unsupported('back-reference')
        if (/[pP]/.test(c)) throw new Unsupported('property escape')
        return chars(c)
    }
  }

  #class(): Piece {
    const negated = this.#peek() === '^'
    if (negated) this.#at++
    let members = ''
    while (this.#peek() !== ']') {
      if (this.#at >= this.source.length) throw new Unsupported('unclosed class')
      const start = this.#member()
      if (this.#peek() === '-' && this.source[this.#at + 1] !== ']' && start.length === 1) {
        this.#at++
        const end = this.#member()
        if (end.length !== 1) throw new Unsupported('range to a class')
        for (let code = start.codePointAt(0)!; code <= end.codePointAt(0)!; code++)
          members += String.fromCodePoint(code)
      } else members += start
    }
    this.#at++ // the closing bracket
    const pick = negated ? without(PRINTABLE, members) : members
    if (pick === '') throw new Unsupported('empty class')
    return { kind: 'chars', pick }
  }

  /** One member of a class: a character, or the characters an escape stands for. */
  #member(): string {
    const c = this.source[this.#at++]!
    if (c !== '\\') return c
    const escaped = this.#escape(true)
    return escaped?.kind === 'chars' ? escaped.pick : ''
  }
}

function without(from: string, taken: string): string {
  return [...from].filter((c) => !taken.includes(c)).join('')
}
