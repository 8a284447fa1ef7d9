import { operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { bodyOf, fieldsToMatch, petDifferences, requestLine } from './util.js'

/** A created pet is available: getPet of its id answers 200 with the pet as created. */
export const returnsCreated = exchangeCheck({
  id: 'getPet.returns-created',
  title: 'getPet returns a created pet as it was created',
  severity: 'fail',
  basis: (spec) => [
    { spec: operationPointer(spec, 'getPet', 'responses', '200') },
    { spec: operationPointer(spec, 'createPet', 'responses', '201', 'description') },
  ],
  on: { operation: 'getPet', needs: ['expected'], credential: 'valid' },
  run: ({ exchange, response, facts: { expected } }, spec) => {
    const where = `${requestLine(exchange)} of a pet created by this run`
    if (response.status !== 200) return [`${where} answered ${response.status}; documented: 200 Pet`]
    const differences = petDifferences(bodyOf(exchange), expected, fieldsToMatch(spec, expected))
    return differences.length ? [`${where} returned a different pet: ${differences.join('; ')}`] : []
  },
})
