/** Who may call an operation: one Bearer API key (RFC 6750) among the accepted ones. */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { OperationId } from '../spec/index.js'
import { sameText } from './request.js'
import type { Responder } from './respond.js'
import type { AppRequest, AppResponse } from './http.js'

/** The key accepted when none is configured: public, in every page's reach. */
export const DEFAULT_API_KEY = 'petstore-dev-key'

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** Checks a request's `Authorization` against the accepted keys, and answers 401 when it does not hold one. */
export class Authenticator {
  readonly #keyDigests: Buffer[]
  readonly #responder: Responder

  constructor(apiKeys: readonly string[], responder: Responder) {
    if (apiKeys.length === 0) throw new Error('the stub needs at least one API key')
    this.#keyDigests = apiKeys.map(sha256)
    this.#responder = responder
  }

  /** The 401 of an operation when the request does not carry an accepted key, else `undefined`. */
  unauthorized(request: AppRequest, operationId: OperationId): AppResponse | undefined {
    const header = request.headers.authorization
    // Authorization is a singleton field (RFC 9110 §11.6.2): two of them are ambiguous credentials, never accepted.
    if (Array.isArray(header)) {
      return this.#responder.challenge(
        'multiple_credentials',
        'send exactly one Authorization header: Bearer <API_KEY>',
        'invalid_request',
        operationId,
      )
    }
    const memo = request.connection
    // The very header this connection already proved: nothing to read again.
    if (header !== undefined && memo?.acceptedHeader !== undefined && sameText(header, memo.acceptedHeader))
      return undefined
    const text = header?.trim() ?? ''
    if (text === '')
      return this.#responder.challenge(
        'missing_credentials',
        'an API key is required: send Authorization: Bearer <API_KEY>',
        undefined,
        operationId,
      )
    const space = text.search(/[ \t]/)
    const scheme = space < 0 ? text : text.slice(0, space)
    // RFC 6750 §3: a request with another authentication scheme gets the challenge without an error code.
    if (scheme.toLowerCase() !== 'bearer') {
      return this.#responder.challenge(
        'unsupported_scheme',
        'the Authorization header must use the Bearer scheme: Bearer <API_KEY>',
        undefined,
        operationId,
      )
    }
    const token = space < 0 ? '' : text.slice(space + 1).trim()
    if (token === '')
      return this.#responder.challenge('invalid_token', 'the Bearer token is empty', 'invalid_token', operationId)
    if (this.#isKnownKey(token)) {
      if (memo) memo.acceptedHeader = header
      return undefined
    }
    return this.#responder.challenge('invalid_token', 'the API key is not valid', 'invalid_token', operationId)
  }

  /** Compares SHA-256 digests with timingSafeEqual: equal lengths, and no early exit on the first differing key. */
  #isKnownKey(token: string): boolean {
    const digest = sha256(token)
    let known = false
    for (const key of this.#keyDigests) known = timingSafeEqual(key, digest) || known
    return known
  }
}
