import type { Check } from './check.js'
import { requestLine } from './util.js'

/** The deprecated getPet links to its replacement: `Link: <...>; rel="successor-version"` (as the spec documents). */
export const successorLink: Check = {
  id: 'getPet.successor-link',
  title: 'getPet links to its replacement (Link rel="successor-version")',
  severity: 'advice',
  operationId: 'getPet',
  applies: ({ exchange }, spec) =>
    exchange?.operationId === 'getPet' && exchange.response !== undefined && spec.response('getPet', exchange.response.status) !== undefined && exchange.response.status !== 401,
  run: ({ exchange }) => {
    const value = exchange!.response!.headers['link']
    if (value !== undefined && /<[^>]*>[^,]*;\s*rel\s*=\s*"?[^",;]*\bsuccessor-version\b/i.test(value)) return []
    return [`${requestLine(exchange!)} answered ${exchange!.response!.status} with ${value === undefined ? 'no Link header' : `Link "${value}"`}; documented: a link with rel="successor-version" to GET /pets`]
  },
}
