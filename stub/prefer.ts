/**
 * Per-request control with `Prefer` (RFC 7240), Prism-compatible: `code=`, `example=`, `dynamic=`, plus
 * `delay=` and `fault=`. A preference the stub cannot honour is a 400 that lists what it can.
 */
import { spec as specInUse, type OperationId, type Spec } from '../spec/index.js'
import { SOCKET_DIRECTIVES, type SocketDirective } from './socket.js'
import { ApiError } from './errors.js'
import { quote } from './request.js'
import type { SpecExamples } from './examples.js'

/** The longest `delay=` the stub accepts, in ms. */
export const MAX_DELAY_MS = 60_000

/** Statuses any operation can be asked for, though the spec documents none of them: chaos opt-ins. */
export const CHAOS_STATUSES = [429, 503] as const

/** RFC 7240's own preferences: they change nothing in a stub, so they are accepted and not applied. */
const REGISTERED = new Set(['return', 'respond-async', 'wait', 'handling'])

/** What a request's `Prefer` asks for, checked against its operation. */
export interface Preferences {
  /** An answer chosen by the client instead of the stub: the request never reaches the store. */
  forced?: { status: number; example?: string; dynamic: boolean }
  delayMs?: number
  socket?: SocketDirective
  /** The preferences applied, as `Preference-Applied` lists them. */
  applied: string
}

/** Reads the `Prefer` header(s) of a request for `operationId`. Throws a 400 ApiError naming what is available. */
export function readPreferences(header: string, operationId: OperationId, examples: SpecExamples): Preferences {
  const given = new Map<string, string | undefined>()
  for (const item of splitOutsideQuotes(header, ',')) {
    const [first = ''] = splitOutsideQuotes(item, ';') // parameters (after `;`) change nothing here
    const equals = first.indexOf('=')
    const name = (equals < 0 ? first : first.slice(0, equals)).trim().toLowerCase()
    if (name === '') continue
    const value = equals < 0 ? undefined : unquote(first.slice(equals + 1).trim())
    if (!given.has(name)) given.set(name, value) // RFC 7240 §2: the first of a repeated preference counts
  }
  const refuse = (why: string): never => {
    throw new ApiError(
      400,
      'invalid_preference',
      `Prefer: ${why}. Available for ${operationId}: ${available(operationId, examples)}`,
    )
  }
  const applied: string[] = []
  const preferences: Preferences = { applied: '' }
  let code: number | undefined
  let example: { name: string; status: number } | undefined
  let dynamic = false
  for (const [name, value] of given) {
    if (REGISTERED.has(name)) continue
    const shown = value === undefined ? name : `${name}=${value}`
    switch (name) {
      case 'code':
        code = Number(value)
        if (!/^[0-9]{3}$/.test(value ?? '') || !statusesOf(operationId, examples.spec).includes(code))
          refuse(`${quote(shown)} names no status of ${operationId}`)
        break
      case 'example':
        example = examples.of(operationId).find((candidate) => candidate.name === value)
        if (!example) refuse(`${quote(shown)} names no example of ${operationId}`)
        break
      case 'dynamic':
        if (value !== 'true' && value !== 'false') refuse(`${quote(shown)}: dynamic is true or false`)
        dynamic = value === 'true'
        break
      case 'delay':
        preferences.delayMs = /^[0-9]{1,6}$/.test(value ?? '') ? Number(value) : NaN
        if (!(preferences.delayMs! <= MAX_DELAY_MS))
          refuse(`${quote(shown)}: delay is a whole number of ms from 0 to ${MAX_DELAY_MS}`)
        break
      case 'fault':
        if (!SOCKET_DIRECTIVES.includes(value as SocketDirective)) refuse(`${quote(shown)} names no fault`)
        preferences.socket = value as SocketDirective
        break
      default:
        refuse(`unknown preference ${quote(name)}`)
    }
    applied.push(shown)
  }
  if (example && code !== undefined && example.status !== code)
    refuse(`example=${example.name} is a ${example.status} answer, not ${code}`)
  if (code !== undefined || example || dynamic || preferences.socket) {
    preferences.forced = {
      status: code ?? example?.status ?? successOf(operationId, examples.spec),
      example: example?.name,
      dynamic,
    }
  }
  preferences.applied = applied.join(', ')
  return preferences
}

/** The statuses `code=` may name for an operation: every one the served spec documents, and the chaos opt-ins. */
export function statusesOf(operationId: OperationId, spec: Spec = specInUse()): number[] {
  const documented = spec
    .statuses(operationId)
    .filter((status) => /^[0-9]{3}$/.test(status))
    .map(Number)
  return [...new Set([...documented, ...CHAOS_STATUSES])]
}

/** The operation's documented success status (its first 2xx). */
export function successOf(operationId: OperationId, spec: Spec = specInUse()): number {
  return Number(spec.statuses(operationId).find((status) => status.startsWith('2')))
}

/** Every preference an operation takes, in one line, for messages and help. */
export function available(operationId: OperationId, examples: SpecExamples): string {
  const names = examples.of(operationId).map((example) => example.name)
  return [
    `code=${statusesOf(operationId, examples.spec).join('|')}`,
    `example=${names.length ? names.join('|') : '(none in the spec)'}`,
    'dynamic=true|false',
    `delay=0..${MAX_DELAY_MS} (ms)`,
    `fault=${SOCKET_DIRECTIVES.join('|')}`,
  ].join(', ')
}

/** Splits on `separator` where it is not inside a quoted string. */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = []
  let start = 0
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '\\' && quoted) i++
    else if (c === '"') quoted = !quoted
    else if (c === separator && !quoted) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

/** A token as is, a quoted-string without its quotes and escapes. */
function unquote(word: string): string {
  return word.length >= 2 && word.startsWith('"') && word.endsWith('"')
    ? word.slice(1, -1).replace(/\\(.)/g, '$1')
    : word
}
