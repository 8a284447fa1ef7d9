/**
 * What the command sends before any check runs, to tell a run that cannot be judged from one that can:
 * an unreachable target, a wrong key (authenticated requests get 401) and a base URL that does not serve the
 * interface (404, HTML, no JSON) each end the command with exit 2 and one line saying what to check. A service
 * that answers the interface on the same origin without the documented version prefix (`/pets` for `/v1/pets`)
 * can be judged: it breaks the documented base address, one failing check. So can one that redirects a documented
 * operation to another path under the base URL (a trailing slash): it serves the interface, wrongly.
 */
import {
  recorded,
  type CatalogueEntry,
  type CheckResult,
  type Exchange,
  type ScenarioRecord,
  type WaitNotice,
} from '../../model/index.js'
import { renderBasis, spec, versionPrefix, type Spec } from '../../spec/index.js'
import { transportFor, type RunConfig } from '../../suites/index.js'
import { UsageError } from '../usage-error.js'

/** The run cannot be judged: the one line saying why, and the preflight's exchanges that show it. */
export class CannotRunError extends UsageError {
  override name = 'CannotRunError'
  constructor(
    message: string,
    readonly tried: readonly Exchange[],
  ) {
    super(message)
  }
}

/** Longest the preflight waits for each answer. */
export const PREFLIGHT_TIMEOUT_MS = 15_000

const isJson = (exchange: Exchange) => exchange.json.kind === 'json'
const saysJson = (exchange: Exchange) => /\bjson\b/i.test(exchange.response?.headers['content-type'] ?? '')
// An answer whose body was too large to read still came from a target that speaks HTTP: the checks judge it.
const answered = (exchange: Exchange) =>
  exchange.response !== undefined || /^response body larger than/.test(exchange.error ?? '')
const refused = (exchange: Exchange) => exchange.response?.status === 401 || exchange.response?.status === 403

const isRedirect = (exchange: Exchange) =>
  exchange.response !== undefined && exchange.response.status >= 300 && exchange.response.status < 400

/** True for a redirect whose `Location` stays under the base URL (same origin, a path below the base path). */
function redirectsWithin(exchange: Exchange, baseUrl: string): boolean {
  const location = exchange.response?.headers['location']
  if (!isRedirect(exchange) || location === undefined) return false
  try {
    const base = new URL(baseUrl)
    const to = new URL(location, exchange.request.url)
    const path = base.pathname.replace(/\/+$/, '')
    return to.origin === base.origin && (to.pathname === path || to.pathname.startsWith(`${path}/`))
  } catch {
    return false
  }
}

/** The statuses of a gateway or proxy whose service is not answering (RFC 9110 §15.6.3, §15.6.4, §15.6.5). */
const GATEWAY_DOWN = new Map([
  [502, 'Bad Gateway'],
  [503, 'Service Unavailable'],
  [504, 'Gateway Timeout'],
])

/** Why the run cannot be judged, from the preflight's two answers, or undefined when it can; `prefix` is the documented one. */
export function cannotRun(list: Exchange, get: Exchange, baseUrl: string, prefix?: string): string | undefined {
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
  // A documented operation redirected within the base URL (`301 Location: /v1/pets/`): the service serves the
  // interface, wrongly; the checks fail it (response.no-redirect), with the status and Location.
  if (redirectsWithin(list, baseUrl) || redirectsWithin(get, baseUrl)) return undefined
  const hint =
    (prefix === undefined || baseUrl.endsWith(prefix) ? '' : ` (it does not end with the version prefix ${prefix})`) +
    (list.response && isRedirect(list) ? ` (a redirect to ${list.response.headers['location'] ?? 'no Location'})` : '')
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

/** The id of the check a run fails when its service answers without the documented version prefix. */
export const PREFIX_CHECK_ID = 'base-url.version-prefix'

/** The catalogue of a run that found the version prefix missing: that one check, its basis in the spec's words. */
export function prefixCatalogue(against: Spec = spec()): CatalogueEntry[] {
  const found = versionPrefix(against)
  return [
    {
      id: PREFIX_CHECK_ID,
      title: `The interface is served under the documented base address, its version prefix ${found?.prefix ?? ''} included`,
      operationId: 'all',
      severity: 'fail',
      source: 'suite',
      ...(found ? { basis: renderBasis(against, [{ spec: found.pointer }]) } : {}),
    },
  ]
}

/** What the preflight found: nothing in the way of a run, or the version prefix missing (the record of that failure). */
export interface Preflight {
  /** Set when the base URL does not serve the interface but the same origin does without the prefix. */
  prefixMissing?: ScenarioRecord
}

async function probe(
  config: RunConfig,
  against: Spec,
  onWait?: (wait: WaitNotice) => void,
): Promise<[Exchange, Exchange]> {
  const transport = transportFor({ ...config, timeoutMs: Math.min(config.timeoutMs, PREFLIGHT_TIMEOUT_MS) })
  transport.onWait = onWait
  try {
    const list = against.operation('listPets')
    const get = against.operation('getPet')
    const sent = await Promise.all([
      transport.send({ operationId: 'listPets', method: list.method, path: list.path, query: [['limit', '1']] }),
      transport.send({ operationId: 'getPet', method: get.method, path: get.path.replace(/\{[^}]+\}/, '1') }),
    ]).catch((error: unknown) => {
      if (transport.stopped) return undefined
      throw error
    })
    if (transport.stopped || !sent) throw new UsageError(transport.stopped ?? 'the run stopped')
    return sent
  } finally {
    await transport.close()
  }
}

/**
 * Sends `GET /pets?limit=1` and `GET /pets/1` with the key; throws `UsageError` when the run cannot be judged. When
 * the base URL ends with the documented prefix and does not serve the interface, but the origin without the prefix
 * does, resolves to the record of that one failure instead.
 */
export async function preflight(
  config: RunConfig,
  against: Spec = spec(),
  onWait?: (wait: WaitNotice) => void,
): Promise<Preflight> {
  const [listed, got] = await probe(config, against, onWait)
  const documented = versionPrefix(against)
  const reason = cannotRun(listed, got, config.baseUrl, documented?.prefix)
  if (!reason) return {}
  if (
    documented &&
    reason.startsWith('the base URL does not serve the interface') &&
    config.baseUrl.endsWith(documented.prefix)
  ) {
    const bare = config.baseUrl.slice(0, -documented.prefix.length)
    const { sendBaseUrl: _, ...direct } = config
    const without = await probe({ ...direct, baseUrl: bare, viaPrism: false }, against).catch(() => undefined)
    if (without && cannotRun(without[0], without[1], bare) === undefined && without[0].response?.status === 200)
      return { prefixMissing: prefixRecord(listed, without[0], documented.prefix, against) }
  }
  throw new CannotRunError(reason, [listed, got])
}

// The one failing check of a service without the version prefix: both answers, each with its request, as evidence.
function prefixRecord(withPrefix: Exchange, without: Exchange, prefix: string, against: Spec): ScenarioRecord {
  const [entry] = prefixCatalogue(against)
  const finding = (exchange: Exchange, message: string) => ({
    checkId: PREFIX_CHECK_ID,
    operationId: exchange.operationId!,
    severity: 'fail' as const,
    source: 'suite' as const,
    message,
    exchange: recorded(exchange),
    curl: exchange.curl,
  })
  const check: CheckResult = {
    ...entry!,
    outcome: 'failed',
    findings: [
      finding(
        without,
        `the documented version prefix ${prefix} is missing: ${without.request.method} ${without.request.url} (without ${prefix}) answered ${without.response!.status} with the interface, where ${withPrefix.request.method} ${withPrefix.request.url} answered ${withPrefix.response?.status ?? withPrefix.error}`,
      ),
    ],
    exchanges: 2,
  }
  return {
    scenario: 'the base address',
    checks: [check],
    observations: [],
    statusesSeen: [],
    requestsSent: withPrefix.attempts + without.attempts,
    recordsCreated: 0,
  }
}
