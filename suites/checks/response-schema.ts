import { everyResponse } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { requestLine } from './util.js'

/** The body validates against the schema the spec documents for the operation and status. */
export const responseSchema = exchangeCheck({
  id: 'response.schema',
  title: 'The body validates against the documented schema',
  severity: 'fail',
  basis: (spec) => everyResponse(spec, 'content', 'application/json', 'schema'),
  on: {
    operation: 'all',
    when: ({ operationId, response }, spec) => spec.response(operationId, response.status) !== undefined,
  },
  run: ({ exchange, response, operationId }, spec) => {
    const { json } = exchange
    const name = spec.responseSchemaName(operationId, response.status) ?? 'the documented schema'
    const where = `${requestLine(exchange)} answered ${response.status}`
    if (json.kind === 'empty') return [`${where} with an empty body; documented: ${name}`]
    if (json.kind === 'invalid') return [`${where} with a body that is not JSON (${json.error}); documented: ${name}`]
    const problems = spec.response(operationId, response.status)!(json.value)
    return problems.length ? [`${where}; the body does not match ${name}: ${problems.slice(0, 5).join('; ')}`] : []
  },
})
