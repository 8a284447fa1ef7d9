import { type OperationId, type Spec, operationPointer, versionPrefix } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { requestLine, whileDeprecated } from './util.js'

// The operation the check's id names; a revision that no longer deprecates it leaves the check inapplicable.
const DEPRECATED = 'getPet'

/** The replacement the spec names for a deprecated operation (`x-successor`, e.g. `GET /pets`). */
function successorOf(spec: Spec, operationId: OperationId): string {
  const op = spec.operation(operationId)
  const successor: unknown = spec.doc.paths[op.path][op.method.toLowerCase()]['x-successor']
  return typeof successor === 'string' ? successor : 'its replacement'
}

/** The path of the replacement under the spec's server path (`/v1` + `/pets`), when the spec names one. */
function successorPath(spec: Spec, operationId: OperationId): string | undefined {
  const successor = successorOf(spec, operationId)
  const path = /^(?:[A-Z]+ )?(\/\S*)$/.exec(successor)?.[1]
  return path === undefined ? undefined : `${versionPrefix(spec)?.prefix ?? ''}${path}`
}

/**
 * The deprecated operation links to its replacement: `Link: <...>; rel="successor-version"` (as the spec documents),
 * whose target is the replacement's path under the judged spec's server path (`/v1.1/pets` once a revision moves to
 * `/v1.1`, not the `/v1/pets` of before).
 */
export const successorLink = exchangeCheck({
  id: 'getPet.successor-link',
  title: `${DEPRECATED} links to its replacement (Link rel="successor-version")`,
  severity: 'advice',
  basis: (spec) => [
    { spec: operationPointer(spec, DEPRECATED, 'x-successor') },
    { spec: '#/components/headers/Link/description' },
  ],
  ...whileDeprecated(DEPRECATED, 'Link'),
  run: ({ exchange, response, operationId }, spec) => {
    const value = response.headers['link']
    const target =
      value === undefined ? undefined : /<([^>]*)>[^,]*;\s*rel\s*=\s*"?[^",;]*\bsuccessor-version\b/i.exec(value)?.[1]
    if (target !== undefined) {
      const expected = successorPath(spec, operationId)
      if (expected === undefined) return []
      let path: string | undefined
      try {
        path = new URL(target, exchange.request.url).pathname
      } catch {
        path = undefined
      }
      if (path !== undefined && path.endsWith(expected)) return []
      return [
        `${requestLine(exchange)} answered ${response.status} with Link "${value}", whose successor-version target ${target} is not ${expected}; documented: ${successorOf(spec, operationId)} under the server path ${versionPrefix(spec)?.prefix ?? '/'}`,
      ]
    }
    const got = value === undefined ? 'no Link header' : `Link "${value}"`
    return [
      `${requestLine(exchange)} answered ${response.status} with ${got}; documented: a link with rel="successor-version" to ${successorOf(spec, operationId)}`,
    ]
  },
})
