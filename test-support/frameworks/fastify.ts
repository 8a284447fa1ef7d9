/**
 * The Pet Store interface on Fastify 5, written from the interface text as a team would: routes under a `/v1`
 * prefix, an `onRequest` hook for the bearer key, JSON schemas on each route (body validated without type
 * coercion, query and params with it, the split Fastify's documentation shows), an int64-exact JSON parser in
 * place of the default one (lossless-json, so `categoryId` keeps every digit) and the reply serializer to match,
 * and an error handler that gives every error the interface's Error shape. Where the interface is silent,
 * Fastify decides: 415 for other media types, 413 over its 1 MiB body limit, 414 for a path parameter over
 * 100 characters, its own 404 body for unknown routes, and a `petId` read by Ajv's coercion (JavaScript's
 * `Number()`), so `07`, ` 7`, `7.0`, `7e0` and `0x7` all name pet 7.
 */
import { Ajv } from 'ajv'
import Fastify, { type FastifyInstance } from 'fastify'
import { parse, parseNumberAndBigInt, stringify } from 'lossless-json'
import { baseUrl, keysOf, type FrameworkOptions, type FrameworkTarget } from './target.js'

/**
 * Natural mistakes of a Fastify service, each a one-line slip, with the check of the suite that catches it:
 * - `default-error-handler`: no `setErrorHandler`, so a refused body gets Fastify's own error body
 *   (`{statusCode, code, error, message}`, no `status`);
 * - `coercing-body`: the body validated by Fastify's default validator, which coerces types, so `"name": null`
 *   is stored as the name "".
 */
export const FASTIFY_MISTAKES = {
  'default-error-handler': 'response.schema',
  'coercing-body': 'createPet.rejects-invalid',
} as const

/** One of {@link FASTIFY_MISTAKES}. */
export type FastifyMistake = keyof typeof FASTIFY_MISTAKES

const STATUSES = ['available', 'pending', 'sold']
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

interface Pet {
  id: number
  name: string
  categoryId: bigint
  status?: string
}

interface NewPetBody {
  name: string
  categoryId: unknown
  status?: string
}

/** An error Fastify answers with its `statusCode`. */
function httpError(statusCode: number, code: string, message: string): Error {
  return Object.assign(new Error(message), { statusCode, code })
}

/** The Fastify application: routes under `/v1`, in memory; call `ready()` or `listen()` on it. */
export function fastifyApp(options: FrameworkOptions<FastifyMistake> = {}): FastifyInstance {
  const keys = keysOf(options)
  const pets = new Map<string, Pet>()
  let nextId = 1

  const app = Fastify()

  // Body without coercion (a number is no name); query and params as strings coerced to their types.
  if (options.mistake !== 'coercing-body') {
    const compilers = {
      body: new Ajv({ coerceTypes: false, useDefaults: true, allErrors: true }),
      other: new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true }),
    }
    app.setValidatorCompiler(({ schema, httpPart }) =>
      (httpPart === 'body' ? compilers.body : compilers.other).compile(schema),
    )
  }

  // int64 values beyond 2^53 keep every digit, in and out.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    if (text === '') return done(null, undefined)
    try {
      done(null, parse(text as string, null, parseNumberAndBigInt))
    } catch {
      done(httpError(400, 'invalid_json', 'the body is not valid JSON'), undefined)
    }
  })
  app.setReplySerializer((payload) => stringify(payload) ?? '')

  if (options.mistake !== 'default-error-handler') {
    app.setErrorHandler(
      (error: Error & { statusCode?: number; code?: string; validation?: unknown }, _request, reply) => {
        const given = error.statusCode ?? 500
        const status = given >= 400 && given < 600 ? given : 500
        const code = error.validation ? 'invalid_request' : status >= 500 ? 'internal_error' : (error.code ?? 'error')
        const message = status >= 500 ? 'internal error' : error.message
        return reply.code(status).send({ code, message, status })
      },
    )
  }

  app.addHook('onRequest', async (request, reply) => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')
    if (match && keys.includes(match[1]!)) return
    return reply
      .code(401)
      .header('www-authenticate', 'Bearer realm="petstore"')
      .send({ code: 'unauthorized', message: 'a valid API key is required', status: 401 })
  })

  app.register(
    async (v1) => {
      v1.get<{ Querystring: { limit: number; status?: string } }>(
        '/pets',
        {
          schema: {
            querystring: {
              type: 'object',
              properties: {
                limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
                status: { type: 'string', enum: STATUSES },
              },
            },
          },
        },
        async (request) => {
          const { limit, status } = request.query
          const all = [...pets.values()]
          return (status === undefined ? all : all.filter((pet) => pet.status === status)).slice(0, limit)
        },
      )

      v1.post<{ Body: NewPetBody }>(
        '/pets',
        {
          schema: {
            body: {
              type: 'object',
              required: ['name', 'categoryId'],
              properties: { name: { type: 'string' }, categoryId: {}, status: { type: 'string', enum: STATUSES } },
            },
          },
        },
        async (request, reply) => {
          const { name, categoryId, status } = request.body
          // Ajv has no type for a bigint, so the int64 is checked here.
          const category =
            typeof categoryId === 'bigint'
              ? categoryId
              : typeof categoryId === 'number' && Number.isSafeInteger(categoryId)
                ? BigInt(categoryId)
                : undefined
          if (category === undefined || category < INT64_MIN || category > INT64_MAX)
            throw httpError(400, 'invalid_category', 'categoryId must be an int64')
          const pet: Pet = { id: nextId++, name, categoryId: category, ...(status === undefined ? {} : { status }) }
          pets.set(String(pet.id), pet)
          return reply.code(201).send(pet)
        },
      )

      v1.get<{ Params: { petId: number } }>(
        '/pets/:petId',
        // Ids come from a counter, far below 2^53, so the coerced number names every pet exactly.
        { schema: { params: { type: 'object', properties: { petId: { type: 'integer' } } } } },
        async (request) => {
          const pet = pets.get(String(request.params.petId))
          if (!pet) throw httpError(404, 'pet_not_found', `no pet with id ${request.params.petId}`)
          return pet
        },
      )
    },
    { prefix: '/v1' },
  )
  return app
}

/** Starts the Fastify service on a free loopback port. */
export async function startFastify(options: FrameworkOptions<FastifyMistake> = {}): Promise<FrameworkTarget> {
  const app = fastifyApp(options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { url: baseUrl(app.server), key: keysOf(options)[0]!, close: () => app.close() }
}
