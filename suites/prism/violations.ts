/**
 * Prism's verdict on one response, read from its `sl-violations` header: the response-side violations become
 * findings with `source: 'prism'`, each under one of four Prism checks.
 */
import type { Finding, RecordedExchange } from '../../model/index.js'
import { isInt64, parseJson, spec, type JsonValue } from '../../spec/index.js'
import type { Facts } from '../checks/check.js'
import { checkById, queryOutsideRange, refusedBeyondInterface } from '../checks/index.js'
import { outsideDocumentedInput } from '../checks/util.js'

/** The response header in which Prism reports violations. */
export const VIOLATIONS_HEADER = 'sl-violations'

/** One entry of Prism's `sl-violations` header. */
export interface PrismViolation {
  location: (string | number)[]
  severity: string
  code?: string | number
  message: string
}

/**
 * The checks under which Prism's response-side violations are reported, each with the basis of the suite's check it
 * mirrors, as declared: a function of the spec, which `bySpec` resolves for the spec judged.
 */
export const PRISM_CHECKS = [
  {
    id: 'prism.response-status',
    title: 'Prism: the response status is documented for the operation',
    basis: checkById('response.status-documented').basis,
  },
  {
    id: 'prism.response-content-type',
    title: 'Prism: the response media type is the documented one',
    basis: checkById('response.content-type').basis,
  },
  {
    id: 'prism.response-body',
    title: "Prism: the response body validates against the operation's schema",
    basis: checkById('response.schema').basis,
  },
  {
    id: 'prism.response-headers',
    title: 'Prism: documented response headers match their schemas',
    basis: checkById('response.headers').basis,
  },
] as const

/** Id of one of {@link PRISM_CHECKS}. */
type PrismCheckId = (typeof PRISM_CHECKS)[number]['id']

// Prism's OpenAPI reader bounds int64 to ±(2^53 - 1), the doubles it can hold exactly (stoplightio/prism#1992).
const PRISM_INT64_BOUND = String(Number.MAX_SAFE_INTEGER)

/**
 * Prism's response-side violations as findings. Request-side ones are dropped: the suite sends bad input on
 * purpose. Prism's Errors and Warnings both fail: the only response-side Warning Prism 5.14 emits is an
 * undocumented non-2xx status, which the interface makes a failure, except in answer to a query outside the
 * documented input (`limit=0`, `limit=`): how an operation answers one the interface does not say, so the status
 * is observed, not judged, as the suite's own `response.status-documented` does. Two Prism artefacts are dropped:
 * an int64 bound of ±(2^53 - 1) on a value that the exact body shows to be a valid int64, and the
 * `deprecation: true` header Prism itself adds to a deprecated operation's answer.
 */
export function parseViolations(headerValue: string | undefined, exchange: RecordedExchange): Finding[] {
  if (headerValue === undefined || headerValue.trim() === '') return []
  const violations = readViolations(headerValue)
  if (violations === 'truncated') return [truncatedFinding(headerValue, exchange)]
  const statusOpen = queryOutsideDocumented(exchange)
  // HTTP's 413, 414, 415 or 431 to input beyond the interface is the target's choice, in whatever media type.
  const refusedBeyond = refusedBeyondInterface(exchange, spec()) !== undefined
  return violations
    .filter((v) => v.location[0] === 'response' && isJudgement(v))
    .filter((v) => !(statusOpen && prismCheckId(v) === 'prism.response-status'))
    .filter(
      (v) => !(refusedBeyond && ['prism.response-status', 'prism.response-content-type'].includes(prismCheckId(v))),
    )
    .filter((v) => !isPrismArtefact(v, exchange))
    .map((v) => ({
      checkId: prismCheckId(v),
      operationId: exchange.operationId,
      severity: 'fail',
      source: 'prism',
      message: describeViolation(v, exchange),
      exchange,
    }))
}

/** Parses the header; `truncated` when Prism cut it short (it does past 8 KB). Throws on anything else. */
/** Parses the header; `truncated` when Prism cut it short (it does past 8 KB). Throws on anything else. */
function readViolations(headerValue: string): PrismViolation[] | 'truncated' {
  if (headerValue.startsWith('Too many violations!')) return 'truncated'
  let parsed: unknown
  try {
    parsed = JSON.parse(headerValue)
  } catch {
    throw new Error(`unreadable ${VIOLATIONS_HEADER} header: ${headerValue.slice(0, 200)}`)
  }
  if (!Array.isArray(parsed)) throw new Error(`${VIOLATIONS_HEADER} is not a JSON array: ${headerValue.slice(0, 200)}`)
  return parsed.filter(isViolation)
}

function isViolation(value: unknown): value is PrismViolation {
  const v = value as PrismViolation
  return typeof v === 'object' && v !== null && Array.isArray(v.location) && typeof v.message === 'string'
}

// Information and Hint are remarks; Prism 5.14 emits none on the response side.
const isJudgement = (v: PrismViolation) => v.severity === 'Error' || v.severity === 'Warning'

// The suite's own test of documented input: Prism lets some values through that the schema refuses (`limit=`).
const queryOutsideDocumented = (exchange: RecordedExchange) =>
  exchange.operationId !== undefined && queryOutsideRange(spec(), exchange.operationId, exchange.request.url).length > 0

function prismCheckId(v: PrismViolation): PrismCheckId {
  if (v.message.startsWith('Unable to match the returned status code')) return 'prism.response-status'
  if (v.message.startsWith('The received media type')) return 'prism.response-content-type'
  if (v.location[1] === 'header') return 'prism.response-headers'
  return 'prism.response-body'
}

function isPrismArtefact(v: PrismViolation, exchange: RecordedExchange): boolean {
  if (isInt64Bound(v)) return exactInt64At(v, exchange) === 'valid'
  // Prism adds `deprecation: true` when a deprecated operation's answer has none, then flags its own header.
  if (v.location[1] === 'header' && String(v.location[2]).toLowerCase() === 'deprecation') {
    return headerOf(exchange, 'deprecation') === undefined
  }
  return false
}

const isInt64Bound = (v: PrismViolation) =>
  (v.code === 'maximum' || v.code === 'minimum') && v.location[1] === 'body' && v.message.endsWith(PRISM_INT64_BOUND)

/** Whether the value a body violation points at is, read exactly, a valid int64. */
function exactInt64At(v: PrismViolation, exchange: RecordedExchange): 'valid' | 'invalid' | 'unknown' {
  const value = valueAt(exactBody(exchange), v.location.slice(2))
  if (typeof value === 'bigint') return isInt64(value) ? 'valid' : 'invalid'
  if (typeof value === 'number' && Number.isSafeInteger(value)) return 'valid'
  return 'unknown'
}

function exactBody(exchange: RecordedExchange): JsonValue | undefined {
  try {
    return exchange.response ? parseJson(exchange.response.rawBody) : undefined
  } catch {
    return undefined
  }
}

function valueAt(value: JsonValue | undefined, path: (string | number)[]): JsonValue | undefined {
  let at: JsonValue | undefined = value
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined
    at = Array.isArray(at) ? at[Number(key)] : Object.hasOwn(at, String(key)) ? at[String(key)] : undefined
  }
  return at
}

function headerOf(exchange: RecordedExchange, name: string): string | undefined {
  const headers = exchange.response?.headers ?? {}
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name)
  return key === undefined ? undefined : headers[key]
}

function describeViolation(v: PrismViolation, exchange: RecordedExchange): string {
  const code = v.code === undefined ? '' : ` ${v.code}`
  const exact =
    isInt64Bound(v) && exactInt64At(v, exchange) === 'invalid' ? ' (read exactly, the value is outside int64)' : ''
  return `${v.message}${exact} [Prism ${v.severity}${code} at ${v.location.join('.')}]`
}

/** Prism's severity, code and location as a finding's message states them (see `describeViolation`). */
export function violationIn(message: string): { severity: string; code?: string; where: string } | undefined {
  const match = /\[Prism (\w+)(?: (\S+))? at (\S+)\]$/.exec(message)
  if (!match) return undefined
  return { severity: match[1]!, ...(match[2] !== undefined ? { code: match[2] } : {}), where: match[3]! }
}

function truncatedFinding(headerValue: string, exchange: RecordedExchange): Finding {
  const shown = headerValue.split('"location":["response"').length - 1
  return {
    checkId: 'prism.response-body',
    operationId: exchange.operationId,
    severity: 'fail',
    source: 'prism',
    message: `Prism reported more violations than its header holds (${shown} response-side ones in the part it kept)`,
    exchange,
  }
}

/**
 * Whether a Prism finding is on a choice the interface leaves open, in answer to a request the suite sent outside
 * the documented input on purpose (the facts say so, by the rule the suite's own checks follow): its status or media
 * type; and on a request that calls no documented operation (another spelling of a path, another method), whatever
 * Prism matched it to, its body and headers too. A 5xx is no choice, whatever the input; a body or header that breaks
 * a documented operation's answer stays Prism's finding.
 */
export function openOutsideDocumentedInput(checkId: string, exchange: RecordedExchange, facts: Facts): boolean {
  const status = exchange.response?.status
  if (status === undefined || status >= 500 || outsideDocumentedInput(facts) === undefined) return false
  if (exchange.operationId === undefined) return true
  return checkId === 'prism.response-status' || checkId === 'prism.response-content-type'
}
