/**
 * `curl` lines that replay a recorded request. The API key never appears: it is written as
 * `$PETSTORE_API_KEY`, which the shell expands when the line is run.
 */

/** The credential a request carried, as the suite chose it. */
export type Credential =
  | 'key' // `Bearer <key>`: the real key
  | 'none' // no Authorization header
  | 'empty' // `Bearer ` with no token
  | 'wrong' // `Bearer <a made-up key>`
  | 'basic' // the real key under another scheme: `Basic <key>`
  | 'extended' // the real key with a character appended
  | 'truncated' // the real key without its last character
  | 'lowercase-scheme' // `bearer <key>`: schemes are case-insensitive (RFC 9110 §11.1)
  | 'case-changed' // the real key with the case of its letters swapped: keys are compared exactly

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
}

/** A `curl` command that sends the same request; the key comes from `$PETSTORE_API_KEY`. */
export function curlLine(request: CurlRequest): string {
  const words = ['curl', '-sS', '-i', '-g']
  if (request.method !== 'GET') words.push('-X', request.method)
  words.push(shellQuote(request.url))
  const auth = curlAuthorization(request.credential)
  if (auth) words.push('-H', auth)
  if (request.contentType) words.push('-H', shellQuote(`Content-Type: ${request.contentType}`))
  if (request.body !== undefined && request.body !== '') words.push('--data-binary', shellQuote(request.body))
  return words.join(' ')
}
