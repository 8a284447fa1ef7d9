import { exchangeCheck, notJudged } from './check.js'
import { bodyOf, errorStatuses, integerText, isObject, requestLine } from './util.js'

/**
 * An Error body's `status` repeats the HTTP status. An Error the interface requires (a documented error status) must
 * say it: the Error schema requires `status`, so one without it fails here too, not only in `error.body`. A body that
 * is no object, or an undocumented error status whose body says no status, leaves nothing to compare: not judged.
 */
export const errorStatusEchoed = exchangeCheck({
  id: 'error.status-echoed',
  title: 'Error.status repeats the HTTP status',
  severity: 'fail',
  basis: [
    { spec: '#/components/schemas/Error/properties/status/description' },
    { spec: '#/components/schemas/Error/required' },
  ],
  on: { operation: 'all', when: ({ response }) => response.status >= 400 },
  run: ({ exchange, response }, spec) => {
    const body = bodyOf(exchange)
    const where = `${requestLine(exchange)} answered ${response.status}`
    if (!isObject(body)) return notJudged(`${where} with no JSON object to read a status from (error.body judges it)`)
    if (body.status === undefined) {
      const required = spec.requiredOf('Error').includes('status') && errorStatuses(spec).includes(response.status)
      if (!required) return notJudged(`${where} with a body that says no status`)
      return [`${where} with an Error without status; documented: status is required and repeats the HTTP status`]
    }
    const said = integerText(body.status)
    return said === String(response.status)
      ? []
      : [`${where} with Error.status ${said ?? JSON.stringify(body.status)}; documented: the HTTP status`]
  },
})
