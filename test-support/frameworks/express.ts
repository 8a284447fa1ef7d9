/**
 * The Pet Store interface on Express 5, written from the interface text as a team would: a router under `/v1`
 * with a bearer-key middleware, body-parser's text parser for `application/json` (its defaults: 100 kB, UTF-8,
 * inflation) followed by an int64-exact JSON parse (lossless-json, so `categoryId` keeps every digit), hand-written
 * validation whose refusals the handlers answer with an Error body, and an error-handling middleware that does the
 * same for the body parsers' errors. Where the interface is silent, Express decides: other media types leave the
 * body unparsed (a 400 here), a body over 100 kB gets body-parser's 413, paths match in any letter case and with a
 * trailing slash, and unknown paths get Express's own HTML 404 page.
 */
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express'
import { parse, parseNumberAndBigInt, stringify } from 'lossless-json'
import { baseUrl, keysOf, type FrameworkOptions, type FrameworkTarget } from './target.js'

/**
 * Natural mistakes of an Express service, each a one-line slip, with the check of the suite that catches it:
 * - `default-error-handler`: no error-handling middleware, so Express's final handler answers a malformed JSON
 *   body (and a body over the limit) with its HTML error page (`text/html`, the stack included outside production);
 * - `express-json`: the usual `express.json()`, whose `JSON.parse` rounds every integer beyond 2^53, so a
 *   `categoryId` such as 2^53 + 1 is stored and echoed with other digits;
 * - `parse-int-id`: `parseInt(req.params.petId, 10)`, which reads `7a` or `7.5` as 7 and answers with pet 7.
 */
export const EXPRESS_MISTAKES = {
  'default-error-handler': 'response.content-type',
  'express-json': 'createPet.echo',
  'parse-int-id': 'getPet.invalid-id-refused',
} as const

/** One of {@link EXPRESS_MISTAKES}. */
export type ExpressMistake = keyof typeof EXPRESS_MISTAKES

const STATUSES = ['available', 'pending', 'sold']
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

interface Pet {
  id: bigint
  name: string
  categoryId: bigint
  status?: string
}

/** A refusal a handler answers at once with an Error body. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).type('application/json').send(stringify(body)) // res.json() cannot write a bigint
}

function refuse(res: Response, { status, code, message }: Refusal): void {
  sendJson(res, status, { code, message, status })
}

/** Runs a handler, answering its refusals with their Error body. */
function handle<R extends Request>(handler: (req: R, res: Response) => void): (req: R, res: Response) => void {
  return (req, res) => {
    try {
      handler(req, res)
    } catch (error) {
      if (!(error instanceof Refusal)) throw error
      refuse(res, error)
    }
  }
}

/** The Express application: routes under `/v1`, in memory. */
export function expressApp(options: FrameworkOptions<ExpressMistake> = {}): express.Express {
  const keys = keysOf(options)
  const pets = new Map<bigint, Pet>()
  let nextId = 1n

  const authenticate: RequestHandler = (req, res, next) => {
    const match = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '')
    if (match && keys.includes(match[1]!)) return next()
    res.set('WWW-Authenticate', 'Bearer realm="petstore"')
    sendJson(res, 401, { code: 'unauthorized', message: 'a valid API key is required', status: 401 })
  }

  /** Parses the text body-parser read, keeping integers beyond 2^53 exact; malformed JSON goes to the error handler. */
  const parseJson: RequestHandler = (req, _res, next) => {
    if (typeof req.body !== 'string' || req.body === '') {
      req.body = undefined
      return next()
    }
    try {
      req.body = parse(req.body, null, parseNumberAndBigInt)
    } catch (error) {
      return next(Object.assign(error as Error, { status: 400, type: 'entity.parse.failed' })) // as express.json() does
    }
    next()
  }

  const listPets = handle((req, res) => {
    const { limit = '20', status } = req.query
    if (typeof limit !== 'string' || !/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)
      throw new Refusal(400, 'invalid_limit', 'limit must be an integer from 1 to 100')
    if (status !== undefined && (typeof status !== 'string' || !STATUSES.includes(status)))
      throw new Refusal(400, 'invalid_status', `status must be one of ${STATUSES.join(', ')}`)
    const all = [...pets.values()]
    const matching = status === undefined ? all : all.filter((pet) => pet.status === status)
    sendJson(res, 200, matching.slice(0, Number(limit)))
  })

  const createPet = handle((req, res) => {
    const input = validNewPet(req.body, options.mistake === 'express-json')
    const pet: Pet = { id: nextId++, ...input }
    pets.set(pet.id, pet)
    sendJson(res, 201, pet)
  })

  const getPet = handle((req: Request<{ petId: string }>, res) => {
    // Deprecated: removal on 5 December 2030, replaced by GET /pets with the status filter.
    res.set({
      Deprecation: '@1735689600',
      Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      Link: '</v1/pets>; rel="successor-version"',
    })
    const { petId } = req.params
    const id = options.mistake === 'parse-int-id' ? leadingInteger(petId) : /^-?\d+$/.test(petId) ? BigInt(petId) : null
    if (id === null) throw new Refusal(400, 'invalid_id', 'petId must be an integer')
    const pet = pets.get(id)
    if (!pet) throw new Refusal(404, 'pet_not_found', `no pet with id ${petId}`)
    sendJson(res, 200, pet)
  })

  /** Errors of the body parsers (malformed JSON, 413, 415) and anything unexpected, as Error bodies. */
  const handleError: ErrorRequestHandler = (error: unknown, _req, res, next) => {
    if (res.headersSent) return next(error)
    const { status, statusCode, type, message } = error as {
      status?: number
      statusCode?: number
      type?: string
      message?: string
    }
    const given = status ?? statusCode ?? 500
    const httpStatus = given >= 400 && given < 600 ? given : 500
    const body =
      httpStatus >= 500
        ? { code: 'internal_error', message: 'internal error', status: httpStatus }
        : { code: type ?? 'bad_request', message: String(message), status: httpStatus }
    sendJson(res, httpStatus, body)
  }

  const v1 = express.Router()
  v1.use(authenticate)
  v1.get('/pets', listPets)
  if (options.mistake === 'express-json') v1.post('/pets', express.json(), createPet)
  else v1.post('/pets', express.text({ type: 'application/json' }), parseJson, createPet)
  v1.get('/pets/:petId', getPet)

  const app = express()
  app.use('/v1', v1)
  if (options.mistake !== 'default-error-handler') app.use(handleError)
  return app
}

/** The integer `parseInt` reads from the start of `text` (`7a` is 7), or null. */
function leadingInteger(text: string): bigint | null {
  const n = parseInt(text, 10)
  return Number.isFinite(n) ? BigInt(n) : null
}

/**
 * The pet to store from a parsed body, or the 400 that refuses it. Integers arrive as bigint, other numbers (`1.0`,
 * `1e2`) as number; `doubles`: every number arrives as a double, as `JSON.parse` gives them.
 */
function validNewPet(body: unknown, doubles: boolean): Omit<Pet, 'id'> {
  if (body === undefined) throw new Refusal(400, 'missing_body', 'a JSON body (application/json) is required')
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new Refusal(400, 'invalid_body', 'the body must be a JSON object')
  const { name, categoryId, status } = body as Record<string, unknown>
  if (typeof name !== 'string') throw new Refusal(400, 'invalid_name', 'name is required and must be a string')
  const category =
    typeof categoryId === 'bigint'
      ? categoryId
      : typeof categoryId === 'number' && (doubles ? Number.isInteger(categoryId) : Number.isSafeInteger(categoryId))
        ? BigInt(categoryId)
        : undefined
  if (category === undefined || category < INT64_MIN || category > INT64_MAX)
    throw new Refusal(400, 'invalid_category', 'categoryId is required and must be an int64')
  if (status !== undefined && (typeof status !== 'string' || !STATUSES.includes(status)))
    throw new Refusal(400, 'invalid_status', `status must be one of ${STATUSES.join(', ')}`)
  return status === undefined ? { name, categoryId: category } : { name, categoryId: category, status }
}

/** Starts the Express service on a free loopback port. */
export async function startExpress(options: FrameworkOptions<ExpressMistake> = {}): Promise<FrameworkTarget> {
  const app = expressApp(options)
  const server = await new Promise<ReturnType<typeof app.listen>>((done, fail) => {
    const listening = app.listen(0, '127.0.0.1', (error?: Error) => (error ? fail(error) : done(listening)))
  })
  return {
    url: baseUrl(server),
    key: keysOf(options)[0]!,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    },
  }
}
