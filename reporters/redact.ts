import type { CheckResult, Finding, RecordedExchange } from '../suites/model.js'

/** What every scrubbed credential becomes: the same marker the suite's client writes. */
export const REDACTED = '[REDACTED]'

// A bearer credential (RFC 6750 token68); placeholders such as `$PETSTORE_API_KEY` or `[redacted]` never match.
// The first lookahead keeps auth parameters such as `Bearer realm="petstore"` intact.
const BEARER_TOKEN = /\b(Bearer\s+)(?![\w!#$%&'*+.^`|~-]+\s*=\s*["\w])([A-Za-z0-9\-._~+/]+=*)(?![A-Za-z0-9\-._~+/=])/gi

// In prose ("expected a Bearer token") a word is not a key: only digits or length make a token look like one.
const looksLikeKey = (token: string) => /\d/.test(token) || token.length >= 12

// `Authorization: <value>` in a curl line or any text, or `"authorization": "<value>"` in JSON, up to a quote or line end.
const AUTHORIZATION_HEADER = /(Authorization["']?[ \t]*[:=][ \t]*["']?)([^'"\r\n]*)/gi

// Values that already hide the credential: bearer tokens are scrubbed separately, placeholders stay.
const HIDDEN_VALUE = /^(Bearer\s|\$|\[redacted\]|\*|$)/i


/** Replaces bearer credentials and raw `Authorization:` values in free text; placeholders stay. */
export function scrubText(text: string): string {
  return text
    .replace(BEARER_TOKEN, (match, scheme: string, token: string) => (looksLikeKey(token) ? `${scheme}${REDACTED}` : match))
    .replace(AUTHORIZATION_HEADER, (match, prefix: string, value: string) => (HIDDEN_VALUE.test(value) ? match : `${prefix}${REDACTED}`))
}

/** Headers with every `Authorization` value redacted (its scheme kept) and credentials scrubbed from the rest. */
export function scrubHeaders(headers: Record<string, string>): Record<string, string> {
  const scrubbed: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization' || name.toLowerCase() === 'proxy-authorization') {
      scrubbed[name] = redactCredentials(String(value))
    } else {
      scrubbed[name] = scrubText(String(value))
    }
  }
  return scrubbed
}

// `Bearer <token>` becomes `Bearer [REDACTED]`; a scheme alone (`Bearer `) and values already hidden stay as sent.
function redactCredentials(value: string): string {
  const match = /^(\s*\S+\s+)(\S.*)$/s.exec(value)
  if (!match) return /^\s*(Bearer|Basic)?\s*$/i.test(value) ? value : REDACTED
  return HIDDEN_VALUE.test(match[2]!) ? value : `${match[1]}${REDACTED}`
}

/** An exchange with credentials scrubbed from headers, URL, bodies and error text. */
export function scrubExchange(exchange: RecordedExchange): RecordedExchange {
  const { request, response } = exchange
  return {
    ...exchange,
    request: {
      ...request,
      url: scrubUrl(request.url),
      headers: scrubHeaders(request.headers ?? {}),
      ...(request.body === undefined ? {} : { body: scrubText(request.body) }),
    },
    ...(response
      ? { response: { ...response, headers: scrubHeaders(response.headers ?? {}), rawBody: scrubText(response.rawBody ?? '') } }
      : {}),
    ...(exchange.error === undefined ? {} : { error: scrubText(exchange.error) }),
  }
}

/** A finding with credentials scrubbed from its message, exchange, curl line and counterexample. */
export function scrubFinding(finding: Finding): Finding {
  return {
    ...finding,
    message: scrubText(finding.message),
    ...(finding.exchange ? { exchange: scrubExchange(finding.exchange) } : {}),
    ...(finding.curl === undefined ? {} : { curl: scrubText(finding.curl) }),
    ...(finding.counterexample === undefined ? {} : { counterexample: scrubText(finding.counterexample) }),
  }
}

/** A check result whose findings are scrubbed. */
export function scrubCheck(check: CheckResult): CheckResult {
  return { ...check, findings: check.findings.map(scrubFinding) }
}

/** The URL without user info (`user:password@`) and with credential-like query values redacted. */
export function scrubUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return scrubText(url)
  }
  const secretParams = [...parsed.searchParams.keys()].filter((name) => SECRET_PARAM.test(name))
  // Rebuild only when something must go: URL serialisation would re-encode the exact request line otherwise.
  if (!parsed.username && !parsed.password && secretParams.length === 0) return scrubText(url)
  parsed.username = ''
  parsed.password = ''
  for (const name of secretParams) parsed.searchParams.set(name, REDACTED)
  return scrubText(parsed.toString().split(encodeURIComponent(REDACTED)).join(REDACTED))
}

const SECRET_PARAM = /key|token|secret|password|auth/i
