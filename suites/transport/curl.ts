/**
 * `curl` lines that replay a recorded request. The API key never appears: it is written as
 * `$PETSTORE_API_KEY`, which the shell expands when the line is run.
 */
import type { Credential } from '../../model/index.js'

export type { Credential }

/** The made-up key of the `wrong` credential. */
export const WRONG_KEY = 'pcs-not-a-valid-key-0'

/** The `Authorization` value sent for a credential, or undefined for none. */
export function authorizationFor(credential: Credential, apiKey: string): string | undefined {
  switch (credential) {
    case 'key':
      return `Bearer ${apiKey}`
    case 'none':
      return undefined
    case 'empty':
      return 'Bearer '
    case 'wrong':
      return `Bearer ${apiKey === WRONG_KEY ? `${WRONG_KEY}x` : WRONG_KEY}`
    case 'basic':
      return `Basic ${apiKey}`
    case 'extended':
      return `Bearer ${apiKey}x`
    case 'truncated':
      return `Bearer ${apiKey.slice(0, -1)}`
    case 'lowercase-scheme':
      return `bearer ${apiKey}`
    case 'uppercase-scheme':
      return `BEARER ${apiKey}`
    case 'case-changed':
      return `Bearer ${swapCase(apiKey)}`
  }
}

/** The text with upper-case letters lowered and lower-case ones raised. */
export function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')
}

/** The `Authorization` value as a report may show it: schemes kept, every token replaced. */
export function redactedAuthorization(credential: Credential): string | undefined {
  switch (credential) {
    case 'none':
      return undefined
    case 'empty':
      return 'Bearer '
    case 'basic':
      return 'Basic [REDACTED]'
    case 'lowercase-scheme':
      return 'bearer [REDACTED]'
    case 'uppercase-scheme':
      return 'BEARER [REDACTED]'
    default:
      return 'Bearer [REDACTED]'
  }
}

// The header as a shell word that rebuilds the same value from $PETSTORE_API_KEY.
function curlAuthorization(credential: Credential): string | undefined {
  switch (credential) {
    case 'key':
      return '"Authorization: Bearer $PETSTORE_API_KEY"'
    case 'none':
      return undefined
    case 'empty':
      return "'Authorization: Bearer '"
    case 'wrong':
      return shellQuote(`Authorization: Bearer ${WRONG_KEY}`)
    case 'basic':
      return '"Authorization: Basic $PETSTORE_API_KEY"'
    case 'extended':
      return '"Authorization: Bearer ${PETSTORE_API_KEY}x"'
    case 'truncated':
      return '"Authorization: Bearer ${PETSTORE_API_KEY%?}"'
    case 'lowercase-scheme':
      return '"Authorization: bearer $PETSTORE_API_KEY"'
    case 'uppercase-scheme':
      return '"Authorization: BEARER $PETSTORE_API_KEY"'
    case 'case-changed':
      return '"Authorization: Bearer ${PETSTORE_API_KEY~~}"' // bash: swaps the case of every letter
  }
}

/** One POSIX shell word holding `text` exactly. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text
  return `'${text.replace(/'/g, `'\\''`)}'`
}

/** What a curl line needs to know about a request. */
export interface CurlRequest {
  method: string
  url: string
  credential: Credential
  contentType?: string
  body?: string
  /** More headers sent (never Authorization). */
  headers?: Record<string, string>
}

/** A `curl` command that sends the same request; the key comes from `$PETSTORE_API_KEY`. */
export function curlLine(request: CurlRequest): string {
  const words = ['curl', '-sS', '-i', '-g']
  if (request.method === 'HEAD') words.push('-I')
  else if (request.method !== 'GET') words.push('-X', request.method)
  words.push(shellQuote(request.url))
  const auth = curlAuthorization(request.credential)
  if (auth) words.push('-H', auth)
  if (request.contentType) words.push('-H', shellQuote(`Content-Type: ${request.contentType}`))
  // curl sends a body as a form unless told otherwise; `Content-Type:` with no value sends no Content-Type at all.
  else if (request.body !== undefined && request.body !== '') words.push('-H', 'Content-Type:')
  for (const [name, value] of Object.entries(request.headers ?? {})) words.push('-H', shellQuote(`${name}: ${value}`))
  if (request.body !== undefined && request.body !== '') words.push('--data-binary', bodyWord(request.body))
  return words.join(' ')
}

/** Bodies longer than this are written compactly when one character repeated makes up a long run of them. */
const LONG_BODY = 4096
/** The shortest run of one character written as `printf | tr` rather than spelled out. */
const LONG_RUN = 1024

/**
 * One shell word holding the body exactly. A body of a megabyte made mostly of one repeated printable ASCII character
 * (a name of 1 MiB) is rebuilt by the shell, `"$(printf …; printf '%*s' N '' | tr ' ' x; printf …)"`, so the line
 * stays short enough for a report to show whole, and still sends the same bytes.
 */
export function bodyWord(body: string): string {
  if (body.length <= LONG_BODY) return shellQuote(body)
  const run = longRun(body)
  if (run === undefined) return shellQuote(body)
  const before = body.slice(0, run.start)
  const after = body.slice(run.start + run.length)
  const parts = [
    ...(before ? [`printf '%s' ${shellQuote(before)}`] : []),
    `printf '%*s' ${run.length} '' | tr ' ' ${shellQuote(body[run.start]!)}`,
    ...(after ? [`printf '%s' ${shellQuote(after)}`] : []),
  ]
  return `"$(${parts.join('; ')})"`
}

/** Characters compared at once while a run is followed (one string comparison, not one call per character). */
const STRIDE = 4096

/**
 * The longest run of one printable ASCII character in a text, the first of them when several are as long, if it is at
 * least {@link LONG_RUN} long. Such a run holds one of every LONG_RUN-th position, so only those are looked at, and a run
 * found is followed a {@link STRIDE} at a time: a body of a megabyte is read in a fraction of a millisecond.
 */
export function longRun(text: string): { start: number; length: number } | undefined {
  let best: { start: number; length: number } | undefined
  for (let probe = LONG_RUN - 1; probe < text.length; probe += LONG_RUN) {
    const code = text.charCodeAt(probe)
    if (code < 0x20 || code > 0x7e) continue
    let start = probe
    while (start > 0 && text.charCodeAt(start - 1) === code) start-- // not as far as the probe before, or it had it
    let end = probe + 1
    if (end < text.length && text.charCodeAt(end) === code) {
      const stride = String.fromCharCode(code).repeat(STRIDE)
      while (text.slice(end, end + STRIDE) === stride) end += STRIDE // compared as memory, unlike startsWith
      while (end < text.length && text.charCodeAt(end) === code) end++
    }
    if (end - start >= LONG_RUN && end - start > (best?.length ?? 0)) best = { start, length: end - start }
    // The next probe past this run: a run reaching back over a probe already looked at would have been found from it.
    if (end > probe + 1) probe += Math.floor((end - 1 - probe) / LONG_RUN) * LONG_RUN
  }
  return best
}
