/** Exchanges built by hand, for unit tests of the checks: no network. */
import { stringifyJson, type JsonValue, type OperationId } from '../../spec/index.js'
import { parseBody, type Credential, type Exchange } from '../client.js'

/** What a hand-made exchange may set; everything else gets a plausible default. */
export interface ExchangeParts {
  operationId?: OperationId
  method?: string
  path?: string
  status?: number
  /** A value (serialised int64-exact) or raw text. */
  body?: JsonValue
  raw?: string
  headers?: Record<string, string>
  requestBody?: string
  credential?: Credential
  error?: string
}

/** An exchange as the client would record it. */
export function exchangeOf(parts: ExchangeParts = {}): Exchange {
  const operationId = parts.operationId ?? 'listPets'
  const method = parts.method ?? (operationId === 'createPet' ? 'POST' : 'GET')
  const path = parts.path ?? (operationId === 'getPet' ? '/pets/1' : '/pets')
  const url = `http://127.0.0.1:4010/v1${path}`
  const raw = parts.raw ?? (parts.body === undefined ? '' : stringifyJson(parts.body))
  const base = {
    operationId,
    request: { method, url, headers: { accept: 'application/json' }, ...(parts.requestBody === undefined ? {} : { body: parts.requestBody }) },
    durationMs: 1,
    curl: `curl ${url}`,
    credential: parts.credential ?? 'key',
    attempts: 1,
  }
  if (parts.error) return { ...base, error: parts.error, json: { kind: 'empty' } }
  return {
    ...base,
    response: { status: parts.status ?? 200, headers: { 'content-type': 'application/json', ...parts.headers }, rawBody: raw },
    json: parseBody(raw),
  }
}

/** An Error body as the spec describes it. */
export function errorBody(status: number, code = 'some_code'): JsonValue {
  return { code, message: 'something', status }
}
