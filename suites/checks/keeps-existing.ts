import { operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { bodyOf, fieldsToMatch, petDifferences, requestLine, stateFields } from './util.js'

/**
 * A pet the target held before the run is still there later, with every property the spec's Pet declares, but its
 * state (`status`): transitions between statuses are not described and may happen at any time.
 */
export const keepsExisting = exchangeCheck({
  id: 'getPet.keeps-existing',
  title: 'Pets listed at the start of the run are still returned at its end',
  severity: 'fail',
  basis: (spec) => [
    { spec: operationPointer(spec, 'getPet', 'responses', '200') },
    { spec: operationPointer(spec, 'getPet', 'responses', '404') },
  ],
  on: { operation: 'getPet', needs: ['existing'], credential: 'valid' },
  run: ({ exchange, response, facts: { existing } }, spec) => {
    const where = `${requestLine(exchange)} of a pet listed at the start of the run`
    if (response.status !== 200)
      return [
        `${where} answered ${response.status}; documented: 200 Pet (pets are never removed by the described operations)`,
      ]
    const state = stateFields(spec)
    const fields = fieldsToMatch(spec, existing).filter((field) => !state.includes(field))
    const differences = petDifferences(bodyOf(exchange), existing, fields)
    return differences.length ? [`${where} returned a different pet: ${differences.join('; ')}`] : []
  },
})
