/** How the stub's answers are made: the JSON headers every answer carries, Error bodies, and the catch-all. */
import { randomUUID } from 'node:crypto'
import type { JsonValue, OperationId, ResponseHeader, Spec } from '../spec/index.js'
import { generate } from './generate.js'
import { ApiError, ErrorWriter } from './errors.js'
import { corsRemoved, exposing } from './cors.js'
import { PersistError, StoreError, StoreFullError } from './store.js'
import { basePathOf, DEPRECATION, JSON_TYPE, REALM, RETRY_AFTER, type AppResponse } from './http.js'

/** Where the Content-Length value sits in the prepared header lists. */
const LENGTH_AT = 5

/** Makes the answers of one interface: its deprecated operations carry the deprecation headers, its fallbacks its statuses. */
export class Responder {
  /** Largest accepted request body in bytes. */
  readonly maxBody: number
  /** The headers of every JSON answer, Content-Length left blank. */
  readonly #head: string[]
  /** The same, with the deprecation headers, for each operation the spec deprecates (getPet in the bundled spec). */
  readonly #deprecatedHead = new Map<OperationId, string[]>()
  readonly #fallback: Map<OperationId | undefined, 400 | 404>
  /** Required headers a revision of the spec declares beyond the ones above, by `operationId status`. */
  readonly #declared = new Map<string, DeclaredHeader[]>()
  readonly #errors: ErrorWriter

  constructor(s: Spec, maxBody: number) {
    this.maxBody = maxBody
    this.#errors = new ErrorWriter(s)
    this.#head = ['Content-Type', JSON_TYPE, 'Access-Control-Allow-Origin', '*', 'Content-Length', '']
    for (const op of Object.values(s.operations)) {
      if (!op.deprecated) continue
      const successor: unknown = s.doc.paths[op.path][op.method.toLowerCase()]['x-successor']
      const documented = (name: string, value: string) => inDocumentedForm(s, op.operationId, name, value)
      const deprecated = ['Deprecation', deprecationOf(s, op.operationId)]
      if (typeof successor === 'string')
        deprecated.push(
          'Link',
          documented('Link', `<${basePathOf(s)}${successor.split(' ').pop()}>; rel="successor-version"`),
        )
      if (op.sunset) deprecated.push('Sunset', documented('Sunset', op.sunset.toUTCString()))
      this.#deprecatedHead.set(op.operationId, exposing(this.#head.concat(deprecated)))
    }
    // Something unexpected answers 400, or 404 on an operation that documents 404 and no 400 (getPet).
    this.#fallback = new Map([[undefined, 400]])
    for (const op of Object.values(s.operations)) {
      this.#fallback.set(op.operationId, op.statuses.includes('404') && !op.statuses.includes('400') ? 404 : 400)
      const sent = new Set(
        (this.#deprecatedHead.get(op.operationId) ?? this.#head)
          .filter((_, i) => i % 2 === 0)
          .map((n) => n.toLowerCase()),
      )
      for (const status of op.statuses) {
        const added = s
          .responseHeaders(op.operationId, status)
          .filter((h) => h.required && !sent.has(h.name.toLowerCase()))
          .flatMap((h) => declaredHeader(h, s, op.operationId, status) ?? [])
        if (added.length) this.#declared.set(`${op.operationId} ${status}`, added)
      }
    }
  }

  /**
   * A JSON answer with the operation's headers and `extra` after them, those a page could not read otherwise named
   * in `Access-Control-Expose-Headers`.
   */
  respond(
    status: number,
    body: string,
    operationId?: OperationId,
    options?: { extra?: string[]; code?: string; facts?: AnswerFacts },
  ): AppResponse {
    const extra = options?.extra
    // A copy of a prepared list, which writeHead takes as is: cheaper than building or concatenating arrays.
    let headers = ((operationId && this.#deprecatedHead.get(operationId)) || this.#head).slice()
    headers[LENGTH_AT] = String(Buffer.byteLength(body))
    let added = false
    if (this.#declared.size && operationId) {
      const declared = this.#declared.get(`${operationId} ${status}`)
      // Unless the answer says it already (a 401's WWW-Authenticate, say).
      if (declared)
        for (const header of declared)
          if (!extra?.some((item, at) => at % 2 === 0 && item.toLowerCase() === header.name.toLowerCase())) {
            const value = header.value(options?.facts ?? {})
            if (value === undefined) continue
            headers.push(header.name, value)
            added = true
          }
    }
    if (extra) for (const item of extra) headers.push(item)
    if (added || extra) headers = exposing(headers)
    return { status, headers, body, code: options?.code }
  }

  /**
   * A prepared answer handed out again (a cached list page) with fresh values for the headers a revision declares
   * that differ per answer (a `format: uuid` request id); the same answer when there are none.
   */
  fresh(response: AppResponse, operationId: OperationId): AppResponse {
    const declared = this.#declared.get(`${operationId} ${response.status}`)?.filter((h) => h.perAnswer)
    if (!declared?.length) return response
    const headers = response.headers.slice()
    for (const header of declared) {
      const at = headers.findIndex((item, i) => i % 2 === 0 && item === header.name)
      const value = header.value({})
      if (at >= 0 && value !== undefined) headers[at + 1] = value
    }
    return { ...response, headers }
  }

  /** The Error response of an ApiError. */
  error(error: ApiError, operationId?: OperationId, extra?: string[]): AppResponse {
    return this.respond(error.status, this.#errors.write(error), operationId, { extra, code: error.code })
  }

  /** The one catch-all: an ApiError becomes its Error response, anything else a safe documented 4xx. */
  readonly failure = (error: unknown, operationId?: OperationId): AppResponse => {
    if (error instanceof ApiError) return this.error(error, operationId)
    if (error instanceof PersistError) return this.error(notKept(error), operationId, ['Retry-After', RETRY_AFTER])
    if (error instanceof StoreFullError) return this.error(storeFull(error), operationId)
    if (error instanceof StoreError) return this.error(new ApiError(400, 'ids_exhausted', error.message), operationId)
    const status = this.#fallback.get(operationId) ?? 400
    return this.error(new ApiError(status, 'unexpected_error', 'the request could not be handled'), operationId)
  }

  /** The answer to a body over `maxBody`; it closes the connection, since the rest of the body is not read. */
  readonly tooLarge = (limit = this.maxBody): AppResponse => {
    const error = new ApiError(400, 'body_too_large', `request body exceeds the limit of ${limit} bytes`)
    return this.error(error, 'createPet', ['Connection', 'close'])
  }

  /**
   * An Error response for a request that never reached routing (bad HTTP, timeouts). Its origin unknown, it grants none:
   * a page on another site must not read it (an answer that tells a stub runs there).
   */
  readonly protocolError = (status: 400 | 408 | 431, code: string, message: string): AppResponse => {
    return corsRemoved(this.error(new ApiError(status, code, message), undefined, ['Connection', 'close']))
  }

  /** A 429 or 503 with an Error body and `Retry-After`: asked for (Prefer, --fail-rate), never on its own. */
  unavailable(operationId: OperationId, status: 429 | 503, why: string): AppResponse {
    const error =
      status === 429
        ? new ApiError(429, 'rate_limited', `too many requests (asked for by ${why})`)
        : new ApiError(503, 'unavailable', `the service is unavailable (asked for by ${why})`)
    return this.error(error, operationId, ['Retry-After', RETRY_AFTER])
  }

  /** A 401 with the RFC 6750 §3 challenge; `error` only when credentials came (§3.1 error codes). */
  challenge(
    code: string,
    message: string,
    error: 'invalid_token' | 'invalid_request' | undefined,
    operationId: OperationId,
  ): AppResponse {
    const challenge = error ? `Bearer realm="${REALM}", error="${error}"` : `Bearer realm="${REALM}"`
    return this.error(new ApiError(401, code, message), operationId, ['WWW-Authenticate', challenge])
  }
}

/** What an answer knows that a declared header may say: the number of pets its query matches (listPets). */
export interface AnswerFacts {
  total?: number
}

/** A required header a revision declares: its name, and its value for one answer. */
interface DeclaredHeader {
  name: string
  value: (facts: AnswerFacts) => string | undefined
  /** Its value differs per answer (generated from a format), so a prepared answer handed out again gets a new one. */
  perAnswer: boolean
}

/** Formats whose values the stub makes anew for each answer. */
const PER_ANSWER: Record<string, () => string> = {
  uuid: () => randomUUID(),
  'date-time': () => new Date().toISOString(),
  date: () => new Date().toISOString().slice(0, 10),
}

/**
 * How the stub fills a required header a revision declares. An integer header of a list whose name or description
 * speaks of a count or total says how many pets the query matches (the stub knows that much, so it says it truly); a
 * header of a format the stub can make (uuid, date-time, date) gets a new value per answer; any other its documented
 * value or one generated from its schema ({@link headerValue}). Undefined when none validates.
 */
function declaredHeader(
  h: ResponseHeader,
  s: Spec,
  operationId: OperationId,
  status: string,
): DeclaredHeader | undefined {
  const schema = s.resolve(h.schema) as Record<string, any>
  const words = `${h.name} ${h.description ?? ''}`
  if (schema.type === 'integer' && isArraySchema(s, operationId, status) && /count|total|number of/i.test(words)) {
    const fallback = headerValue(h, s, () => 0.5)
    return {
      name: h.name,
      perAnswer: false,
      value: ({ total }) => (total !== undefined && h.validate(total).length === 0 ? String(total) : fallback),
    }
  }
  const make = typeof schema.format === 'string' ? PER_ANSWER[schema.format] : undefined
  if (make && h.validate(make()).length === 0) return { name: h.name, perAnswer: true, value: make }
  const documented = headerValue(h, s)
  if (documented !== undefined) return { name: h.name, perAnswer: false, value: () => documented }
  // Nothing documented to send: a value generated from the schema, anew for each answer.
  const steady = headerValue(h, s, () => 0.5)
  if (steady === undefined) return undefined
  return { name: h.name, perAnswer: true, value: () => headerValue(h, s, Math.random) ?? steady }
}

/** Whether the documented body of a response is an array (a list of pets). */
function isArraySchema(s: Spec, operationId: OperationId, status: string): boolean {
  const op = s.operation(operationId)
  const ref = s.doc.paths[op.path][op.method.toLowerCase()].responses?.[status]
  const schema = ref && s.resolve(ref).content?.['application/json']?.schema
  return schema !== undefined && (s.resolve(schema) as { type?: unknown }).type === 'array'
}

/**
 * A value for a required response header the spec declares and the stub has no meaning for (a revision's
 * `X-Request-Id`, say): its example, its schema's example or default, else (given a source of chance) one generated
 * from its schema; undefined when none of them validates against the schema.
 */
function headerValue(header: ResponseHeader, s: Spec, random?: () => number): string | undefined {
  const schema = s.resolve(header.schema) as Record<string, any>
  const candidates: (JsonValue | undefined)[] = [
    header.example,
    schema.example as JsonValue | undefined,
    ...(Array.isArray(schema.examples) ? (schema.examples as JsonValue[]) : []),
    schema.default as JsonValue | undefined,
    random && generate(header.schema, (node) => s.resolve(node), random),
  ]
  for (const value of candidates) {
    if (value === undefined || value === null || typeof value === 'object') continue
    // A field value as it arrives: no control character but tab, nothing a client trims off its ends (RFC 9110 §5.5).
    if (!FIELD_VALUE.test(String(value))) continue
    if (header.validate(value).length === 0) return String(value)
  }
  return undefined
}

/** A header field value that survives the wire unchanged (RFC 9110 §5.5): visible text, inner spaces and tabs. */
const FIELD_VALUE = /^([\x21-\x7e\x80-\xff]([\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/

/**
 * When an operation was deprecated, as RFC 9745 `@<unix seconds>`: the date the spec's Deprecation header gives as
 * its example (a structured-field date or an HTTP-date), else the stub's own ({@link DEPRECATION}); never after the
 * removal date (`x-sunset`), which RFC 9745 §3 puts no earlier. Written as the spec's header schema takes it: a
 * revision that documents an HTTP-date (an earlier draft's form) gets that date as an IMF-fixdate.
 */
function deprecationOf(s: Spec, operationId: OperationId): string {
  const op = s.operation(operationId)
  const example = documentedHeader(s, operationId, 'Deprecation')?.example
  const documented = typeof example === 'string' ? secondsOf(example) : undefined
  const given = documented ?? Number(DEPRECATION.slice(1))
  const removed = op.sunset ? Math.floor(op.sunset.getTime() / 1000) : undefined
  const seconds = removed !== undefined && removed < given ? removed : given
  return inDocumentedForm(s, operationId, 'Deprecation', `@${seconds}`, [new Date(seconds * 1000).toUTCString()])
}

/** The unix seconds of a structured-field date (`@1764892800`) or an HTTP-date; `undefined` for anything else. */
function secondsOf(text: string): number | undefined {
  if (SF_DATE.test(text)) return Number(text.slice(1))
  const ms = / GMT$/.test(text) ? Date.parse(text) : NaN
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined
}

/** The header of this name the spec documents on any of the operation's responses. */
function documentedHeader(s: Spec, operationId: OperationId, name: string): ResponseHeader | undefined {
  return s
    .operation(operationId)
    .statuses.flatMap((status) => s.responseHeaders(operationId, status))
    .find((h) => h.name.toLowerCase() === name.toLowerCase())
}

/**
 * `value` when the spec's documented header takes it (or documents no such header); else the first of `alternatives`
 * (the same meaning in another form) that it takes, else a value of its own ({@link headerValue}), else `value`.
 */
function inDocumentedForm(
  s: Spec,
  operationId: OperationId,
  name: string,
  value: string,
  alternatives: string[] = [],
): string {
  const header = documentedHeader(s, operationId, name)
  if (header === undefined) return value
  const taken = [value, ...alternatives].find((candidate) => header.validate(candidate).length === 0)
  return taken ?? headerValue(header, s, () => 0.5) ?? value
}

/** A structured-field date (RFC 9651 §3.3.7). */
const SF_DATE = /^@-?[0-9]{1,15}$/

/**
 * The one 5xx the stub gives on its own: a change its data file cannot keep (disk full, permissions changed) is not
 * stored and not acknowledged, though the spec documents no 503 for it.
 */
export function notKept(error: PersistError): ApiError {
  return new ApiError(503, 'not_kept', `${error.message}; nothing was stored, try again once it can be written`)
}

/**
 * A create refused because the store is full: 400, the status createPet documents for a pet it does not store (as when
 * the int64 ids run out), with what frees room. The interface offers no delete, so only a reset or a restore does.
 */
function storeFull(error: StoreFullError): ApiError {
  return new ApiError(
    400,
    'store_full',
    `${error.message}: nothing was stored; reset the stub (POST /__stub/reset) or restore a smaller state, or start it with a larger --max-store`,
  )
}
