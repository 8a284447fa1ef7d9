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
const saysJson = (exchange: Exchange) => /\bjson\b/i.test(exchange.response?.headers['content-type'] ?? '')
// An answer whose body was too large to read still came from a target that speaks HTTP: the checks judge it.
const answered = (exchange: Exchange) =>
  exchange.response !== undefined || /^response body larger than/.test(exchange.error ?? '')
const refused = (exchange: Exchange) => exchange.response?.status === 401 || exchange.response?.status === 403

/** The statuses of a gateway or proxy whose service is not answering (RFC 9110 §15.6.3, §15.6.4, §15.6.5). */
const GATEWAY_DOWN = new Map([
  [502, 'Bad Gateway'],
  [503, 'Service Unavailable'],
  [504, 'Gateway Timeout'],
])

/** Why the run cannot be judged, from the preflight's two answers, or undefined when it can. */
export function cannotRun(list: Exchange, get: Exchange, baseUrl: string): string | undefined {
  if (!answered(list) && !answered(get)) {
    const error = list.error ?? get.error ?? 'no answer'
    // A certificate Node cannot trust: the address was reached, the line already says what to set.
    const check = /NODE_EXTRA_CA_CERTS/.test(error) ? '' : '; check --base-url (or PETSTORE_BASE_URL)'
    return `cannot reach the target at ${baseUrl}: ${error}${check}`
  }
  // A gateway answering for a service it cannot reach: the address is right, the service behind it is down.
  const gateway = (e: Exchange) => e.response !== undefined && GATEWAY_DOWN.has(e.response.status)
  if (gateway(list) && gateway(get)) {
    const statuses = [...new Set([list.response!.status, get.response!.status])]
    const said = statuses.map((status) => `${status} ${GATEWAY_DOWN.get(status)}`).join(' and ')
    return `every request answered ${said} (GET ${baseUrl}/pets and GET ${baseUrl}/pets/1): the service behind the proxy or gateway seems down; start it, or wait until it is up`
  }
  if (refused(list) && refused(get)) {
    const statuses = [...new Set([list.response!.status, get.response!.status])].join(' and ')
    return `the target refused the API key: GET ${baseUrl}/pets and GET ${baseUrl}/pets/1 both answered ${statuses} with the key given; check --api-key (or PETSTORE_API_KEY)`
  }
  const hint = /\/v\d+$/.test(baseUrl) ? '' : ' (it does not end with the version prefix /v1)'
  // A pet found where the list was not: the list is broken, the base URL right; the checks judge it.
  if (
    list.response &&
    [404, 405, 410].includes(list.response.status) &&
    !(get.response?.status === 200 && isJson(get))
  ) {
    const type = saysJson(list) ? '' : ` (${list.response.headers['content-type'] ?? 'no content type'})`
    return `the base URL does not serve the interface: GET ${baseUrl}/pets answered ${list.response.status}${type}${hint}; check --base-url (or PETSTORE_BASE_URL)`
  }
  // HTML, plain text, an empty page: not the interface. A JSON answer too large or deep to parse is judged by the checks.
  const notJson = (e: Exchange) => e.response !== undefined && !isJson(e) && !saysJson(e)
  if (list.response && notJson(list) && !(get.response && !notJson(get))) {
    const type = list.response.headers['content-type'] ?? 'no content type'
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
