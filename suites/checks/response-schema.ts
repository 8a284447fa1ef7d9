import type { Check } from './check.js'
import { requestLine } from './util.js'

/** The body validates against the schema the spec documents for the operation and status. */
export const responseSchema: Check = {
  id: 'response.schema',
  title: 'The body validates against the documented schema',
  severity: 'fail',
  operationId: 'all',
  applies: ({ exchange }, spec) =>
    exchange?.response !== undefined && spec.response(exchange.operationId, exchange.response.status) !== undefined,
  run: ({ exchange }, spec) => {
    const { operationId, response, json } = exchange!
    const name = spec.responseSchemaName(operationId, response!.status) ?? 'the documented schema'
    const where = `${requestLine(exchange!)} answered ${response!.status}`
    if (json.kind === 'empty') return [`${where} with an empty body; documented: ${name}`]
    if (json.kind === 'invalid') return [`${where} with a body that is not JSON (${json.error}); documented: ${name}`]
    const problems = spec.response(operationId, response!.status)!(json.value)
    return problems.length ? [`${where}; the body does not match ${name}: ${problems.slice(0, 5).join('; ')}`] : []
  },
}
