/** The request headers the node edge hands the app, read from Node's raw list, and the body length they declare. */
import type { RequestHeaders } from './app.js'

/**
 * The few request headers the app reads, taken from the raw list: Node builds `req.headers` lazily, and
 * skipping that saves work on every request. The first occurrence wins, as in `req.headers`, except that
 * every `Authorization` is kept (the app refuses more than one) and every `Prefer` (they add up).
 */
export function pickHeaders(raw: string[]): RequestHeaders {
  let authorization: string | string[] | undefined
  let prefer: string | string[] | undefined
  let contentType: string | undefined
  let contentLength: string | undefined
  let contentEncoding: string | undefined
  let corsHeaders: string | undefined
  let host: string | string[] | undefined
  let origin: string | undefined
  let accept: string | undefined
  let corsMethod: string | undefined
  let fetchSite: string | undefined
  let transferEncoding: string | string[] | undefined
  let upgrade: string | undefined
  let referer: string | undefined
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!
    const length = name.length
    if (length === 13 && named(name, 'authorization')) authorization = more(authorization, raw[i + 1]!)
    else if (length === 12 && contentType === undefined && named(name, 'content-type')) contentType = raw[i + 1]
    else if (length === 14 && contentLength === undefined && named(name, 'content-length')) contentLength = raw[i + 1]
    else if (length === 14 && fetchSite === undefined && named(name, 'sec-fetch-site')) fetchSite = raw[i + 1]
    else if (length === 6 && named(name, 'prefer')) prefer = more(prefer, raw[i + 1]!)
    else if (length === 4 && named(name, 'host'))
      host = more(host, raw[i + 1]!) // two are refused
    else if (length === 6 && origin === undefined && named(name, 'origin')) origin = raw[i + 1]
    else if (length === 16 && contentEncoding === undefined && named(name, 'content-encoding'))
      contentEncoding = raw[i + 1]
    else if (length === 30 && corsHeaders === undefined && named(name, 'access-control-request-headers'))
      corsHeaders = raw[i + 1]
    // Read by the admin API (a Markdown client report) and the client report (a browser's preflight is not the client's).
    else if (length === 6 && accept === undefined && named(name, 'accept')) accept = raw[i + 1]
    else if (length === 29 && corsMethod === undefined && named(name, 'access-control-request-method'))
      corsMethod = raw[i + 1]
    // Read by the edge only, which refuses a coding it cannot read (stub/refusals.ts): every one is kept.
    else if (length === 17 && named(name, 'transfer-encoding')) transferEncoding = more(transferEncoding, raw[i + 1]!)
    else if (length === 7 && upgrade === undefined && named(name, 'upgrade')) upgrade = raw[i + 1]
    // Read for a page's request that names no origin: which page sent it (see stub/stub.ts's forPages).
    else if (length === 7 && referer === undefined && named(name, 'referer')) referer = raw[i + 1]
  }
  const headers: RequestHeaders = {
    authorization,
    'content-type': contentType,
    'content-length': contentLength,
    'content-encoding': contentEncoding,
  }
  if (prefer !== undefined) headers.prefer = prefer
  if (corsHeaders !== undefined) headers['access-control-request-headers'] = corsHeaders
  if (host !== undefined) headers.host = host
  if (origin !== undefined) headers.origin = origin
  if (accept !== undefined) headers.accept = accept
  if (corsMethod !== undefined) headers['access-control-request-method'] = corsMethod
  if (fetchSite !== undefined) headers['sec-fetch-site'] = fetchSite
  if (transferEncoding !== undefined) headers['transfer-encoding'] = transferEncoding
  if (upgrade !== undefined) headers.upgrade = upgrade
  if (referer !== undefined) headers.referer = referer
  return headers
}

/**
 * True when a header name (as long as `lower`) is `lower` in any case, compared without a lower-case copy: most clients
 * send names in lower case or capitalized (`Content-Type`), on every request.
 */
function named(name: string, lower: string): boolean {
  if (name === lower) return true
  for (let i = 0; i < lower.length; i++) {
    const c = name.charCodeAt(i)
    // ASCII letters differ from their lower case by 0x20 alone; `lower` holds letters and `-` only.
    if (c !== lower.charCodeAt(i) && (c < 0x41 || c > 0x5a || (c | 0x20) !== lower.charCodeAt(i))) return false
  }
  return true
}

/**
 * A `Content-Length` as a number, as `Number` reads it (`NaN` when it is no number, 0 when empty), with the usual
 * case (a few digits) read without the generic conversion.
 */
export function lengthOf(value: string | string[] | undefined): number {
  if (typeof value !== 'string') return Number(value)
  const length = value.length
  if (length === 0 || length > 15) return Number(value)
  let total = 0
  for (let i = 0; i < length; i++) {
    const digit = value.charCodeAt(i) - 0x30
    if (digit < 0 || digit > 9) return Number(value)
    total = total * 10 + digit
  }
  return total
}

/** A header seen once more: a second value makes a list. */
function more(seen: string | string[] | undefined, value: string): string | string[] {
  if (seen === undefined) return value
  if (typeof seen === 'string') return [seen, value]
  seen.push(value) // the array made here: a copy per header would make a thousand repeats cost a million copies
  return seen
}
