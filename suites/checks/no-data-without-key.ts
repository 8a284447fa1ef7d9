import type { JsonValue } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { bodyOf, isObject, requestLine } from './util.js'

/** Pets a body shows, wherever they sit (a bare Pet, a list, a wrapper), up to a few levels deep. */
export function petsIn(value: JsonValue | undefined, isPet: (v: JsonValue) => boolean, depth = 3): number {
  if (value === undefined || depth < 0) return 0
  if (isPet(value)) return 1
  if (Array.isArray(value)) return value.reduce<number>((n, item) => n + petsIn(item, isPet, depth - 1), 0)
  if (isObject(value)) return Object.values(value).reduce<number>((n, item) => n + petsIn(item, isPet, depth - 1), 0)
  return 0
}

/**
 * Whatever a request that calls no documented operation gets (a path variant, another method), it never shows a
 * pet without a valid key: every operation requires one, and a route around the check would leak the data.
 */
export const noDataWithoutKey = exchangeCheck({
  id: 'auth.no-data-without-key',
  title: 'No request without a valid key gets pet data, whatever its method or path spelling',
  severity: 'fail',
  basis: [{ spec: '#/security' }, { spec: '#/components/responses/Unauthorized/description' }],
  on: { operation: 'any', credential: 'invalid', when: ({ exchange }) => exchange.operationId === undefined },
  run: ({ exchange, response }, spec) => {
    if (response.status >= 300) return []
    const isPet = spec.schema('Pet')
    const pets = petsIn(bodyOf(exchange), (v) => isObject(v) && isPet(v).length === 0)
    if (pets === 0) return []
    return [
      `${requestLine(exchange)} without a valid key answered ${response.status} with ${pets === 1 ? 'a pet' : `${pets} pets`}; documented: every operation requires the key (401 Error)`,
    ]
  },
})
