/**
 * Pure functions that read the parts of an HTTP request: target, query, path parameter, headers.
 * None of them throws on malformed input; they say so with `undefined` or `false`.
 */
import { isInt64, type JsonValue } from '../spec/index.js'
import { toInt64, type Int64 } from './store.js'

/** Request headers as Node gives them: lower-case names. */
export type RequestHeaders = Record<string, string | string[] | undefined>

const QUOTE_LIMIT = 60

/** True when `value` is the token of a request `Content-Type` the stub reads as JSON (RFC 6839 `+json` included). */
export function isJsonMediaType(value: string | undefined): boolean {
  if (value === undefined) return false
  if (value === 'application/json' || value === 'application/json; charset=utf-8') return true // what clients send
  const [essence = '', ...parameters] = value.split(';')
  if (!/^application\/(?:[a-z0-9!#$&^_.-]+\+)?json$/i.test(essence.trim())) return false
  // JSON is UTF-8 (RFC 8259 §8.1): a charset parameter may say so, and may not say anything else.
  return parameters.every((parameter) => {
    const [name = '', raw = ''] = parameter.split('=')
    if (name.trim().toLowerCase() !== 'charset') return true
    return /^"?utf-?8"?$/i.test(raw.trim())
  })
}

/** Splits a request target into its path and query, dropping a scheme and authority sent in absolute form. */
export function splitTarget(target: string): { path: string; query: string } {
  let url = target
  if (url.charCodeAt(0) !== 47 /* '/' */) {
    const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)
    if (authority) url = url.slice(authority[0].length) || '/'
  }
  const hash = url.indexOf('#')
  if (hash >= 0) url = url.slice(0, hash)
  const mark = url.indexOf('?')
  return mark < 0 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) }
}

/** Percent-decodes one path segment or query component (`+` is a space in queries); `undefined` when malformed. */
export function decodeComponent(text: string, plusIsSpace: boolean): string | undefined {
  const spaced = plusIsSpace && text.includes('+') ? text.replaceAll('+', ' ') : text
  if (!spaced.includes('%')) return spaced
  try {
    return decodeURIComponent(spaced)
  } catch {
    return undefined
  }
}

/** The values of the named query parameters (decoded; `undefined` for a malformed one), others ignored. */
export function readQuery(query: string, names: readonly string[]): Map<string, (string | undefined)[]> {
  const found = new Map<string, (string | undefined)[]>()
  if (query === '') return found
  for (const pair of query.split('&')) {
    if (pair === '') continue
    const equals = pair.indexOf('=')
    const name = decodeComponent(equals < 0 ? pair : pair.slice(0, equals), true)
    if (name === undefined || !names.includes(name)) continue
    const value = decodeComponent(equals < 0 ? '' : pair.slice(equals + 1), true)
    const values = found.get(name)
    if (values) values.push(value)
    else found.set(name, [value])
  }
  return found
}

/** The int64 a path's `petId` names, or `undefined` when it is no integer or lies outside int64. */
export function parsePetId(text: string): Int64 | undefined {
  if (!/^-?[0-9]+$/.test(text)) return undefined
  if (text.length <= 15) return Number(text)
  // Leading zeros are read however many there are; past them, more digits than an int64 has is out of its range.
  const significant = text.replace(/^(-?)0+(?=[0-9])/, '$1')
  if (significant.length > 20) return undefined
  const value = BigInt(significant)
  return isInt64(value) ? toInt64(value) : undefined
}

/** The first value of a header. */
export function headerOf(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** True when a body holds nothing but JSON whitespace. */
export function isBlank(body: Uint8Array | string): boolean {
  const text = typeof body === 'string'
  for (let i = 0; i < body.length; i++) {
    const unit = text ? body.charCodeAt(i) : body[i]
    if (unit !== 0x20 && unit !== 0x09 && unit !== 0x0a && unit !== 0x0d) return false
  }
  return true
}

/**
 * Constant-time string equality: the work depends only on the length of `given` (the client's input),
 * never on where it first differs from `known` nor on `known`'s length.
 */
export function sameText(given: string, known: string): boolean {
  let difference = given.length ^ known.length
  for (let i = 0; i < given.length; i++) difference |= given.charCodeAt(i) ^ (known.charCodeAt(i) | 0)
  return difference === 0
}

/** A received value quoted for a message, cut short so that no message grows with the input. */
export function quote(value: string): string {
  const cut = value.length > QUOTE_LIMIT ? value.slice(0, QUOTE_LIMIT) + '...' : value
  return JSON.stringify(cut)
}

/** What kind of JSON value this is, in words, for messages. */
export function describe(value: JsonValue): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `a string (${quote(value)})`
  if (typeof value === 'number' && !Number.isInteger(value))
    return Number.isNaN(value) ? 'a fraction' : `a fraction (${value})`
  if (typeof value === 'number' || typeof value === 'bigint') return `a number (${value})`
  return typeof value === 'boolean' ? `a boolean (${value})` : 'an object'
}

/**
 * What an `Accept` value says of `type` (RFC 9110 §12.5.1): the most specific range that matches it (2 for the type
 * itself, 1 for `text/*`, 0 for any type) and its weight, from 0 to 1; `undefined` when none matches. Without
 * `Accept`, any type is as good as another.
 */
export function acceptOf(
  accept: string | string[] | undefined,
  type: string,
): { specificity: number; weight: number } | undefined {
  if (accept === undefined) return { specificity: 0, weight: 1 }
  const major = type.slice(0, type.indexOf('/'))
  let best: { specificity: number; weight: number } | undefined
  for (const range of (Array.isArray(accept) ? accept.join(',') : accept).split(',')) {
    const [name = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const specificity = name === type ? 2 : name === `${major}/*` ? 1 : name === '*/*' ? 0 : -1
    if (specificity < 0 || specificity <= (best?.specificity ?? -1)) continue
    const q = params.find((param) => /^q\s*=/.test(param))
    const weight = q === undefined ? 1 : Number(q.slice(q.indexOf('=') + 1).trim())
    best = { specificity, weight: Number.isFinite(weight) && weight >= 0 && weight <= 1 ? weight : 0 }
  }
  return best
}
