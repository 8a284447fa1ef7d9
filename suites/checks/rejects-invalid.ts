import type { Check } from './check.js'
import { requestLine } from './util.js'

/** An invalid body (missing, malformed, required field absent, wrong type, outside the enum) is refused: 400. */
export const rejectsInvalid: Check = {
  id: 'createPet.rejects-invalid',
  title: 'createPet refuses every invalid body with 400',
  severity: 'fail',
  operationId: 'createPet',
  applies: ({ exchange }) => exchange?.response !== undefined,
  run: ({ exchange }) => {
    const status = exchange!.response!.status
    if (status === 400) return []
    const body = exchange!.request.body === undefined ? 'no body' : `body ${exchange!.request.body.slice(0, 200)}`
    return [`${requestLine(exchange!)} with the invalid ${body} answered ${status}; documented: 400 Error`]
  },
}
