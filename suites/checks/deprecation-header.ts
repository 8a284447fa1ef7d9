import type { Check } from './check.js'
import { parseSfDate } from './http-grammar.js'
import { requestLine } from './util.js'

/** The deprecated getPet says so: `Deprecation: @<unix-seconds>`, one field line (RFC 9745 §2). */
export const deprecationHeader: Check = {
  id: 'getPet.deprecation-header',
  title: 'getPet answers with a Deprecation header (RFC 9745)',
  severity: 'advice',
  operationId: 'getPet',
  applies: ({ exchange }, spec) =>
    exchange?.operationId === 'getPet' && exchange.response !== undefined && spec.response('getPet', exchange.response.status) !== undefined && exchange.response.status !== 401,
  run: ({ exchange }) => {
    const where = `${requestLine(exchange!)} answered ${exchange!.response!.status}`
    const value = exchange!.response!.headers['deprecation']
    if (value === undefined) return [`${where} without a Deprecation header; the operation is deprecated (RFC 9745: Deprecation: @<unix-seconds>)`]
    // Repeated field lines arrive joined with ", "; a date never holds a comma.
    if (value.includes(',')) return [`${where} with Deprecation "${value}": more than one value; RFC 9745 allows exactly one date`]
    if (parseSfDate(value) === undefined) return [`${where} with Deprecation "${value}", not a structured-field date such as @1764892800 (RFC 9745 §2)`]
    return []
  },
}
