import type { Check } from './check.js'
import { requestLine } from './util.js'

/** The service assigns ids: an `id` in a createPet body (a field NewPet does not name) is not used as the pet's id. */
export const assignsId: Check = {
  id: 'createPet.assigns-id',
  title: 'The service assigns the id: an id sent in the body is not used',
  severity: 'fail',
  operationId: 'createPet',
  applies: ({ exchange }) => exchange?.operationId === 'getPet' && exchange.response !== undefined,
  run: ({ exchange }) => {
    const status = exchange!.response!.status
    if (status !== 200) return []
    return [`${requestLine(exchange!)} answered 200 after a createPet whose body carried that id: the client chose the id; documented: the service assigns it`]
  },
}
