import { spec, basisOf, operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
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
  basis: basisOf(
    Object.values(spec().operations).flatMap((op) =>
      op.statuses
        .filter((status) => spec().responseHeaders(op.operationId, status).length > 0)
        .map((status) => ({ spec: operationPointer(spec(), op.operationId, 'responses', status, 'headers') })),
    ),
  ),
  on: {
    operation: 'all',
    when: ({ operationId, response }, spec) => spec.responseHeaders(operationId, response.status).length > 0,
  },
  run: ({ exchange, response, operationId }, spec) => {
    const where = `${requestLine(exchange)} answered ${response.status}`
    return spec.responseHeaders(operationId, response.status).flatMap(({ name, required, validate }) => {
      // Headers are recorded by lower-case name; repeated field lines arrive joined with ", ".
      const value = response.headers[name.toLowerCase()]
      if (value === undefined) return required ? [`${where} without ${name}; documented: required`] : []
      const problems = validate(value)
      return problems.length
        ? [`${where} with ${name} "${value.slice(0, 200)}", which breaks the spec's schema: ${problems.join('; ')}`]
        : []
    })
  },
})
