/**
 * What the command sends before any check runs, to tell a run that cannot be judged from one that can:
 * an unreachable target, a wrong key (authenticated requests get 401) and a base URL that does not serve the
 * interface (404, HTML, no JSON) each end the command with exit 2 and one line saying what to check.
 */
import type { Exchange } from '../../model/index.js'
import { spec } from '../../spec/index.js'
import { transportFor, type RunConfig } from '../../suites/index.js'
import { UsageError } from '../usage-error.js'

/** Longest the preflight waits for each answer. */
export const PREFLIGHT_TIMEOUT_MS = 15_000

const isJson = (exchange: Exchange) => exchange.json.kind === 'json'

/** Why the run cannot be judged, from the preflight's two answers, or undefined when it can. */
export function cannotRun(list: Exchange, get: Exchange, baseUrl: string): string | undefined {
  if (!list.response && !get.response) return `cannot reach the target at ${baseUrl}: ${list.error}`
  const answer = list.response ?? get.response!
  if (list.response?.status === 401 && get.response?.status === 401) {
    return `the target refused the API key: GET ${baseUrl}/pets and GET ${baseUrl}/pets/1 both answered 401 with the key given; check --api-key (or PETSTORE_API_KEY)`
  }
  const hint = /\/v\d+$/.test(baseUrl) ? '' : ' (it does not end with the version prefix /v1)'
  if (list.response && [404, 405, 410].includes(list.response.status)) {
    return `the base URL does not serve the interface: GET ${baseUrl}/pets answered ${list.response.status}${hint}; check --base-url (or PETSTORE_BASE_URL)`
  }
  if (list.response && !isJson(list) && !(get.response && isJson(get))) {
    const type = answer.headers['content-type'] ?? 'no content type'
    return `the base URL does not serve the interface: GET ${baseUrl}/pets answered ${list.response.status} with a body that is not JSON (${type})${hint}; check --base-url (or PETSTORE_BASE_URL)`
  }
  return undefined
}

/** Sends `GET /pets?limit=1` and `GET /pets/1` with the key; throws `UsageError` when the run cannot be judged. */
export async function preflight(config: RunConfig): Promise<void> {
  const transport = transportFor({ ...config, timeoutMs: Math.min(config.timeoutMs, PREFLIGHT_TIMEOUT_MS) })
  try {
    const list = spec().operation('listPets')
    const get = spec().operation('getPet')
    const [listed, got] = await Promise.all([
      transport.send({ operationId: 'listPets', method: list.method, path: list.path, query: [['limit', '1']] }),
      transport.send({ operationId: 'getPet', method: get.method, path: get.path.replace(/\{[^}]+\}/, '1') }),
    ])
    if (transport.stopped) throw new UsageError(transport.stopped)
    const reason = cannotRun(listed, got, config.baseUrl)
    if (reason) throw new UsageError(reason)
  } finally {
    await transport.close()
  }
}
