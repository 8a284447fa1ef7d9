import { spec, type OperationId, type Spec, operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { deprecatedOperation, requestLine, whileDeprecated } from './util.js'

const DEPRECATED = deprecatedOperation(spec())

/** The replacement the spec names for a deprecated operation (`x-successor`, e.g. `GET /pets`). */
function successorOf(spec: Spec, operationId: OperationId): string {
  const op = spec.operation(operationId)
  const successor: unknown = spec.doc.paths[op.path][op.method.toLowerCase()]['x-successor']
  return typeof successor === 'string' ? successor : 'its replacement'
}

/** The deprecated operation links to its replacement: `Link: <...>; rel="successor-version"` (as the spec documents). */
export const successorLink = exchangeCheck({
  id: 'getPet.successor-link',
  title: `${DEPRECATED} links to its replacement (Link rel="successor-version")`,
  severity: 'advice',
  basis: [
    { spec: operationPointer(spec(), DEPRECATED, 'x-successor') },
    { spec: '#/components/headers/Link/description' },
  ],
  ...whileDeprecated(spec(), DEPRECATED, 'Link'),
  run: ({ exchange, response, operationId }, spec) => {
    const value = response.headers['link']
    if (value !== undefined && /<[^>]*>[^,]*;\s*rel\s*=\s*"?[^",;]*\bsuccessor-version\b/i.test(value)) return []
    const got = value === undefined ? 'no Link header' : `Link "${value}"`
    return [
      `${requestLine(exchange)} answered ${response.status} with ${got}; documented: a link with rel="successor-version" to ${successorOf(spec, operationId)}`,
    ]
  },
})
