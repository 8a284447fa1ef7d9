import { basisOf, everyOperation, operationPointer, parseJson, type JsonValue, type Spec } from '../../spec/index.js'
import { exchangeCheck, notJudged } from './check.js'
import { requestLine } from './util.js'

/**
 * Every header the spec describes for a response (getPet's `Deprecation`, `Sunset`, `Link`; `WWW-Authenticate` on
 * 401) matches the schema the spec gives it, whenever it is sent; one it marks required must be sent. Whether the
 * optional ones are sent at all is advice (the deprecation and challenge checks).
 */
export const responseHeaders = exchangeCheck({
  id: 'response.headers',
  title: 'Every response header the spec describes matches its schema',
  severity: 'fail',
  // Each response's headers; a revision that describes none leaves the responses, where it would describe them.
  basis: (spec) => {
    const described = Object.values(spec.operations).flatMap((op) =>
      op.statuses
        .filter((status) => spec.responseHeaders(op.operationId, status).length > 0)
        .map((status) => ({ spec: operationPointer(spec, op.operationId, 'responses', status, 'headers') })),
    )
    return described.length ? basisOf(described) : everyOperation(spec, 'responses')
  },
  on: {
    operation: 'all',
    when: ({ operationId, response }, spec) => spec.responseHeaders(operationId, response.status).length > 0,
  },
  run: ({ exchange, response, operationId }, spec) => {
    const where = `${requestLine(exchange)} answered ${response.status}`
    const described = spec.responseHeaders(operationId, response.status)
    if (described.every(({ name, required }) => !required && response.headers[name.toLowerCase()] === undefined))
      return notJudged(`${where} with none of the headers the spec describes for it (all optional)`)
    return described.flatMap(({ name, required, validate, schema }) => {
      // Headers are recorded by lower-case name; repeated field lines arrive joined with ", ".
      const value = response.headers[name.toLowerCase()]
      if (value === undefined) return required ? [`${where} without ${name}; documented: required`] : []
      const problems = validate(headerAs(spec, schema, value))
      return problems.length
        ? [`${where} with ${name} "${value.slice(0, 200)}", which breaks the spec's schema: ${problems.join('; ')}`]
        : []
    })
  },
})

/**
 * A header's text as the value its schema describes (OpenAPI's `simple` style): a number or a boolean written as
 * text is that number or boolean; anything else stays text, for the schema to judge.
 */
function headerAs(spec: Spec, schema: Record<string, any>, text: string): JsonValue {
  const { type } = spec.resolve(schema) as { type?: unknown }
  const types = Array.isArray(type) ? type : [type]
  if ((types.includes('integer') || types.includes('number')) && /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text))
    return parseJson(text)
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true'
  return text
}
