/**
 * Bounded evidence: whatever a target sends, what a report keeps of it is small. Texts are cut by characters
 * (never inside a surrogate pair) and end with a visible marker giving the original size; header lists are cut
 * by count. With a `Redactor`, secrets are replaced BEFORE the cut, so no partial key survives it. Applying a
 * bound twice changes nothing: the engine bounds what it records, the run's builder bounds again for safety.
 */
import type { RecordedExchange, RecordedRequest, RecordedResponse } from './exchange.js'
import { type Redactor, withoutUserinfo } from './redact.js'

/** The sizes every report keeps at most (characters unless said otherwise). */
export const LIMITS = {
  /** Findings kept per check; the rest are counted in `findingsLeftOut`. */
  findingsPerCheck: 5,
  /** Observations kept per observed check. */
  observationsPerCheck: 20,
  /** Request and response bodies. */
  body: 4096,
  /** Headers kept per request or response. */
  headers: 40,
  headerName: 256,
  headerValue: 512,
  url: 2048,
  message: 2048,
  curl: 4096,
  counterexample: 2048,
  /** Titles, reasons, notices, errors, observation texts and other short strings. */
  text: 1024,
  /** Errors outside any scenario kept per run. */
  runErrors: 20,
  /** Lines of a check's basis (one per documented response at most). */
  basisLines: 24,
  /** The facts a finding keeps for `--replay` (lossless JSON); longer ones are left out, not cut. */
  replayFacts: 64 * 1024,
} as const

/** The marker a cut text ends with. */
export function truncationMarker(bytes: number, unit = 'bytes'): string {
  return `… [truncated: ${bytes} ${unit} in all]`
}

const MARKED = /… \[truncated: \d+ bytes in all\]$/
/** The key of the entry that stands for headers left out. */
export const MORE_HEADERS = '…'

/** The first `maxChars` characters (UTF-16 units) of `text`, one fewer rather than half a surrogate pair. */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  const last = text.charCodeAt(maxChars - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars)
}

/**
 * The text with secrets redacted and, when longer than `maxChars`, cut with a marker of its original size in
 * UTF-8 bytes. A text already cut this way (its kept part within `maxChars`) keeps its marker and size.
 * `scrub` cleans the kept text further before redaction (e.g. `withoutUserinfo`).
 */
export function boundText(
  text: string,
  maxChars: number,
  redactor?: Redactor,
  scrub?: (text: string) => string,
): string {
  if (typeof text !== 'string') text = String(text)
  const clean = (part: string) => {
    const scrubbed = scrub ? scrub(part) : part
    return redactor ? redactor.text(scrubbed) : scrubbed
  }
  const tail = (part: string) => (redactor ? redactor.tail(part) : part)
  const marked = markerOf(text)
  if (marked && marked.index <= maxChars) {
    // Cut earlier, perhaps before redaction: a secret's first characters may sit at the cut.
    return `${tail(clean(text.slice(0, marked.index)))}${marked.marker}`
  }
  if (text.length <= maxChars) return clean(text)
  // Only the part kept and a margin past it are redacted: a secret that starts before the cut ends in the margin,
  // and one cut at the margin's end loses its beginning to `tail`. Megabytes past the cut are never scanned.
  const window = cutText(text, maxChars + REDACTION_MARGIN)
  const cleaned = clean(window)
  if (window.length === text.length && cleaned.length <= maxChars) return cleaned
  const kept = tail(cutText(tail(cleaned), maxChars))
  return `${kept}${truncationMarker(Buffer.byteLength(text, 'utf8'))}`
}

// Longer than any secret as a target may escape it (256 characters, each as `&#x0000061;` or `\u0061`).
const REDACTION_MARGIN = 4096

function markerOf(text: string): { index: number; marker: string } | undefined {
  if (!text.endsWith(' bytes in all]')) return undefined
  const tail = text.slice(-64)
  const match = MARKED.exec(tail)
  return match ? { index: text.length - tail.length + match.index, marker: match[0] } : undefined
}

/** At most `LIMITS.headers` headers, names and values bounded; an entry `…` says how many there were. */
export function boundHeaders(headers: Record<string, string> | undefined, redactor?: Redactor): Record<string, string> {
  const entries = Object.entries(headers ?? {})
  const marked = entries.length === LIMITS.headers + 1 && entries[LIMITS.headers]![0] === MORE_HEADERS
  const kept = entries.slice(0, LIMITS.headers)
  const bounded = kept.map(([name, value]) => [
    boundText(name, LIMITS.headerName, redactor),
    boundText(String(value), LIMITS.headerValue, redactor),
  ])
  if (marked) bounded.push(entries[LIMITS.headers]!)
  else if (entries.length > LIMITS.headers)
    bounded.push([MORE_HEADERS, `[truncated: ${entries.length} headers in all]`])
  return Object.fromEntries(bounded) // defines `__proto__` as an ordinary header, unlike assignment
}

/** The exchange as reports hold it: known fields only, every text and header list bounded (and redacted), no user:password@ in its URL. */
export function boundExchange(exchange: RecordedExchange, redactor?: Redactor): RecordedExchange {
  const { request, response } = exchange
  const boundedRequest: RecordedRequest = {
    method: boundText(String(request?.method ?? ''), 64, redactor),
    url: boundText(String(request?.url ?? ''), LIMITS.url, redactor, withoutUserinfo),
    headers: boundHeaders(request?.headers, redactor),
    ...(typeof request?.body === 'string' ? { body: boundText(request.body, LIMITS.body, redactor) } : {}),
  }
  const boundedResponse: RecordedResponse | undefined = response
    ? {
        status: Number(response.status),
        headers: boundHeaders(response.headers, redactor),
        rawBody: boundText(String(response.rawBody ?? ''), LIMITS.body, redactor),
      }
    : undefined
  return {
    ...(exchange.operationId ? { operationId: exchange.operationId } : {}),
    request: boundedRequest,
    ...(boundedResponse ? { response: boundedResponse } : {}),
    ...(exchange.error !== undefined ? { error: boundText(String(exchange.error), LIMITS.text, redactor) } : {}),
    durationMs: Number(exchange.durationMs) || 0,
  }
}
