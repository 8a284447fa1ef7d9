/**
 * The request the command sends before the suite starts: it tells an unreachable or non-HTTP target (exit 2,
 * one line) from one that answers, and says up front when the answers point at a wrong key or base URL.
 */
import { Client, type Exchange } from './client.js'
import { UsageError } from './config.js'

/** What the preflight learned. */
export interface Preflight {
  /** Said before the run, e.g. that the key looks wrong. */
  notices: string[]
}

/** Longest the preflight waits for an answer. */
export const PREFLIGHT_TIMEOUT_MS = 10_000

/** Notices for what a preflight answer suggests about the configuration. */
export function noticesFor(status: number, baseUrl: string): string[] {
  if (status === 401) {
    return ['The target answered 401 to an authenticated GET /pets: the API key looks wrong (--api-key or PETSTORE_API_KEY). Every check that needs a valid key will fail.']
  }
  if (status === 404 || status === 405) {
    const hint = /\/v\d+$/.test(baseUrl) ? '' : ' (it does not end with a version prefix such as /v1)'
    return [`The target answered ${status} to GET ${baseUrl}/pets: the base URL looks wrong${hint}. Every check will fail.`]
  }
  return []
}

/**
 * Sends `GET /pets?limit=1` (and `GET /pets/1` in case that one request is what the target breaks) and
 * throws `UsageError` when neither gets an HTTP answer.
 */
export async function preflight(baseUrl: string, sendBaseUrl: string | undefined, apiKey: string, timeoutMs: number): Promise<Preflight> {
  const client = new Client({ baseUrl, sendBaseUrl, apiKey, timeoutMs: Math.min(timeoutMs, PREFLIGHT_TIMEOUT_MS), maxRateLimitWaitMs: 5000 })
  try {
    const list = client.send({ operationId: 'listPets', method: 'GET', path: '/pets', query: [['limit', '1']] })
    const get = client.send({ operationId: 'getPet', method: 'GET', path: '/pets/1' })
    const first: Exchange = await list
    if (first.response) return { notices: noticesFor(first.response.status, baseUrl) }
    const second = await get
    if (second.response) return { notices: [] }
    throw new UsageError(`cannot reach the target at ${baseUrl}: ${first.error}`)
  } finally {
    client.close()
  }
}
