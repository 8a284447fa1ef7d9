import { operationPointer, type OperationId, type Spec } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { parseSfDate } from './http-grammar.js'
import { requestLine, whileDeprecated } from './util.js'

// The operation the check's id names; a revision that no longer deprecates it leaves the check inapplicable.
const DEPRECATED = 'getPet'

/** The deprecated operation says so: `Deprecation: @<unix-seconds>`, one field line (RFC 9745 §2). */
export const deprecationHeader = exchangeCheck({
  id: 'getPet.deprecation-header',
  title: `${DEPRECATED} answers with a Deprecation header (RFC 9745)`,
  severity: 'advice',
  basis: (spec) => [
    { spec: operationPointer(spec, DEPRECATED, 'deprecated') },
    { spec: '#/components/headers/Deprecation' },
    { rfc: 'RFC 9745 §2' },
  ],
  // Where the spec documents the header: not on a 401, which answers before any operation is reached.
  ...whileDeprecated(DEPRECATED, 'Deprecation'),
  run: ({ exchange, response }, judged) => {
    const where = `${requestLine(exchange)} answered ${response.status}`
    const value = response.headers['deprecation']
    if (value === undefined)
      return [
        `${where} without a Deprecation header; the operation is deprecated (RFC 9745: Deprecation: @<unix-seconds>)`,
      ]
    // A revision that documents another form (an earlier draft's HTTP-date or `true`) is judged by its schema, in
    // response.headers; the grammar below is RFC 9745's.
    if (!takesSfDate(judged, exchange.operationId, response.status))
      return notJudged(`${where}: the spec documents Deprecation in another form (response.headers judges it)`)
    // Repeated field lines arrive joined with ", "; a date never holds a comma.
    if (value.includes(','))
      return [`${where} with Deprecation "${value}": more than one value; RFC 9745 allows exactly one date`]
    if (parseSfDate(value) === undefined)
      return [`${where} with Deprecation "${value}", not a structured-field date such as @1764892800 (RFC 9745 §2)`]
    return []
  },
})

/** False when the judged spec documents this response's Deprecation header in a form that refuses `@<unix-seconds>`. */
function takesSfDate(judged: Spec, operationId: OperationId | undefined, status: number): boolean {
  const documented = operationId
    ? judged.responseHeaders(operationId, status).find((h) => h.name.toLowerCase() === 'deprecation')
    : undefined
  return documented === undefined || documented.validate('@1764892800').length === 0
}
