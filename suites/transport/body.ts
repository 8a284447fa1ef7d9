/** Reading a response body: exact text for the record, a lossless parse for the checks. */
import { isUtf8 } from 'node:buffer'
import type { Parsed } from '../../model/index.js'
import { parseJson } from '../../spec/index.js'

// Keeps a byte order mark, so the checks can see one; bad bytes become U+FFFD for display.
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true })

/** Largest body the suite parses: far beyond any documented answer (a page of pets), small enough to parse safely. */
export const MAX_PARSED_CHARS = 4 * 1024 * 1024
/** Deepest nesting the suite parses: a Pet is two levels deep; a parser's stack is not endless. */
export const MAX_DEPTH = 256

/** How deeply arrays and objects nest in JSON text (strings skipped), stopping once past `max`. */
export function nestingDepth(text: string, max: number = MAX_DEPTH): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // a backslash escapes the next character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > deepest && (deepest = depth) > max) return deepest
    } else if (c === 93 || c === 125) depth--
  }
  return deepest
}

/** Parses a response body without losing int64 digits; a body too large or too deep to parse safely is said so. */
export function parseBody(raw: string): Parsed {
  if (raw.trim() === '') return { kind: 'empty' }
  if (raw.length > MAX_PARSED_CHARS) return { kind: 'invalid', error: `it is ${raw.length} characters long, more than the ${MAX_PARSED_CHARS} the suite parses` }
  if (nestingDepth(raw) > MAX_DEPTH) return { kind: 'invalid', error: `it nests more than ${MAX_DEPTH} levels deep` }
  if (raw.startsWith('\uFEFF')) return { kind: 'invalid', error: 'it starts with a byte order mark, which RFC 8259 §8.1 forbids' }
  try {
    return { kind: 'json', value: parseJson(raw) }
  } catch (error) {
    return { kind: 'invalid', error: (error as Error).message }
  }
}

/** The body's text and its parse: invalid UTF-8 is said so, never parsed. */
export function readBody(bytes: Uint8Array): { text: string; json: Parsed } {
  const text = UTF8.decode(bytes)
  return { text, json: isUtf8(bytes) ? parseBody(text) : { kind: 'invalid', error: 'it is not valid UTF-8' } }
}
