import { operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { bodyOf, isObject, petDifferences, requestLine } from './util.js'

/**
 * The created Pet echoes exactly what was sent: every property NewPet declares that was sent (int64-exact), write-only
 * ones aside.
 */
export const echoesNewPet = exchangeCheck({
  id: 'createPet.echo',
  title: 'The created Pet echoes the NewPet exactly (int64-exact)',
  severity: 'fail',
  basis: (spec) => [
    { spec: operationPointer(spec, 'createPet', 'responses', '201', 'description') },
    { spec: '#/components/schemas/Pet/description' },
  ],
  // A body that is no object is response.schema's to judge.
  on: {
    operation: 'createPet',
    statuses: [201],
    needs: ['sent'],
    when: ({ exchange, facts }) => isObject(bodyOf(exchange)) && isObject(facts.sent),
  },
  run: ({ exchange, facts: { sent } }, spec) => {
    // Every property NewPet declares that was sent; one omitted (status: its default is not described) is the target's
    // choice, and a write-only one no answer should show.
    const fields = spec.shownOf('NewPet').filter((f) => isObject(sent) && sent[f] !== undefined)
    const differences = petDifferences(bodyOf(exchange), sent, fields)
    return differences.length
      ? [`${requestLine(exchange)} created a Pet that differs from what was sent: ${differences.join('; ')}`]
      : []
  },
})
