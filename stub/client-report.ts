/**
 * A report on the client: the traffic the stub received, judged against the interface. Fed beside the journal with
 * every request and its answer, it keeps a count, the first time and one example per finding (bounded memory, keys
 * redacted wherever the client put them), and which documented statuses the client received, so it can say what the
 * client never exercised.
 */
import {
  operationPointer,
  parameterPointer,
  pointer,
  renderBasis,
  type BasisLine,
  type JsonValue,
  type Operation,
  type OperationId,
  type BasisRef,
  type Spec,
} from '../spec/index.js'
import { basePathOf, type AppRequest, type AppResponse } from './http.js'
import { Journal, type JournalOptions } from './journal.js'
import { credentialsShown, withoutSecrets } from './log.js'
import { headerOf, isJsonMediaType, readQuery, splitTarget } from './request.js'
import { parseBody } from './new-pet.js'

/** One way the client used the interface wrongly, seen `count` times. */
export interface ClientFinding {
  /** What kind of misuse: `deprecated-operation`, `invalid-new-pet`, `limit-out-of-range`, ... */
  id: string
  operationId?: OperationId
  /** What the client did, in one sentence. */
  title: string
  /** Where the interface says so, in its own words. */
  basis: BasisLine[]
  count: number
  /** ISO time of the first one. */
  firstSeen: string
  /** The first request that showed it, credentials and secrets redacted and the body cut short. */
  example: { method: string; target: string; headers: Record<string, string>; body?: string }
}

/** A documented answer the client never received: code it may never have run. */
export interface NotExercised {
  operationId: OperationId
  /** A documented status, or 429 (rate limiting, which the stub gives on request). */
  status: string
  /** How to make the stub give it. */
  hint: string
  basis: BasisLine[]
}

/** The client report: what the stub saw since it started or was last reset. */
export interface ClientReport {
  since: string
  requests: number
  findings: ClientFinding[]
  notExercised: NotExercised[]
  /** Operations the client called, with how many times. */
  calls: Partial<Record<OperationId, number>>
}

/** What documents a finding: places of the spec (or an RFC), or lines written from it. */
type Basis = (BasisRef | BasisLine)[]

/** A finding's title and basis, built only the first time it is seen: most requests repeat a known one. */
type Describe = () => { title: string; basis: Basis }

/** Notes one finding of the request being judged. */
type Seen = (id: string, operationId: OperationId | undefined, describe: Describe) => void

/** Distinct findings kept; more are counted under the last one's id only. */
const MAX_FINDINGS = 100
/** Characters of a request body an example keeps. */
const BODY_KEPT = 512
/** Clients remembered for their Retry-After (the oldest are forgotten first). */
const MAX_WAITING = 1000
/** What a secret becomes in the report. */
const REDACTED = '[REDACTED]'

/** What the aggregator needs from the stub: which operation a request is for, and its spec. */
export interface ClientReportOptions {
  spec: Spec
  operationOf: (request: Pick<AppRequest, 'method' | 'url'>) => OperationId | undefined
  /** Texts the report never shows (the API keys, the admin key). */
  secrets?: readonly string[]
}

/** Gathers the client report from each request and its answer; `reset` starts over. */
export class ClientReporter {
  readonly #spec: Spec
  readonly #operationOf: ClientReportOptions['operationOf']
  readonly #base: string
  #secrets: readonly string[]
  #since = new Date()
  #requests = 0
  #findings = new Map<string, ClientFinding>()
  /** The statuses the client received, by operation. */
  #received = new Map<OperationId, Set<number>>()
  /** The request being judged, for the findings it shows: {@link record} judges one request at a time. */
  #judged: AppRequest | undefined
  /** Its body as text. */
  #judgedBody: string | undefined
  /** Notes a finding of the request being judged; made once, not per request. */
  readonly #seen: Seen = (id, operationId, describe) =>
    this.#found(id, operationId, describe, this.#judged!, this.#judgedBody)
  #calls: Partial<Record<OperationId, number>> = {}
  /** Until when each client (by its credentials and operation) was asked to wait, in ms since the epoch. */
  /** Requests answered 429 or 503, by client and request: when the answer left, and until when it said to wait. */
  #waiting = new Map<string, { from: number; until: number; body: string | undefined }>()
  /** NewPet's validator and declared properties, read once: every createPet is judged against them. */
  readonly #newPet: { validate: (value: JsonValue) => string[]; declared: ReadonlySet<string> }

  constructor(options: ClientReportOptions) {
    this.#spec = options.spec
    this.#operationOf = options.operationOf
    this.#base = basePathOf(options.spec)
    this.#secrets = options.secrets ?? []
    this.#newPet = {
      validate: options.spec.schema('NewPet'),
      declared: new Set(Object.keys(options.spec.propertiesOf('NewPet'))),
    }
  }

  /** Adds texts the report never shows: a {@link ReportingJournal} hands on its own secrets. */
  hide(secrets: readonly string[]): void {
    this.#secrets = [...new Set([...this.#secrets, ...secrets])]
  }

  /** Empties the report, as a reset of the journal does. */
  reset(): void {
    this.#since = new Date()
    this.#requests = 0
    this.#findings.clear()
    this.#received.clear()
    this.#calls = {}
    this.#waiting.clear()
  }

  /** Judges one request and its answer (`undefined` when none was sent), answered now, `ms` after it arrived. */
  record(request: AppRequest, response: AppResponse | undefined, body?: Uint8Array | string, ms = 0): void {
    // A CORS preflight is the browser's, not the client's.
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) return
    this.#requests++
    const operationId = this.#operationOf(request)
    const text = body === undefined ? undefined : typeof body === 'string' ? body : Buffer.from(body).toString('utf8')
    this.#judged = request
    this.#judgedBody = text
    const seen = this.#seen
    if (operationId === undefined) return this.#undocumented(request, seen)
    this.#calls[operationId] = (this.#calls[operationId] ?? 0) + 1
    if (response) this.#receivedBy(operationId).add(response.status)
    const op = this.#spec.operation(operationId)
    if (op.deprecated) seen('deprecated-operation', operationId, () => this.#deprecated(op))
    this.#credentials(request, response, operationId, seen)
    if (this.#waiting.size > 0 || (response && (response.status === 429 || response.status === 503)))
      this.#retry(request, response, operationId, ms, seen)
    if (operationId === 'listPets') this.#query(request, seen)
    if (operationId === 'createPet') this.#createPet(request, response, text, seen)
  }

  /** The statuses the client received from an operation. */
  #receivedBy(operationId: OperationId): Set<number> {
    let statuses = this.#received.get(operationId)
    if (statuses === undefined) this.#received.set(operationId, (statuses = new Set()))
    return statuses
  }

  #deprecated(op: Operation): { title: string; basis: Basis } {
    const successor: unknown = this.#spec.doc.paths[op.path][op.method.toLowerCase()]['x-successor']
    const removal = op.sunset ? `, removed on ${op.sunset.toISOString().slice(0, 10)}` : ''
    return {
      title: `calls ${op.method} ${op.path}, which is deprecated${removal}${typeof successor === 'string' ? `; use ${successor} instead` : ''}`,
      basis: [{ spec: operationPointer(this.#spec, op.operationId, 'deprecated') }],
    }
  }

  /** A request no operation answers: a method the path does not document, or a path the interface does not have. */
  #undocumented(request: AppRequest, seen: Seen): void {
    const { path } = splitTarget(request.url)
    const ops = Object.values(this.#spec.operations)
    const on = ops.filter((op) => this.#operationOf({ method: op.method, url: path }) === op.operationId)
    if (on.length)
      seen(`undocumented-method`, undefined, () => ({
        title: `${withoutSecrets(request.method, this.#secrets, Infinity, REDACTED)} on ${on[0]!.path}, which documents only ${on.map((op) => op.method).join(', ')}`,
        basis: [
          {
            ref: pointer('paths', on[0]!.path),
            text: `${on[0]!.path}: ${on.map((op) => `${op.method} (${op.operationId})`).join(', ')}`,
          },
        ],
      }))
    else
      seen('unknown-path', undefined, () => ({
        title: 'a request to a path the interface does not have',
        basis: [
          {
            ref: pointer('paths'),
            text: `the interface's paths, under ${this.#base || '/'}: ${ops.map((op) => `${op.method} ${op.path}`).join(', ')}`,
          },
        ],
      }))
  }

  #credentials(request: AppRequest, response: AppResponse | undefined, operationId: OperationId, seen: Seen): void {
    const header = headerOf(request.headers, 'authorization')
    if (header === undefined)
      return seen('missing-credentials', operationId, () =>
        this.#credentialsFinding('a request without Authorization', operationId),
      )
    const memo = request.connection
    // The scheme is a case-insensitive token (RFC 9110 §11.1), then one or more spaces (RFC 6750 §2.1): `bearer` or
    // two spaces are no misuse, a tab is. A connection sends the same
    // header again and again: one found well formed is not read again.
    if (memo?.wellFormedHeader !== header) {
      if (!/^Bearer +[\x21-\x7e]+$/i.test(header))
        return seen('malformed-credentials', operationId, () =>
          this.#credentialsFinding('Authorization not in the form `Bearer <API_KEY>`', operationId),
        )
      if (memo) memo.wellFormedHeader = header
    }
    if (response?.status === 401 && !/\bcode=401\b/.test(response.applied ?? ''))
      seen('invalid-key', operationId, () => this.#credentialsFinding('a key the service does not accept', operationId))
  }

  #credentialsFinding(title: string, operationId: OperationId): { title: string; basis: Basis } {
    return {
      title,
      basis: [{ spec: pointer('security') }, { spec: operationPointer(this.#spec, operationId, 'responses', '401') }],
    }
  }

  /**
   * An early retry: the same request (method, target and body) from the same client (`Authorization`) arriving after a
   * 429 or 503 to it left and before its Retry-After was over. A request already on its way when that answer left, or
   * another request (a parallel worker's next create, say), is no retry.
   */
  #retry(
    request: AppRequest,
    response: AppResponse | undefined,
    operationId: OperationId,
    ms: number,
    seen: Seen,
  ): void {
    const body = this.#judgedBody
    // Times on the monotonic clock, to the microsecond: an answer sent and a request arriving a moment later.
    const answered = performance.now()
    const arrived = answered - ms
    const who = `${headerOf(request.headers, 'authorization') ?? ''}\u0000${request.method} ${request.url}`
    const sent = body?.slice(0, BODY_KEPT)
    const waiting = this.#waiting.get(who)
    // The same body: a create answered 429 or 503 before its body was read (Prefer, --fail-rate) cannot be told from
    // a parallel worker's next create, so it is not judged (a missed retry costs less than a false claim).
    const same = waiting !== undefined && waiting.body === sent
    if (same && arrived >= waiting.from && arrived < waiting.until)
      seen('early-retry', operationId, () => ({
        title: `retried sooner than the Retry-After it was given (${Math.ceil((waiting.until - arrived) / 1000)} s early at most)`,
        basis: [{ rfc: 'RFC 9110 §10.2.3' }],
      }))
    if (waiting !== undefined && answered >= waiting.until) this.#waiting.delete(who)
    const retryAfter =
      response && (response.status === 429 || response.status === 503) ? retryAfterOf(response) : undefined
    if (retryAfter !== undefined) {
      this.#waiting.delete(who)
      this.#waiting.set(who, { from: answered, until: answered + retryAfter * 1000, body: sent })
      if (this.#waiting.size > MAX_WAITING) this.#waiting.delete(this.#waiting.keys().next().value!)
    }
  }

  readonly #wrongType = () => this.#bodyFinding('a createPet body not sent as application/json')

  #query(request: AppRequest, seen: Seen): void {
    const { query } = splitTarget(request.url)
    const params = readQuery(query, ['limit', 'status'])
    const limit = this.#spec.parameter('listPets', 'limit')
    const values = params.get('limit')
    if (values !== undefined) {
      const text = values[0] ?? ''
      const value = /^[0-9]{1,10}$/.test(text) ? Number(text) : NaN
      const step = limit.multipleOf ?? 1
      if (
        values.length > 1 ||
        !(value >= Number(limit.minimum) && value <= Number(limit.maximum) && value % step === 0)
      )
        seen('limit-out-of-range', 'listPets', () => ({
          title: `limit outside ${limit.minimum}..${limit.maximum}${step > 1 ? ` (a multiple of ${step})` : ''}`,
          basis: [{ spec: parameterPointer(this.#spec, 'listPets', 'limit', 'schema') }],
        }))
    }
    const statuses = params.get('status')
    const allowed = this.#spec.parameter('listPets', 'status').enum ?? []
    if (statuses !== undefined && (statuses.length > 1 || !allowed.includes(statuses[0] ?? '')))
      seen('status-out-of-range', 'listPets', () => ({
        title: `status not one of ${allowed.join(', ')}`,
        basis: [{ spec: parameterPointer(this.#spec, 'listPets', 'status', 'schema') }],
      }))
  }

  #createPet(request: AppRequest, response: AppResponse | undefined, text: string | undefined, seen: Seen): void {
    // A JSON type of another name (`application/vnd.api+json`): the stub reads it, but the interface names none but
    // application/json, and a service may refuse it. Its body is judged all the same.
    const type = request.headers['content-type']
    if (typeof type === 'string' && type !== 'application/json' && type !== 'application/json; charset=utf-8')
      if (text !== undefined && isJsonMediaType(type) && !/^application\/json\s*(;|$)/i.test(type))
        seen('wrong-content-type', 'createPet', this.#wrongType)
    // A NewPet the stub read and stored was sent as JSON, parses, and passes NewPet: only its fields are left to judge.
    let value: JsonValue | undefined = response?.readBody
    if (value === undefined) {
      // Refused before its body was read (a bad Prefer, a body over the limit): there is no body to judge.
      if (text === undefined) return
      if (!isJsonMediaType(headerOf(request.headers, 'content-type')))
        return seen('wrong-content-type', 'createPet', this.#wrongType)
      try {
        value = parseBody(text?.charCodeAt(0) === 0xfeff ? text.slice(1) : (text ?? ''))
      } catch {
        seen('invalid-new-pet', 'createPet', () => this.#bodyFinding('a createPet body that is not JSON'))
        return
      }
      if (this.#newPet.validate(value).length)
        seen('invalid-new-pet', 'createPet', () =>
          this.#bodyFinding('a NewPet the interface refuses (required fields, types, values)'),
        )
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const declared = this.#newPet.declared
      for (const name in value) {
        if (!Object.hasOwn(value, name) || declared.has(name)) continue
        seen('unknown-fields', 'createPet', () => ({
          title: 'a NewPet with fields the interface does not describe (the service may drop, keep or refuse them)',
          basis: [{ spec: pointer('components', 'schemas', 'NewPet') }],
        }))
        break
      }
    }
  }

  #bodyFinding(title: string): { title: string; basis: Basis } {
    return { title, basis: [{ spec: operationPointer(this.#spec, 'createPet', 'requestBody') }] }
  }

  #found(
    id: string,
    operationId: OperationId | undefined,
    describe: Describe,
    request: AppRequest,
    body: string | undefined,
  ): void {
    const key = operationId === undefined ? id : `${id}\u0000${operationId}`
    const known = this.#findings.get(key)
    if (known) {
      known.count++
      return
    }
    if (this.#findings.size >= MAX_FINDINGS) return
    const { title, basis } = describe()
    this.#findings.set(key, {
      id,
      ...(operationId ? { operationId } : {}),
      title,
      basis: basis.flatMap((b) => ('ref' in b ? [b] : renderBasis(this.#spec, [b]))),
      count: 1,
      firstSeen: new Date().toISOString(),
      example: exampleOf(request, body, this.#secrets),
    })
  }

  /** The report so far. */
  report(): ClientReport {
    const findings = [...this.#findings.values()].map((f) => ({ ...f, example: { ...f.example } }))
    const notExercised: NotExercised[] = []
    for (const op of Object.values(this.#spec.operations)) {
      for (const status of [...op.statuses, '429']) {
        if (status.startsWith('2') || this.#received.get(op.operationId)?.has(Number(status))) continue
        notExercised.push({
          operationId: op.operationId,
          status,
          hint: `send Prefer: code=${status} to ${op.method} ${this.#base}${op.path}${status === '429' ? ' (it comes with Retry-After)' : ''}`,
          basis:
            status === '429'
              ? renderBasis(this.#spec, [{ rfc: 'RFC 9110 §10.2.3' }])
              : renderBasis(this.#spec, [{ spec: operationPointer(this.#spec, op.operationId, 'responses', status) }]),
        })
      }
    }
    return {
      since: this.#since.toISOString(),
      requests: this.#requests,
      findings,
      notExercised,
      calls: { ...this.#calls },
    }
  }
}

/** Seconds of a `Retry-After` given as delay-seconds or an HTTP-date. */
function retryAfterOf(response: AppResponse): number | undefined {
  const at = response.headers.findIndex((item, i) => i % 2 === 0 && item.toLowerCase() === 'retry-after')
  const value = at < 0 ? undefined : response.headers[at + 1]!.trim()
  if (value === undefined) return undefined
  if (/^[0-9]+$/.test(value)) return Number(value)
  const date = Date.parse(value)
  return Number.isFinite(date) ? Math.max(0, (date - Date.now()) / 1000) : undefined
}

/** The request as an example: credentials redacted to their scheme, every secret redacted, the body cut short. */
function exampleOf(
  request: AppRequest,
  body: string | undefined,
  secrets: readonly string[],
): ClientFinding['example'] {
  const headers: Record<string, string> = {}
  for (const name of ['authorization', 'content-type', 'prefer']) {
    const value = headerOf(request.headers, name)
    if (value === undefined) continue
    headers[name] =
      name === 'authorization'
        ? credentialsShown(value, secrets, REDACTED)
        : withoutSecrets(value, secrets, 200, REDACTED)
  }
  return {
    method: withoutSecrets(request.method, secrets, Infinity, REDACTED),
    target: withoutSecrets(request.url, secrets, 500, REDACTED),
    headers,
    ...(body
      ? { body: withoutSecrets(body, secrets, BODY_KEPT, REDACTED) + (body.length > BODY_KEPT ? '…' : '') }
      : {}),
  }
}

/** A journal that feeds a client report beside it: emptying the journal empties the report too. */
export class ReportingJournal extends Journal {
  readonly #reporter: ClientReporter

  constructor(options: JournalOptions | undefined, reporter: ClientReporter) {
    super(options)
    this.#reporter = reporter
    reporter.hide(options?.secrets ?? [])
  }

  override record(
    request: AppRequest,
    response: AppResponse | undefined,
    ms: number,
    body?: Uint8Array | string,
    when?: number,
  ): void {
    if (request.unrecorded) return // a page of another site's: see AppRequest
    this.#reporter.record(request, response, body, ms)
    super.record(request, response, ms, body, when)
  }

  override clear(): number {
    this.#reporter.reset()
    return super.clear()
  }
}

/** Thrown by {@link assertCleanClient}: the client report has findings. */
export class ClientReportError extends Error {
  override name = 'ClientReportError'
  constructor(readonly report: ClientReport) {
    super(
      `the client used the interface wrongly:\n${report.findings
        .map(
          (f) =>
            `- ${f.operationId ? `${f.operationId}: ` : ''}${f.title} (${f.count}x; e.g. ${f.example.method} ${f.example.target}; basis: ${f.basis.map((b) => b.ref).join(', ')})`,
        )
        .join('\n')}`,
    )
  }
}

/**
 * Throws a {@link ClientReportError} listing the findings when the client report of `stub` (an in-process stub, a
 * running one's `stub`, or a report) has any: for a client's test suite, after its tests ran against the stub.
 */
export function assertCleanClient(
  from: { clientReport(): ClientReport } | { stub: { clientReport(): ClientReport } } | ClientReport,
): void {
  const report = 'findings' in from ? from : 'stub' in from ? from.stub.clientReport() : from.clientReport()
  if (report.findings.length) throw new ClientReportError(report)
}
