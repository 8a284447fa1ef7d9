import type { Check } from './check.js'
import { requestLine } from './util.js'

const idText = (value: unknown): string | undefined =>
  value !== null && typeof value === 'object' && 'id' in value ? String((value as { id: unknown }).id) : undefined

/** The service assigns ids: an `id` in a createPet body (a field NewPet does not name) is not used as the pet's id. */
export const assignsId: Check = {
  id: 'createPet.assigns-id',
  title: 'The service assigns the id: an id sent in the body is not used',
  severity: 'fail',
  operationId: 'createPet',
  applies: ({ exchange }) =>
    exchange?.response !== undefined &&
    ((exchange.operationId === 'getPet' && exchange.response.status === 200) ||
      (exchange.operationId === 'createPet' && exchange.response.status === 201)),
  run: ({ exchange, sent }) => {
    if (exchange!.operationId === 'getPet') {
      return [`${requestLine(exchange!)} answered 200 after a createPet whose body carried that id: the client chose the id; documented: the service assigns it`]
    }
    // The 201 body is the stored pet: an id equal to the one sent means the body was echoed, not the assigned id.
    const sentId = idText(sent)
    const answered = exchange!.json.kind === 'json' ? idText(exchange!.json.value) : undefined
    if (sentId === undefined || answered !== sentId) return []
    return [`${requestLine(exchange!)} answered 201 with id ${answered}, the id the body carried: the client chose the id; documented: the service assigns it`]
  },
}
