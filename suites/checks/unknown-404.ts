import type { Check } from './check.js'
import { requestLine } from './util.js'

/** getPet of an id no pet has answers 404. */
export const unknown404: Check = {
  id: 'getPet.unknown-404',
  title: 'getPet of an unknown id answers 404',
  severity: 'fail',
  operationId: 'getPet',
  applies: ({ exchange }) => exchange?.response !== undefined,
  run: ({ exchange }) => {
    const status = exchange!.response!.status
    return status === 404 ? [] : [`${requestLine(exchange!)} of an id no pet has answered ${status}; documented: 404 Error`]
  },
}
