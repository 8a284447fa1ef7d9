/** Reading a response body: exact text for the record, a lossless parse for the checks. */
import { isUtf8 } from 'node:buffer'
import { truncationMarker, type Parsed } from '../../model/index.js'
import { parseJson } from '../../spec/index.js'

// Keeps a byte order mark, so the checks can see one; bad bytes become U+FFFD for display.
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true })

/** Largest body the suite parses: far beyond any documented answer (a page of pets), small enough to parse safely. */
export const MAX_PARSED_CHARS = 4 * 1024 * 1024
/** Text kept of a body too large to parse: evidence shows 4 KiB of it; a stack trace would be near its start. */
export const MAX_UNPARSED_TEXT = 64 * 1024
/** Deepest nesting the suite parses: a Pet is two levels deep; a parser's stack is not endless. */
export const MAX_DEPTH = 256
/**
 * Most values (array elements and object members, counted by their separating commas) the suite parses: a full page
 * is 100 pets of a few fields each; parsing and validating hundreds of thousands of values on every list would
 * make a run against a target with huge or wide bodies take hours.
 */
export const MAX_VALUES = 20_000

/** How deeply arrays and objects nest in JSON text (strings skipped), stopping once past `max`. */
export function nestingDepth(text: string, max: number = MAX_DEPTH): number {
  return shapeOf(text, max, Infinity).depth
}

/** How deep JSON text nests and how many values it separates with commas (strings skipped), stopping once past a bound. */
export function shapeOf(
  text: string,
  maxDepth: number = MAX_DEPTH,
  maxValues: number = MAX_VALUES,
): { depth: number; values: number } {
  let depth = 0
  let deepest = 0
  let values = 1
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // a backslash escapes the next character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 44) {
      if (++values > maxValues) break
    } else if (c === 91 || c === 123) {
      if (++depth > deepest && (deepest = depth) > maxDepth) break
    } else if (c === 93 || c === 125) depth--
  }
  return { depth: deepest, values }
}

/** Parses a response body without losing int64 digits; a body too large, deep or wide to parse safely is said so. */
export function parseBody(raw: string): Parsed {
  if (raw.trim() === '') return { kind: 'empty' }
  if (raw.length > MAX_PARSED_CHARS)
    return {
      kind: 'invalid',
      error: `it is ${raw.length} characters long, more than the ${MAX_PARSED_CHARS} the suite parses`,
    }
  const shape = shapeOf(raw)
  if (shape.depth > MAX_DEPTH)
    return { kind: 'invalid', error: `it nests more than ${MAX_DEPTH} levels deep, more than the suite parses` }
  if (shape.values > MAX_VALUES)
    return { kind: 'invalid', error: `it holds more than ${MAX_VALUES} values, more than the suite parses` }
  if (raw.startsWith('\uFEFF'))
    return { kind: 'invalid', error: 'it starts with a byte order mark, which RFC 8259 §8.1 forbids' }
  try {
    return { kind: 'json', value: parseJson(raw) }
  } catch (error) {
    return { kind: 'invalid', error: (error as Error).message }
  }
}

/**
 * The body's text and its parse: invalid UTF-8 is said so, never parsed. A body larger than the suite parses
 * (`totalBytes`, when `bytes` is only its beginning) is neither decoded nor held whole: its text is its first
 * `MAX_UNPARSED_TEXT` bytes and a marker of its real size.
 */
export function readBody(bytes: Uint8Array, totalBytes: number = bytes.byteLength): { text: string; json: Parsed } {
  if (totalBytes > MAX_PARSED_CHARS) {
    // `stream: true` holds back a character cut at the end instead of writing U+FFFD for it.
    const head = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, MAX_UNPARSED_TEXT), {
      stream: true,
    })
    const error = `it is ${totalBytes} bytes long, more than the ${MAX_PARSED_CHARS} the suite parses`
    return { text: `${head}${truncationMarker(totalBytes)}`, json: { kind: 'invalid', error } }
  }
  const text = UTF8.decode(bytes)
  return { text, json: isUtf8(bytes) ? parseBody(text) : { kind: 'invalid', error: 'it is not valid UTF-8' } }
}
