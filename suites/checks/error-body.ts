import { exchangeCheck, notJudged } from './check.js'
import { errorStatuses, requestLine } from './util.js'

/**
 * An answer with an error status the interface documents (400, 401, 404) carries an Error body, on every operation
 * ("All error responses carry an Error body"), also where the spec gives the operation no such status: a 400 for
 * an out-of-range `limit`, a 400 for a petId that is no integer. Where the spec documents the status for the
 * operation with another body than Error (a revision's), `response.schema` judges it, and this check does not.
 */
export const errorBody = exchangeCheck({
  id: 'error.body',
  title: (spec) =>
    `Every answer with a documented error status (${errorStatuses(spec).join(', ')}) carries an Error body`,
  severity: 'fail',
  basis: [{ spec: '#/components/schemas/Error/description' }, { spec: '#/components/schemas/Error/required' }],
  on: { operation: 'all', statuses: errorStatuses },
  run: ({ exchange, response, operationId }, spec) => {
    const documented = spec.responseSchemaName(operationId, response.status)
    if (spec.response(operationId, response.status) && documented !== 'Error')
      return notJudged(
        `the spec documents another body than Error for ${operationId} ${response.status} (response.schema judges it)`,
      )
    const where = `${requestLine(exchange)} answered ${response.status}`
    const { json } = exchange
    if (json.kind === 'empty')
      return [`${where} with an empty body; documented: every error response carries an Error body`]
    if (json.kind === 'invalid')
      return [`${where} with a body that is not JSON (${json.error}); documented: an Error body`]
    const problems = spec.schema('Error')(json.value)
    return problems.length ? [`${where}; the body is not an Error: ${problems.slice(0, 5).join('; ')}`] : []
  },
})
