import type { Check } from './check.js'
import { requestLine } from './util.js'

/** Only the deprecated operation says it is deprecated: listPets and createPet carry no Deprecation or Sunset. */
export const deprecationScoped: Check = {
  id: 'headers.deprecation-scoped',
  title: 'Deprecation and Sunset appear only on the deprecated getPet',
  severity: 'advice',
  operationId: 'all',
  applies: ({ exchange }, spec) => exchange?.response !== undefined && !spec.operation(exchange.operationId).deprecated,
  run: ({ exchange }) => {
    const headers = exchange!.response!.headers
    const found = ['deprecation', 'sunset'].filter((name) => headers[name] !== undefined)
    if (!found.length) return []
    return [`${requestLine(exchange!)} (${exchange!.operationId}, not deprecated) answered with ${found.map((n) => `${n} "${headers[n]}"`).join(' and ')}`]
  },
}
