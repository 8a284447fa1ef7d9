/** For the checks' unit tests: exchanges built by hand (no network), and the checks judged as the engine judges them. */
import type { Credential, Exchange } from '../../model/index.js'
import { spec, stringifyJson, type JsonValue, type OperationId } from '../../spec/index.js'
import { parseBody } from '../transport/body.js'
import { judgeExchange, type PerExchangeDeclaration } from './applies.js'
import { isNotJudged, type Facts, type RunDeclaration, type RunInput } from './check.js'

/** What a hand-made exchange may set; everything else gets a plausible default. */
export interface ExchangeParts {
  /** The documented operation called (default listPets); `null` for a request that calls none. */
  operationId?: OperationId | null
  method?: string
  /** Relative to the base address; defaults to the operation's path, `{petId}` as 1. */
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

/** An exchange as the transport records it. */
export function exchangeOf(parts: ExchangeParts = {}): Exchange {
  const operationId = parts.operationId === undefined ? 'listPets' : parts.operationId
  const operation = operationId === null ? undefined : spec().operation(operationId)
  const method = parts.method ?? operation?.method ?? 'GET'
  const path = parts.path ?? operation?.path.replace(/\{[^}]+\}/g, '1') ?? '/'
  const url = `http://127.0.0.1:4010/v1${path}`
  const raw = parts.raw ?? (parts.body === undefined ? '' : stringifyJson(parts.body))
  const base = {
    ...(operationId ? { operationId } : {}),
    request: {
      method,
      url,
      headers: { accept: 'application/json' },
      ...(parts.requestBody === undefined ? {} : { body: parts.requestBody }),
    },
    durationMs: 1,
    curl: `curl ${url}`,
    credential: parts.credential ?? 'key',
    attempts: 1,
  }
  if (parts.error) return { ...base, error: parts.error, json: { kind: 'empty' } }
  return {
    ...base,
    response: {
      status: parts.status ?? 200,
      headers: { 'content-type': 'application/json', ...parts.headers },
      rawBody: raw,
    },
    json: parseBody(raw),
  }
}

/** An Error body as the spec describes it. */
export function errorBody(status: number, code = 'some_code'): JsonValue {
  return { code, message: 'something', status }
}

/**
 * What the engine would make of one exchange: the check's messages, `not judged: <reason>` where the exchange lacks
 * what it judges, or `n/a` where it does not apply.
 */
export function judge(check: PerExchangeDeclaration, exchange: Exchange, facts: Facts = {}): string[] | 'n/a' | string {
  const judgement = judgeExchange(check, exchange, facts, spec())
  if (judgement === undefined) return 'n/a'
  return isNotJudged(judgement) ? `not judged: ${judgement.notJudged}` : judgement
}

/** What the engine would make of the run as a whole: the check's messages, or `n/a`. */
export function judgeRun(check: RunDeclaration, input: Partial<RunInput>): string[] | 'n/a' {
  const full: RunInput = { coverage: [], idsInOrder: [], ...input }
  return check.applies(full) ? check.run(full, spec()) : 'n/a'
}
