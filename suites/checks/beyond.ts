/**
 * Input beyond what the interface describes: a request media type other than the documented one, a body, a request
 * target or a header section larger than any documented request. HTTP has its own answers for such input (413,
 * 414, 415, 431); the interface names none of them and states no size limits, so any of them is the target's
 * choice there: observed, never a failure (a 5xx still is, and a pet stored by a refused request).
 */
import { CLOSED_WITHOUT_ANSWER, type RecordedExchange } from '../../model/index.js'
import { basisOf, operationPointer, type Basis, type OperationId, type Spec } from '../../spec/index.js'
import { requestLine } from './util.js'

/** Bytes of a request body every target must take: a NewPet with a name at the size floor is a few hundred. */
export const BODY_SIZE_FLOOR = 1024
/** Characters of a request target (path and query after the base address) every target must take: documented ones are under 40. */
export const TARGET_SIZE_FLOOR = 64
/** Bytes of request header fields every target must take (the suite's own are a few hundred). */
export const HEADER_SIZE_FLOOR = 8 * 1024
/** Bytes from which a request body counts as large: beyond the 64 KiB many servers and proxies take by default. */
export const LARGE_BODY_BYTES = 64 * 1024

/**
 * HTTP's answers to input too large or of a type the server does not take: 413 Content Too Large (RFC 9110 §15.5.14),
 * 414 URI Too Long (§15.5.15), 415 Unsupported Media Type (§15.5.16), 431 Request Header Fields Too Large (RFC 6585 §5).
 */
export const BEYOND_STATUSES: readonly number[] = [413, 414, 415, 431]

type Doc = Record<string, unknown>

/** The media types the spec documents for an operation's request body (`application/json`), as written there. */
export function requestMediaTypes(spec: Spec, operationId: OperationId): string[] {
  const op = spec.operation(operationId)
  const requestBody = (spec.doc.paths[op.path][op.method.toLowerCase()] as Doc).requestBody
  if (requestBody === undefined) return []
  const content = spec.resolve<{ content?: Doc }>(requestBody as Doc).content ?? {}
  return Object.keys(content)
}

/** The spec pointers to each documented request media type of an operation: what accepting a body rests on. */
export function requestContentBasis(spec: Spec, operationId: OperationId): Basis {
  return basisOf(
    requestMediaTypes(spec, operationId).map((type) => ({
      spec: operationPointer(spec, operationId, 'requestBody', 'content', type),
    })),
  )
}

/** A media type read from a `Content-Type` value: its type/subtype in lower case and its parameters. */
export interface MediaType {
  /** type/subtype in lower case. */
  essence: string
  /** type/subtype as the header wrote it. */
  written: string
  /** Parameter names in lower case, values unquoted. */
  parameters: [string, string][]
}

/** Reads a `Content-Type` value (RFC 9110 §8.3.1); undefined when it is no `type/subtype`. */
export function parseMediaType(value: string): MediaType | undefined {
  const [essence = '', ...rest] = value.split(';')
  const written = essence.trim()
  const type = written.toLowerCase()
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) return undefined
  const parameters = rest
    .filter((p) => p.trim() !== '')
    .map((p): [string, string] => {
      const at = p.indexOf('=')
      const name = (at < 0 ? p : p.slice(0, at)).trim().toLowerCase()
      const raw = at < 0 ? '' : p.slice(at + 1).trim()
      return [name, raw.startsWith('"') && raw.endsWith('"') && raw.length > 1 ? raw.slice(1, -1) : raw]
    })
  return { essence: type, written, parameters }
}

/**
 * True when a request `Content-Type` is one the spec documents for the operation: the type/subtype as the spec writes
 * it, with no parameter but a `charset` of UTF-8 in any letter case (JSON text is UTF-8, RFC 8259 §8.1, so saying so
 * changes nothing). The type/subtype in other letters (`Application/JSON`) names the same type (RFC 9110 §8.3.1), but
 * mainstream validators (Hono's among them) match it as written: refusing it is observed, not failed.
 * Without an operation, any operation's documented type counts.
 */
export function documentedMediaType(spec: Spec, operationId: OperationId | undefined, contentType: string): boolean {
  const media = parseMediaType(contentType)
  if (!media) return false
  const operations = operationId ? [operationId] : (Object.keys(spec.operations) as OperationId[])
  const documented = operations.flatMap((op) => requestMediaTypes(spec, op))
  if (!documented.includes(media.written)) return false
  return media.parameters.every(([name, value]) => name === 'charset' && value.toLowerCase() === 'utf-8')
}

/** A request header's value, by name in any letter case. */
export function requestHeader(exchange: Pick<RecordedExchange, 'request'>, name: string): string | undefined {
  const headers = exchange.request.headers ?? {}
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name)
  return key === undefined ? undefined : headers[key]
}

/** The request's media type in words: `application/vnd.petstore+json`, or `no Content-Type`. */
export function describeMediaType(exchange: Pick<RecordedExchange, 'request'>): string {
  const type = requestHeader(exchange, 'content-type')
  return type === undefined || type === '' ? 'no Content-Type' : type
}

/** True when a request sends a body whose media type the spec does not document for its operation (or sends none). */
export function undocumentedMediaType(
  exchange: Pick<RecordedExchange, 'operationId' | 'request'>,
  spec: Spec,
): boolean {
  const { body } = exchange.request
  if (body === undefined || body === '') return false
  const type = requestHeader(exchange, 'content-type')
  return type === undefined || type === '' || !documentedMediaType(spec, exchange.operationId, type)
}

/** Bytes of the request body as sent. */
export function requestBodyBytes(exchange: Pick<RecordedExchange, 'request'>): number {
  const { body } = exchange.request
  return body === undefined ? 0 : Buffer.byteLength(body, 'utf8')
}

/**
 * Why the exchange got no answer through a choice HTTP leaves to the target: the connection was closed before any
 * answer to a request with a large body (over LARGE_BODY_BYTES, more than a connection buffers). A server refusing
 * such a body may close the connection while it is still being sent, and the reset that follows can destroy its
 * answer before the client reads it (RFC 9112 §9.6): what it answered cannot be known, and the interface states no
 * size limits. Undefined for any other transport error, and for a small body, which a target must answer.
 */
export function closedBeyondInterface(
  exchange: Pick<RecordedExchange, 'request' | 'response' | 'error'>,
): string | undefined {
  if (exchange.response || !exchange.error?.startsWith(CLOSED_WITHOUT_ANSWER)) return undefined
  const bytes = requestBodyBytes(exchange)
  return bytes > LARGE_BODY_BYTES
    ? `connection closed without an answer while a body of ${bytes} bytes was sent (size limits are not described; a server may close a connection to refuse a body, and the reset can lose its answer, RFC 9112 §9.6)`
    : undefined
}

/**
 * Why the exchange's answer is HTTP's refusal of input beyond what the interface describes: a 413 to a body over
 * the size floor, a 414 to a long request target, a 415 to a media type the spec does not document, a 431 to large
 * header fields. Undefined when it is not: another status, or input within what the interface describes.
 */
export function refusedBeyondInterface(
  exchange: Pick<RecordedExchange, 'operationId' | 'request' | 'response'>,
  spec: Spec,
): string | undefined {
  switch (exchange.response?.status) {
    case 413: {
      const bytes = requestBodyBytes(exchange)
      return bytes > BODY_SIZE_FLOOR ? `413 to a body of ${bytes} bytes (size limits are not described)` : undefined
    }
    case 414: {
      const target = requestLine(exchange).length - exchange.request.method.length - 1
      return target > TARGET_SIZE_FLOOR
        ? `414 to a request target of ${target} characters (size limits are not described)`
        : undefined
    }
    case 415:
      return undocumentedMediaType(exchange, spec)
        ? `415 to a body sent with ${describeMediaType(exchange)}, a media type the spec does not document`
        : undefined
    case 431: {
      const bytes = Object.entries(exchange.request.headers ?? {}).reduce(
        (n, [name, value]) => n + Buffer.byteLength(`${name}: ${value}\r\n`, 'utf8'),
        0,
      )
      return bytes > HEADER_SIZE_FLOOR
        ? `431 to ${bytes} bytes of header fields (size limits are not described)`
        : undefined
    }
    default:
      return undefined
  }
}
