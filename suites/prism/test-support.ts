/** What the Prism integration's tests share: a recorded listPets exchange to read Prism's verdicts against. */
import type { RecordedExchange } from '../../model/index.js'

/** A recorded `GET /v1/pets` answered with `rawBody`. */
export function listExchange(
  rawBody: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  status = 200,
): RecordedExchange {
  return {
    operationId: 'listPets',
    request: { method: 'GET', url: 'http://127.0.0.1:1/v1/pets', headers: {} },
    response: { status, headers, rawBody },
    durationMs: 1,
  }
}
