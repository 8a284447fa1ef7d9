/** Helpers shared by the stub's tests: call the app with no port, and judge answers against the spec. */
import { expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { packageFile, parseJson, spec, stringifyJson, type JsonValue, type OperationId } from '../spec/index.js'
import { App, JSON_TYPE, type AppOptions, type AppResponse } from './app.js'
import { loadSeed } from './seed.js'
import { PetStore } from './store.js'

/** The key the tests' stubs accept. */
export const KEY = 'test-key-0123456789'

/** Headers that authenticate with {@link KEY}. */
export const AUTH = { authorization: `Bearer ${KEY}` }

/** Headers of an authenticated JSON request. */
export const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' }

/** One example of fixtures/new-pets.json. */
export interface PetExample {
  title: string
  body?: JsonValue
  raw?: string
  stubCode?: string
}

/** The valid and invalid createPet examples, int64 digits intact. */
export const NEW_PETS = parseJson(readFileSync(packageFile('fixtures/new-pets.json'), 'utf8')) as unknown as {
  valid: PetExample[]
  invalid: PetExample[]
}

/** The text an example sends. */
export function exampleText(example: PetExample): string {
  return example.raw ?? stringifyJson(example.body)
}

/** An app over the fixture seed (or `seed`), accepting {@link KEY}. */
export function makeApp(options: Partial<AppOptions> & { seed?: Parameters<typeof loadSeed>[0] } = {}): App {
  const { seed, ...rest } = options
  return new App({ store: new PetStore(loadSeed(seed)), apiKeys: [KEY], ...rest })
}

/** A response as tests read it: lower-case header names, the body text and its lossless parse. */
export interface Answer {
  status: number
  headers: Record<string, string>
  text: string
  body: JsonValue | undefined
}

/** Turns an app response into an {@link Answer}. */
export function toAnswer(response: AppResponse): Answer {
  const headers: Record<string, string> = {}
  for (let i = 0; i < response.headers.length; i += 2)
    headers[response.headers[i]!.toLowerCase()] = response.headers[i + 1]!
  const text = response.pieces
    ? Buffer.concat([...iterate(response.pieces)].map((p) => Buffer.from(p))).toString()
    : response.body
  let body: JsonValue | undefined
  try {
    body = text === '' ? undefined : parseJson(text)
  } catch {
    body = undefined
  }
  return { status: response.status, headers, text, body }
}

function* iterate<T>(iterator: Iterator<T>): Generator<T> {
  for (let next = iterator.next(); !next.done; next = iterator.next()) yield next.value
}

/** Turns a Fetch response into an {@link Answer} (header names are lower case there already). */
export async function fromFetch(response: Response): Promise<Answer> {
  const text = await response.text()
  let body: JsonValue | undefined
  try {
    body = text === '' ? undefined : parseJson(text)
  } catch {
    body = undefined
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), text, body }
}

/** Sends one request through a stub's Fetch handler. */
export async function fetchAnswer(
  stub: { fetch(request: Request): Promise<Response> },
  request: Request,
): Promise<Answer> {
  return fromFetch(await stub.fetch(request))
}

/** Sends one request to the app with no port. */
export async function call(
  app: App,
  method: string,
  url: string,
  options: { headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<Answer> {
  return toAnswer(await app.handle({ method, url, headers: options.headers ?? {}, body: options.body }))
}

/**
 * Asserts what every answer of a documented operation must satisfy: a documented status, a body valid
 * against the documented schema, JSON content type, an Error whose status repeats the HTTP status.
 */
export function expectDocumented(
  operationId: OperationId,
  answer: Pick<Answer, 'status' | 'headers' | 'body' | 'text'>,
): void {
  const s = spec()
  expect(s.statuses(operationId)).toContain(String(answer.status))
  expect(answer.headers['content-type']).toBe(JSON_TYPE)
  const validate = s.response(operationId, answer.status)
  expect(validate, `a body is documented for ${operationId} ${answer.status}`).toBeDefined()
  expect(answer.body, answer.text).toBeDefined()
  expect(validate!(answer.body!)).toEqual([])
  if (answer.status >= 400) expect((answer.body as { status: number }).status).toBe(answer.status)
}

/** Asserts an Error answer with this status and code. */
export function expectError(
  answer: Pick<Answer, 'status' | 'headers' | 'body' | 'text'>,
  status: number,
  code: string,
): void {
  expect({ status: answer.status, code: (answer.body as { code?: string } | undefined)?.code }, answer.text).toEqual({
    status,
    code,
  })
  expect(spec().schema('Error')(answer.body!)).toEqual([])
  expect((answer.body as { status: number }).status).toBe(status)
  expect(answer.headers['content-type']).toBe(JSON_TYPE)
}
