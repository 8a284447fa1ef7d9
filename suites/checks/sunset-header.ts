import type { Check } from './check.js'
import { parseImfFixdate, parseSfDate } from './http-grammar.js'
import { requestLine } from './util.js'

/** The deprecated getPet names its removal date: `Sunset: <IMF-fixdate>` (RFC 8594), the spec's `x-sunset`. */
export const sunsetHeader: Check = {
  id: 'getPet.sunset-header',
  title: "getPet answers with a Sunset header at the spec's removal date (RFC 8594)",
  severity: 'advice',
  operationId: 'getPet',
  applies: ({ exchange }, spec) =>
    exchange?.operationId === 'getPet' && exchange.response !== undefined && spec.response('getPet', exchange.response.status) !== undefined && exchange.response.status !== 401,
  run: ({ exchange }, spec) => {
    const where = `${requestLine(exchange!)} answered ${exchange!.response!.status}`
    const headers = exchange!.response!.headers
    const sunset = spec.operation('getPet').sunset
    const documented = sunset ? sunset.toUTCString() : 'the removal date'
    const value = headers['sunset']
    if (value === undefined) return [`${where} without a Sunset header; the operation is removed on ${documented} (RFC 8594)`]
    const date = parseImfFixdate(value)
    if (!date) return [`${where} with Sunset "${value}", not an IMF-fixdate such as ${documented} (RFC 8594 §3, RFC 9110 §5.6.7)`]
    const messages: string[] = []
    if (sunset && date.getTime() !== sunset.getTime()) messages.push(`${where} with Sunset "${value}"; the spec's removal date (x-sunset) is ${documented}`)
    const deprecated = headers['deprecation'] === undefined ? undefined : parseSfDate(headers['deprecation'])
    if (deprecated !== undefined && date.getTime() < deprecated * 1000) {
      messages.push(`${where} with Sunset "${value}" before its Deprecation date ${new Date(deprecated * 1000).toUTCString()} (RFC 9745 §3)`)
    }
    return messages
  },
}
