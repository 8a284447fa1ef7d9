import { operationPointer } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { parseImfFixdate, parseSfDate } from './http-grammar.js'
import { requestLine, whileDeprecated } from './util.js'

// The operation the check's id names; a revision that no longer deprecates it leaves the check inapplicable.
const DEPRECATED = 'getPet'

/** The deprecated operation names its removal date: `Sunset: <IMF-fixdate>` (RFC 8594), the spec's `x-sunset`. */
export const sunsetHeader = exchangeCheck({
  id: 'getPet.sunset-header',
  title: `${DEPRECATED} answers with a Sunset header at the spec's removal date (RFC 8594)`,
  severity: 'advice',
  basis: (spec) => [{ spec: operationPointer(spec, DEPRECATED, 'x-sunset') }, { rfc: 'RFC 8594 §3' }],
  ...whileDeprecated(DEPRECATED, 'Sunset'),
  run: ({ exchange, response, operationId }, spec) => {
    const where = `${requestLine(exchange)} answered ${response.status}`
    const sunset = spec.operation(operationId).sunset
    const documented = sunset ? sunset.toUTCString() : 'the removal date'
    const value = response.headers['sunset']
    // A revision that names no removal date (no x-sunset) asks for no Sunset; one that comes must still be a date.
    if (value === undefined && !sunset)
      return notJudged(`${where} without Sunset, and the spec names no removal date (no x-sunset)`)
    if (value === undefined)
      return [`${where} without a Sunset header; the operation is removed on ${documented} (RFC 8594)`]
    const date = parseImfFixdate(value)
    if (!date)
      return [
        `${where} with Sunset "${value}", not an IMF-fixdate such as ${documented} (RFC 8594 §3, RFC 9110 §5.6.7)`,
      ]
    const messages: string[] = []
    if (sunset && date.getTime() !== sunset.getTime())
      messages.push(`${where} with Sunset "${value}"; the spec's removal date (x-sunset) is ${documented}`)
    const deprecated =
      response.headers['deprecation'] === undefined ? undefined : parseSfDate(response.headers['deprecation'])
    if (deprecated !== undefined && date.getTime() < deprecated * 1000) {
      messages.push(
        `${where} with Sunset "${value}" before its Deprecation date ${new Date(deprecated * 1000).toUTCString()} (RFC 9745 §3)`,
      )
    }
    return messages
  },
})
