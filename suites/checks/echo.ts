import type { Check } from './check.js'
import { bodyOf, isObject, petDifferences, requestLine } from './util.js'

/** The created Pet echoes exactly what was sent: name, categoryId (int64-exact) and status when given. */
export const echoesNewPet: Check = {
  id: 'createPet.echo',
  title: 'The created Pet echoes the NewPet exactly (int64-exact)',
  severity: 'fail',
  operationId: 'createPet',
  applies: ({ exchange, sent }) => exchange?.response?.status === 201 && isObject(bodyOf(exchange)) && isObject(sent),
  run: ({ exchange, sent }) => {
    // status omitted: the default is not described, so any documented value (or none) is the target's choice.
    const fields = ['name', 'categoryId', ...(isObject(sent) && sent.status !== undefined ? ['status'] : [])]
    const differences = petDifferences(bodyOf(exchange), sent!, fields)
    return differences.length ? [`${requestLine(exchange!)} created a Pet that differs from what was sent: ${differences.join('; ')}`] : []
  },
}
