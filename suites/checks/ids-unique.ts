import { exchangeCheck } from './check.js'
import { bodyOf, idOf, requestLine } from './util.js'

/** Every created pet gets its own id, also when created concurrently. */
export const idsUnique = exchangeCheck({
  id: 'createPet.ids-unique',
  title: 'Every created pet gets a distinct id (also under concurrent creates)',
  severity: 'fail',
  basis: [{ spec: '#/components/schemas/Pet/allOf/1/properties/id/description' }],
  on: {
    operation: 'createPet',
    statuses: [201],
    needs: ['takenIds'],
    when: ({ exchange }) => idOf(bodyOf(exchange)) !== undefined,
  },
  run: ({ exchange, facts: { takenIds } }) => {
    const id = idOf(bodyOf(exchange))!
    return takenIds.has(id)
      ? [`${requestLine(exchange)} answered 201 with id ${id}, already given to another pet of this run`]
      : []
  },
})
