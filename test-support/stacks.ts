/**
 * Conformant Pet Store services as other stacks and proxies serve them, on plain node:http: wherever the interface
 * is silent (unknown paths, other methods, path spellings, redirects, out-of-range queries, id spellings, headers,
 * JSON spacing and escapes, connection handling, size limits, media types other than application/json) each one
 * answers as the stack does by default; wherever it speaks, as documented. The stacks: Go net/http (ServeMux
 * patterns), FastAPI on uvicorn, Flask on gunicorn, Koa 3 with @koa/router and koa-bodyparser, Hono 4 on
 * @hono/node-server, and nginx in front of a service. None reads spec/ or imports the stub or the suite.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { isInteger, parse, stringify } from 'lossless-json'

/** An answer before the stack writes it: status, headers, body. */
interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

interface Pet {
  id: bigint
  name: string
  categoryId: bigint
  status?: string
}

/** What a stack does where the interface is silent. */
export interface Stack {
  /** A redirect or refusal before routing (path cleaning, trailing slash), or undefined to route. */
  before?: (method: string, path: string, raw: string, host: string) => Answer | undefined
  /** The routing path from the raw one: decoded or not, as the stack's router reads it. */
  routePath: (raw: string) => string
  /** The path matches `/v1/pets` (and `/v1/pets/{id}`) in any letter case and with a trailing slash. */
  lenientPaths?: boolean
  /** Methods each route answers beyond its own (HEAD as GET, OPTIONS answered by the router). */
  headAsGet: boolean
  /** The router's answer to OPTIONS on a known path, or undefined when it is a method like any other. */
  options?: (allow: string[]) => Answer
  /** No route for the path. */
  notFound: () => Answer
  /** The path matches but not the method; undefined: answered as notFound. */
  methodNotAllowed?: (allow: string[]) => Answer
  /** The form a petId segment must have for the route to match (a converter's pattern); any by default. */
  idRoute?: RegExp
  /** The router matches the raw path and decodes the parameters it captures. */
  decodesParams?: boolean
  /** The integer a petId segment is read as, or undefined when the stack refuses it (400). */
  readId: (segment: string) => bigint | undefined
  /** The integer a `limit` query value is read as, undefined when refused (400); `repeated` holds every value. */
  readLimit: (repeated: string[]) => number | undefined
  /** JSON as the stack writes it. */
  json: (value: unknown) => string
  /** The response media type for JSON. */
  jsonType: string
  /** Headers the stack adds to every answer. */
  headers?: Record<string, string>
  /** Bodies the stack reads as JSON, by request media type; a refused body is the documented 400. */
  readsJson: (mediaType: string | undefined) => boolean
  /** Text decoded from JSON as the stack's decoder keeps it (Go replaces lone surrogates with U+FFFD). */
  keepText?: (text: string) => string
  /** The answer to a createPet body the service refuses, when the stack's own (not an Error 400) reaches the client. */
  refusedBody?: (malformed: boolean) => Answer | undefined
  /** The text the body decoder reads as JSON (Go's json.Decoder reads one value and leaves the rest). */
  bodyText?: (body: string) => string
  /** The order a listing walks the pets in; insertion order by default (Go's map iteration is random). */
  listOrder?: <T>(pets: T[]) => T[]
  /** A JSON body parser ahead of every route refuses bodies over this many bytes with 413 (an Error body). */
  jsonLimit?: number
  /** The router's answer to a method it implements on no route at all (@koa/router's 501), by method. */
  notImplemented?: (method: string) => Answer | undefined
  /** The server's answer to a request line or header longer than it reads, before any routing. */
  tooLong?: { bytes: number; answer: Answer }
  /** Closes the connection after each answer (gunicorn's sync worker). */
  closes?: boolean
  /** Writes bodies above this many bytes with chunked transfer coding instead of Content-Length. */
  chunkedAbove?: number
}

const STATUSES = ['available', 'pending', 'sold']
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const int64 = (n: bigint) => (n >= INT64_MIN && n <= INT64_MAX ? n : undefined)

const text = (status: number, body: string, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  body,
})
const html = (status: number, body: string, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body,
})

/** Decodes each percent-escape, or returns the text unchanged when one is malformed. */
function decode(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** Python's `json.dumps` escapes with `ensure_ascii=True`: every code unit above 0x7e as `\uXXXX`. */
const asciiOnly = (json: string) =>
  json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** Objects with their keys sorted, as Flask's JSON provider writes them (`sort_keys=True`). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys)
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(entries.map(([k, v]) => [k, sortedKeys(v)]))
}

/** Python's `int()` of a text: whitespace around it, a sign, any script's decimal digits, underscores between them. */
function pythonInt(text: string): bigint | undefined {
  const trimmed = text.trim()
  const match = /^([+-]?)(\p{Nd}+(?:_\p{Nd}+)*)$/u.exec(trimmed)
  if (!match) return undefined
  const digits = [...match[2]!.replaceAll('_', '')].map((c) => {
    const cp = c.codePointAt(0)!
    // Every Unicode Nd block is ten consecutive code points from a zero; find this one's value.
    for (let zero = cp; zero >= cp - 9; zero--) {
      if (/\p{Nd}/u.test(String.fromCodePoint(zero)) && !/\p{Nd}/u.test(String.fromCodePoint(zero - 1)))
        return String(cp - zero)
    }
    return c
  })
  return BigInt(match[1] + digits.join(''))
}

/** Go's `strconv.ParseInt(s, 10, 64)`: an optional sign and ASCII digits, within int64. */
const goParseInt = (s: string) => (/^[+-]?\d+$/.test(s) ? int64(BigInt(s)) : undefined)

/** Go's cleanPath: one slash for many, `.` and `..` resolved, the trailing slash kept. */
function goCleanPath(path: string): string {
  const out: string[] = []
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') out.pop()
    else out.push(part)
  }
  const cleaned = `/${out.join('/')}`
  return path.endsWith('/') && cleaned !== '/' ? `${cleaned}/` : cleaned
}

const goMediaType = (type: string | undefined) => type === 'application/json'

/** Go net/http, Go 1.22 ServeMux patterns (`GET /v1/pets`, `POST /v1/pets`, `GET /v1/pets/{petId}`). */
export const GO: Stack = {
  before(method, path, raw) {
    // ServeMux redirects an unclean path (`//`, `.`, `..`) to its clean form: 301, an HTML link for GET and HEAD.
    const cleaned = goCleanPath(path)
    if (cleaned === path) return undefined
    const query = raw.includes('?') ? raw.slice(raw.indexOf('?')) : ''
    const body = method === 'GET' ? `<a href="${cleaned}${query}">Moved Permanently</a>.\n\n` : ''
    return {
      status: 301,
      headers: { location: `${cleaned}${query}`, 'content-type': 'text/html; charset=utf-8' },
      body,
    }
  },
  // Go 1.22 matches each escaped segment unescaped: `%70ets` is `pets`, `pets%2F7` is one segment.
  routePath: (raw) =>
    raw
      .split('/')
      .map(decode)
      .map((s) => s.replaceAll('/', '\u0000'))
      .join('/'),
  headAsGet: true,
  notFound: () => text(404, '404 page not found\n', { 'x-content-type-options': 'nosniff' }),
  methodNotAllowed: (allow) =>
    text(405, 'Method Not Allowed\n', { allow: allow.join(', '), 'x-content-type-options': 'nosniff' }),
  readId: goParseInt,
  readLimit: ([first]) => (first === undefined ? 20 : goParseInt(first) === undefined ? undefined : Number(first)),
  // json.NewEncoder(w).Encode: HTML-safe escapes and a newline at the end.
  json: (value) =>
    `${stringify(value)!.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`,
  jsonType: 'application/json',
  readsJson: goMediaType,
  // Pets kept in a map[int64]Pet: ranging over it visits them in a random order, another one each time.
  listOrder: (pets) => {
    const order = [...pets]
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1))
      ;[order[i], order[j]] = [order[j]!, order[i]!]
    }
    return order
  },
  keepText: (text) => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  chunkedAbove: 2048,
}

const starletteJson = (type: string | undefined) =>
  type === undefined || type === 'application/json' || /^application\/[^/]*\+json$/.test(type)

/** FastAPI on uvicorn: a pydantic model per body (strict fields), 422 mapped to a 400 Error by the service. */
export const FASTAPI: Stack = {
  before(_method, path, _raw, host) {
    // Starlette's redirect_slashes: a path matching a route once its trailing slash is toggled gets a 307 there.
    if (/^\/v1\/pets(\/[^/]+)?\/$/.test(path))
      return { status: 307, headers: { location: `http://${host}${path.slice(0, -1)}` }, body: '' }
    return undefined
  },
  routePath: decode, // uvicorn decodes the whole path: `pets%2F7` is `pets/7`
  headAsGet: false, // FastAPI's routes answer their own methods only: HEAD is a 405
  notFound: () => ({ status: 404, headers: { 'content-type': 'application/json' }, body: '{"detail":"Not Found"}' }),
  methodNotAllowed: (allow) => ({
    status: 405,
    headers: { 'content-type': 'application/json', allow: allow.filter((m) => m !== 'HEAD')[0]! },
    body: '{"detail":"Method Not Allowed"}',
  }),
  // pydantic's lax int from text: whitespace, a sign, underscores, `.0` fractions.
  readId: (segment) => {
    const match = /^\s*([+-]?\d+(?:_\d+)*)(?:\.0*)?\s*$/.exec(segment)
    return match ? BigInt(match[1]!.replaceAll('_', '')) : undefined
  },
  // The last of repeated values (Starlette's QueryParams), read like a path int; out of 1..100 a 400.
  readLimit: (repeated) => {
    const last = repeated.at(-1)
    if (last === undefined) return 20
    const match = /^\s*([+-]?\d+(?:_\d+)*)(?:\.0*)?\s*$/.exec(last)
    return match ? Number(match[1]!.replaceAll('_', '')) : undefined
  },
  json: (value) => stringify(value)!, // separators=(",", ":"), ensure_ascii=False
  jsonType: 'application/json',
  headers: { server: 'uvicorn' },
  // h11's max_incomplete_event_size: a request head over 16 KiB is no HTTP request to uvicorn.
  tooLong: { bytes: 16 * 1024, answer: text(400, 'Invalid HTTP request received.') },
  readsJson: starletteJson,
}

/** Werkzeug's HTML error page. */
const werkzeugPage = (status: number, title: string, message: string, headers: Record<string, string> = {}) =>
  html(
    status,
    `<!doctype html>\n<html lang=en>\n<title>${status} ${title}</title>\n<h1>${title}</h1>\n<p>${message}</p>\n`,
    headers,
  )

/** Flask on gunicorn (sync worker): `jsonify`, `request.get_json(silent=True)`, `int(pet_id)`. */
export const FLASK: Stack = {
  before(_method, path, raw) {
    // Werkzeug's merge_slashes: a path with `//` is redirected to its merged form with 308.
    if (!path.includes('//')) return undefined
    const merged = path.replace(/\/{2,}/g, '/')
    const query = raw.includes('?') ? raw.slice(raw.indexOf('?')) : ''
    return werkzeugPage(
      308,
      'Permanent Redirect',
      `You should be redirected automatically to the target URL: <a href="${merged}${query}">${merged}${query}</a>. If not, click the link.`,
      { location: `${merged}${query}` },
    )
  },
  routePath: decode,
  headAsGet: true,
  options: (allow) => ({
    status: 200,
    headers: { allow: allow.join(', '), 'content-type': 'text/html; charset=utf-8' },
    body: '',
  }),
  notFound: () =>
    werkzeugPage(
      404,
      'Not Found',
      'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.',
    ),
  methodNotAllowed: (allow) =>
    werkzeugPage(405, 'Method Not Allowed', 'The method is not allowed for the requested URL.', {
      allow: allow.join(', '),
    }),
  readId: pythonInt,
  // request.args.get('limit', 20, type=int): a value int() refuses gives the default.
  readLimit: ([first]) => {
    if (first === undefined) return 20
    const n = pythonInt(first)
    return n === undefined ? 20 : Number(n)
  },
  json: (value) => `${asciiOnly(stringify(sortedKeys(value))!)}\n`,
  jsonType: 'application/json',
  headers: { server: 'gunicorn' },
  // gunicorn's limit_request_line (4094) and limit_request_field_size (8190): its own HTML 400.
  tooLong: {
    bytes: 4094,
    answer: html(
      400,
      '<html>\n  <head>\n    <title>Bad Request</title>\n  </head>\n  <body>\n    <h1><p>Bad Request</p></h1>\n    Request Line is too large\n  </body>\n</html>\n',
      { 'content-type': 'text/html', connection: 'close' },
    ),
  },
  readsJson: (type) => type === 'application/json' || (!!type && /^application\/.*\+json$/.test(type)),
  closes: true,
}

/** Flask with the route `/v1/pets/<int:pet_id>`: Werkzeug's converter routes ASCII digits only, so any other petId is its HTML 404. */
export const FLASK_INT_CONVERTER: Stack = { ...FLASK, idRoute: /^\d+$/, readId: (segment) => BigInt(segment) }

/** Koa 3 with @koa/router (allowedMethods) and koa-bodyparser, an error middleware answering Error bodies. */
export const KOA: Stack = {
  routePath: (raw) => raw, // the router matches the raw path; parameters are decoded
  lenientPaths: true, // path-to-regexp with `sensitive: false, strict: false`
  headAsGet: true,
  options: (allow) => ({ status: 200, headers: { allow: allow.join(', ') }, body: '' }),
  notFound: () => text(404, 'Not Found'),
  methodNotAllowed: (allow) => text(405, 'Method Not Allowed', { allow: allow.join(', ') }),
  // allowedMethods(): a method outside the router's list (HEAD, OPTIONS, GET, PUT, PATCH, POST, DELETE) is a 501.
  notImplemented: (method) =>
    ['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE'].includes(method)
      ? undefined
      : text(501, 'Not Implemented'),
  decodesParams: true,
  readId: (segment) => (/^-?\d+$/.test(segment) ? int64(BigInt(segment)) : undefined),
  readLimit: (repeated) =>
    repeated.length === 1 && /^\d+$/.test(repeated[0]!) ? Number(repeated[0]) : repeated.length ? undefined : 20,
  json: (value) => stringify(value)!,
  jsonType: 'application/json; charset=utf-8',
  jsonLimit: 1024 * 1024, // koa-bodyparser's jsonLimit, 1mb; app.use(bodyParser()) comes before the router
  readsJson: (type) =>
    !!type &&
    [
      'application/json',
      'application/json-patch+json',
      'application/vnd.api+json',
      'application/csp-report',
      'application/scim+json',
    ].includes(type),
}

/** Hono 4 on @hono/node-server: `c.json`, `c.req.json()` (any media type), no 405. */
export const HONO: Stack = {
  // getPath decodes with decodeURI, which keeps `%2F` as is.
  routePath: (raw) => {
    try {
      return decodeURI(raw)
    } catch {
      return raw
    }
  },
  headAsGet: true,
  notFound: () => text(404, '404 Not Found', { 'content-type': 'text/plain; charset=UTF-8' }),
  decodesParams: true,
  readId: (segment) => (/^-?\d+$/.test(segment) ? int64(BigInt(segment)) : undefined),
  readLimit: ([first]) => (first === undefined ? 20 : /^\d+$/.test(first) ? Number(first) : undefined),
  json: (value) => stringify(value)!,
  jsonType: 'application/json',
  readsJson: () => true,
}

/** The nginx page for a status it answers itself. */
const nginxPage = (status: number, title: string) =>
  html(
    status,
    `<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n<center><h1>${status} ${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
    { 'content-type': 'text/html' },
  )

/** A pet without a status written with one (`null`, `""`), as a serializer that keeps absent fields writes it. */
function withStatus(value: unknown, absent: null | string): unknown {
  if (Array.isArray(value)) return value.map((item) => withStatus(item, absent))
  if (value === null || typeof value !== 'object' || !('id' in value) || 'status' in value) return value
  return { ...value, status: absent }
}

/**
 * Natural mistakes on these stacks, each a one-line slip from the conformant service, with the check that catches it:
 * - Flask `int-converter`: the route `/v1/pets/<int:pet_id>` routes no negative id, so `GET /pets/-1` is Werkzeug's
 *   HTML 404 page where the interface documents an Error body;
 * - FastAPI `default-422`: no handler for RequestValidationError, so an invalid NewPet gets FastAPI's 422;
 * - Go `decoder-trailing-data`: `json.NewDecoder(r.Body).Decode(&p)` reads one value and ignores what follows it;
 * - Hono `unguarded-json`: `await c.req.json()` unguarded, so malformed JSON reaches Hono's default onError, a 500;
 * - FastAPI `null-status`: the response model without `response_model_exclude_none`, so a pet created without a
 *   status is written with `"status": null`;
 * - Go `no-omitempty`: `Status string \`json:"status"\`` without `omitempty`, so the absent status is written `""`;
 * - Koa `default-error-handler`: no error middleware, so koa-bodyparser's refusal of malformed JSON is Koa's text/plain.
 */
export const STACK_MISTAKES = {
  'Flask + gunicorn int-converter': { stack: FLASK_INT_CONVERTER, catches: 'response.content-type' },
  'FastAPI + uvicorn default-422': {
    stack: {
      ...FASTAPI,
      refusedBody: () => ({
        status: 422,
        headers: { 'content-type': 'application/json' },
        body: '{"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required","input":{}}]}',
      }),
    },
    catches: 'response.status-documented',
  },
  'FastAPI + uvicorn null-status': {
    stack: { ...FASTAPI, json: (value: unknown) => FASTAPI.json(withStatus(value, null)) },
    catches: 'response.schema',
  },
  'Go net/http no-omitempty': {
    stack: { ...GO, json: (value: unknown) => GO.json(withStatus(value, '')) },
    catches: 'response.schema',
  },
  'Go net/http decoder-trailing-data': {
    stack: { ...GO, bodyText: (body: string) => body.slice(0, body.lastIndexOf('}') + 1) },
    catches: 'createPet.rejects-invalid',
  },
  'Hono 4 unguarded-json': {
    stack: {
      ...HONO,
      refusedBody: (malformed: boolean) => (malformed ? text(500, 'Internal Server Error') : undefined),
    },
    catches: 'response.no-server-error',
  },
  'Koa 3 default-error-handler': {
    stack: { ...KOA, refusedBody: (malformed: boolean) => (malformed ? text(400, 'invalid JSON') : undefined) },
    catches: 'response.content-type',
  },
} satisfies Record<string, { stack: Stack; catches: string }>

/** Where each stack and proxy is started. */
export const STACKS = {
  'Go net/http': { stack: GO },
  'FastAPI + uvicorn': { stack: FASTAPI },
  'Flask + gunicorn': { stack: FLASK },
  'Koa 3': { stack: KOA },
  'Hono 4': { stack: HONO },
  'nginx + Go net/http': { stack: GO, nginx: true },
  'nginx + FastAPI': { stack: FASTAPI, nginx: true },
} satisfies Record<string, { stack: Stack; nginx?: boolean }>

/** The name of one of {@link STACKS}. */
export type StackName = keyof typeof STACKS

/** A stack's service listening on a loopback port. */
export interface StackTarget {
  /** Base address, `/v1` included. */
  url: string
  key: string
  close: () => Promise<void>
}

/** The service's answer to one request, as the stack routes and writes it. */
function serve(stack: Stack, keys: string[], pets: Map<bigint, Pet>, nextId: { value: bigint }) {
  const error = (status: number, code: string, message: string): Answer => ({
    status,
    headers: { 'content-type': stack.jsonType },
    body: stack.json({ code, message, status }),
  })
  const ok = (status: number, value: unknown, headers: Record<string, string> = {}): Answer => ({
    status,
    headers: { 'content-type': stack.jsonType, ...headers },
    body: stack.json(value),
  })
  const written = new Map<bigint, string>()
  const authorized = (header: string | undefined) => {
    const match = /^Bearer (\S+)$/.exec(header ?? '')
    return !!match && keys.includes(match[1]!)
  }

  return (method: string, raw: string, headers: IncomingMessage['headers'], body: string, size: number): Answer => {
    const [rawPath = '', rawQuery = ''] = raw.split(/\?(.*)/s)
    const type = headers['content-type']?.split(';')[0]!.trim().toLowerCase()
    if (stack.jsonLimit !== undefined && stack.readsJson(type) && size > stack.jsonLimit)
      return error(413, 'entity_too_large', 'request entity too large')
    const before = stack.before?.(method, decode(rawPath), raw, headers.host ?? '127.0.0.1')
    if (before) return before
    let path = stack.routePath(rawPath)
    if (stack.lenientPaths) path = path.toLowerCase().replace(/(.)\/$/, '$1')
    const item = /^\/v1\/pets\/([^/]+)$/.exec(path)
    const route = path === '/v1/pets' ? 'list' : item && (stack.idRoute?.test(item[1]!) ?? true) ? 'item' : undefined
    if (!route) return stack.notFound()
    const own = route === 'list' ? ['GET', 'POST'] : ['GET']
    const allow = stack.headAsGet ? [...own, 'HEAD'].sort() : own
    const asMethod = stack.headAsGet && method === 'HEAD' ? 'GET' : method
    if (!own.includes(asMethod)) {
      const unknown = stack.notImplemented?.(method)
      if (unknown) return unknown
      if (method === 'OPTIONS' && stack.options) return stack.options([...allow, 'OPTIONS'].sort())
      return stack.methodNotAllowed?.(stack.options ? [...allow, 'OPTIONS'].sort() : allow) ?? stack.notFound()
    }
    if (!authorized(headers.authorization)) {
      const answer = error(401, 'unauthorized', 'a valid API key is required')
      answer.headers['www-authenticate'] = 'Bearer realm="petstore"'
      return answer
    }
    if (route === 'item' && item) {
      const deprecation = {
        deprecation: '@1735689600',
        sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
        link: '</v1/pets>; rel="successor-version"',
      }
      const id = stack.readId(stack.decodesParams ? decode(item[1]!) : item[1]!)
      if (id === undefined) return error(400, 'invalid_id', 'petId must be an integer')
      const pet = pets.get(id)
      if (!pet) return error(404, 'not_found', `no pet with id ${id}`)
      return ok(200, pet, deprecation)
    }
    if (asMethod === 'GET') {
      const query = new URLSearchParams(rawQuery)
      const limit = stack.readLimit(query.getAll('limit'))
      if (limit === undefined || limit < 1 || limit > 100) return error(400, 'invalid_limit', 'limit must be 1 to 100')
      const status = query.get('status')
      if (status !== null && !STATUSES.includes(status)) return error(400, 'invalid_status', 'unknown status')
      const stored = [...pets.values()]
      const all = (stack.listOrder?.(stored) ?? stored).filter((pet) => status === null || pet.status === status)
      // Each pet written once, when stored: a listing joins them as the stack's encoder would write the array.
      const end = stack.json([]).endsWith('\n') ? '\n' : ''
      const body = `[${all
        .slice(0, limit)
        .map((pet) => written.get(pet.id)!)
        .join(',')}]${end}`
      return { status: 200, headers: { 'content-type': stack.jsonType }, body }
    }
    const text = stack.bodyText?.(body) ?? body
    const input = stack.readsJson(type) ? newPet(text, stack.keepText ?? ((t) => t)) : undefined
    if (!input) {
      const own = stack.refusedBody?.(stack.readsJson(type) && !parses(text))
      return own ?? error(400, 'invalid_body', 'a NewPet body is required')
    }
    const pet: Pet = { id: nextId.value++, ...input }
    pets.set(pet.id, pet)
    written.set(pet.id, stack.json(pet).replace(/\n$/, ''))
    return ok(201, pet)
  }
}

/** The body is JSON text. */
function parses(body: string): boolean {
  try {
    parse(body)
    return true
  } catch {
    return false
  }
}

/** The pet a body describes, or undefined: exact keys, integers kept exact, a string name, a known status. */
function newPet(body: string, keepText: (text: string) => string): Omit<Pet, 'id'> | undefined {
  let value: unknown
  try {
    value = parse(body.replace(/^\ufeff/, '\u0000'), null, (n) => (isInteger(n) ? BigInt(n) : Number(n)))
  } catch {
    return undefined
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const { name, categoryId, status } = value as Record<string, unknown>
  if (typeof name !== 'string' || typeof categoryId !== 'bigint' || int64(categoryId) === undefined) return undefined
  if (status !== undefined && (typeof status !== 'string' || !STATUSES.includes(status))) return undefined
  return { name: keepText(name), categoryId, ...(status === undefined ? {} : { status }) }
}

/** Starts a stack's service (behind nginx when asked) on a free loopback port. */
export async function startStack(
  name: StackName | keyof typeof STACK_MISTAKES,
  options: { keys?: string[] } = {},
): Promise<StackTarget> {
  const { stack, nginx = false } = (
    { ...STACKS, ...STACK_MISTAKES } as Record<string, { stack: Stack; nginx?: boolean }>
  )[name]!
  const keys = options.keys?.length ? options.keys : ['stack-key']
  const answer = serve(stack, keys, new Map(), { value: 1n })
  const server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    const method = req.method ?? 'GET'
    // A Content-Length over the limit is refused before the body is read (nginx, raw-body under koa-bodyparser);
    // the body is then read and dropped, so the client sees the answer (nginx's lingering close, Node's dump).
    const declared = Number(req.headers['content-length'] ?? 0)
    const early = nginx
      ? nginxRefusal(req, declared)
      : stack.jsonLimit !== undefined && declared > stack.jsonLimit
        ? answer(method, req.url ?? '/', req.headers, '', declared)
        : undefined
    if (early?.status === 413) {
      write(res, method, early, { stack, lingerFor: req })
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength
      if (size <= 8 * 1024 * 1024) chunks.push(chunk)
      else refused = true
    })
    req.on('end', () => {
      const edge = nginx ? nginxRefusal(req, size) : undefined
      const head = Math.max((req.url ?? '').length, ...Object.values(req.headers).map((v) => String(v).length))
      const given =
        edge ??
        (stack.tooLong && head > stack.tooLong.bytes ? stack.tooLong.answer : undefined) ??
        (refused
          ? text(413, 'Request Entity Too Large')
          : answer(method, req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8'), size))
      write(res, method, given, nginx && !edge ? { stack, nginx: req } : { stack })
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    key: keys[0]!,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    },
  }
}

/** What nginx answers itself before proxying: TRACE, a body over client_max_body_size, a request line over 8k. */
function nginxRefusal(req: IncomingMessage, size: number): Answer | undefined {
  if (req.method === 'TRACE') return nginxPage(405, 'Not Allowed')
  if ((req.url ?? '').length > 8 * 1024) return nginxPage(414, 'Request-URI Too Large')
  if (Object.values(req.headers).some((v) => String(v).length > 8 * 1024))
    return nginxPage(400, 'Request Header Or Cookie Too Large')
  if (size > 1024 * 1024) return nginxPage(413, 'Request Entity Too Large')
  return undefined
}

/**
 * Writes an answer as the stack does (and nginx on its way out: its Server header, gzip for JSON). An answer given
 * before the request's body was read (`lingerFor`) goes out at once, and the connection stays open until that body
 * has been read and dropped (nginx's lingering close, Node's dump): closing earlier would reset the connection under
 * the client still sending, and the reset could lose the answer (RFC 9112 §9.6).
 */
function write(
  res: ServerResponse,
  method: string,
  given: Answer,
  how: { stack: Stack; nginx?: IncomingMessage; lingerFor?: IncomingMessage },
) {
  const { stack, nginx, lingerFor } = how
  let body: Buffer = Buffer.from(given.body, 'utf8')
  const headers: Record<string, string> = { ...stack.headers, ...given.headers }
  if (nginx) {
    headers.server = 'nginx/1.27.3'
    headers.connection = 'keep-alive'
    // gzip on; gzip_types application/json; gzip_min_length 20 (HTTP/1.1 clients asking for it).
    if (
      /\bgzip\b/.test(String(nginx.headers['accept-encoding'] ?? '')) &&
      /json/.test(headers['content-type'] ?? '') &&
      body.byteLength >= 20
    ) {
      body = gzipSync(body)
      headers['content-encoding'] = 'gzip'
      delete headers['content-length']
    }
  }
  // Content-Length, unless gzip or a large body (Go) makes the answer chunked.
  const chunked = !!headers['content-encoding'] || (!nginx && (stack.chunkedAbove ?? Infinity) < body.byteLength)
  if (method === 'HEAD' || !chunked) headers['content-length'] = String(body.byteLength)
  if (stack.closes && !nginx) headers.connection = 'close'
  res.writeHead(given.status, headers)
  if (!lingerFor) return void res.end(method === 'HEAD' ? undefined : body)
  if (method !== 'HEAD') res.write(body)
  lingerFor.once('end', () => res.end()).once('close', () => res.end())
  lingerFor.resume()
}
