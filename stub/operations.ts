/** The interface's three operations over one store: listPets, createPet and getPet, each after its 401 check. */
import type { JsonValue, OperationId, Spec } from '../spec/index.js'
import { ApiError } from './errors.js'
import { NewPetReader } from './new-pet.js'
import { parsePetId, quote, readQuery, type RequestHeaders } from './request.js'
import type { Store } from './store.js'
import type { Authenticator } from './auth.js'
import type { Responder } from './respond.js'
import type { AppRequest, AppResponse, BodyWanted, Routed } from './http.js'

/** How many distinct list query strings keep their prepared response (clients repeat a few). */
const QUERIES_KEPT = 64

/** The handlers of the three operations; errors they throw (ApiError) become answers in the router. */
export class Operations {
  /** The pets served. */
  readonly store: Store
  readonly #auth: Authenticator
  readonly #responder: Responder
  readonly #limit: { minimum: number; maximum: number; default: number; step: number }
  readonly #statusFilter: string[]
  readonly #queryNames: string[]
  readonly #newPets: NewPetReader
  /** Prepared list responses by status filter and count, valid while the store version is `#pagesVersion`. */
  readonly #pages = new Map<string | undefined, (AppResponse | undefined)[]>()
  /** The same responses by the query string that asked for them, so a repeated query is not read again. */
  readonly #byQuery = new Map<string, AppResponse>()
  #pagesVersion = -1

  constructor(s: Spec, store: Store, auth: Authenticator, responder: Responder) {
    this.store = store
    this.#auth = auth
    this.#responder = responder
    const limit = s.parameter('listPets', 'limit')
    this.#limit = {
      minimum: Number(limit.minimum),
      maximum: Number(limit.maximum),
      default: Number(limit.default),
      step: limit.multipleOf ?? 1,
    }
    this.#statusFilter = s.parameter('listPets', 'status').enum ?? []
    this.#queryNames = Object.entries(s.operation('listPets').parameters)
      .filter(([, p]) => p.in === 'query')
      .map(([name]) => name)
    this.#newPets = new NewPetReader(s)
  }

  /** Runs an operation: `param` is the path parameter (getPet's petId), `query` the query string. */
  operate(request: AppRequest, operationId: OperationId, param: string | undefined, query: string): Routed {
    switch (operationId) {
      case 'listPets':
        return this.#listPets(request, query)
      case 'getPet':
        return this.#getPet(request, param ?? '')
      case 'createPet':
        return this.#createPet(request)
    }
  }

  #listPets(request: AppRequest, query: string): AppResponse {
    const denied = this.#auth.unauthorized(request, 'listPets')
    if (denied) return denied
    this.#forgetOldPages()
    const known = this.#byQuery.get(query)
    if (known) return this.#responder.fresh(known, 'listPets')
    const params = readQuery(query, this.#queryNames)
    const limit = this.#readLimit(params.get('limit'))
    const response = this.#list(limit, this.#readStatus(params.get('status')))
    if (this.#byQuery.size < QUERIES_KEPT) this.#byQuery.set(query, response)
    return this.#responder.fresh(response, 'listPets')
  }

  /** Drops the prepared pages once the store changed. */
  #forgetOldPages(): void {
    if (this.#pagesVersion === this.store.version) return
    this.#pages.clear()
    this.#byQuery.clear()
    this.#pagesVersion = this.store.version
  }

  /**
   * A page of the list. Pages are kept until the store changes, so repeated reads hand out one prepared
   * response instead of joining the pets again.
   */
  #list(count: number, filter: string | undefined): AppResponse {
    let pages = this.#pages.get(filter)
    const cached = pages?.[count]
    if (cached) return cached
    const list = '[' + this.store.page(count, filter).join(',') + ']'
    // The number of pets the query matches, for a count header a revision declares: it stays true while the page is kept.
    const total = this.store.count(filter)
    const response = this.#responder.respond(200, list, 'listPets', { facts: { total } })
    if (count > this.#limit.maximum) return response // only the pages the spec allows are worth keeping
    if (!pages) this.#pages.set(filter, (pages = []))
    pages[count] = response
    return response
  }

  #readLimit(values: (string | undefined)[] | undefined): number {
    const { minimum, maximum, step } = this.#limit
    if (values === undefined) return this.#limit.default
    const expected = `limit must be an integer from ${minimum} to ${maximum}${step > 1 ? `, a multiple of ${step}` : ''}`
    if (values.length > 1)
      throw new ApiError(400, 'invalid_limit', `${expected}, given once; got ${values.length} values`)
    const [text] = values
    if (text === undefined) throw new ApiError(400, 'invalid_limit', `${expected}; got malformed percent-encoding`)
    const value = /^[0-9]{1,10}$/.test(text) ? Number(text) : NaN
    if (!(value >= minimum && value <= maximum && value % step === 0))
      throw new ApiError(400, 'invalid_limit', `${expected}; got ${quote(text)}`)
    return value
  }

  #readStatus(values: (string | undefined)[] | undefined): string | undefined {
    if (values === undefined) return undefined
    const expected = `status must be one of ${this.#statusFilter.join(', ')}`
    if (values.length > 1)
      throw new ApiError(400, 'invalid_status', `${expected}, given once; got ${values.length} values`)
    const [text] = values
    if (text === undefined) throw new ApiError(400, 'invalid_status', `${expected}; got malformed percent-encoding`)
    if (!this.#statusFilter.includes(text)) throw new ApiError(400, 'invalid_status', `${expected}; got ${quote(text)}`)
    return text
  }

  #getPet(request: AppRequest, petId: string): AppResponse {
    const denied = this.#auth.unauthorized(request, 'getPet')
    if (denied) return denied
    const id = parsePetId(petId)
    if (id === undefined)
      throw new ApiError(404, 'pet_not_found', `no pet with id ${quote(petId)}: petId must be an int64 integer`)
    const json = this.store.find(id)
    if (json !== undefined) return this.#responder.respond(200, json, 'getPet')
    throw new ApiError(404, 'pet_not_found', `no pet with id ${String(id)}`)
  }

  #createPet(request: AppRequest): Routed {
    const denied = this.#auth.unauthorized(request, 'createPet')
    if (denied) return denied
    return new PendingCreate(request.headers, this.#createWith)
  }

  /** Made once per app: each pending create holds it, so no closure is made per request. */
  readonly #createWith = (body: Uint8Array | string, headers: RequestHeaders) => this.#create(body, headers)

  #create(body: Uint8Array | string, headers: RequestHeaders): AppResponse | Promise<AppResponse> {
    try {
      const { sent, pet, json: written } = this.#newPets.read(body, headers)
      const { json } = this.store.add(pet, written)
      // With a data file, the 201 leaves only once the pet is on disk; a pet that cannot be kept is not stored.
      const settled = this.store.settled()
      if (settled === undefined) return this.#created(json, sent)
      return settled.then(
        () => this.#created(json, sent),
        (error: unknown) => this.#responder.failure(error, 'createPet'),
      )
    } catch (error) {
      return this.#responder.failure(error, 'createPet')
    }
  }

  /** The 201 of a stored pet, with the body as read for the client report. */
  #created(json: string, sent: { [key: string]: JsonValue }): AppResponse {
    const response = this.#responder.respond(201, json, 'createPet')
    response.readBody = sent
    return response
  }
}

/** An authenticated createPet waiting for its body. */
class PendingCreate implements BodyWanted {
  readonly kind = 'body'
  readonly operationId = 'createPet'

  constructor(
    readonly headers: RequestHeaders,
    readonly create: (body: Uint8Array | string, headers: RequestHeaders) => AppResponse | Promise<AppResponse>,
  ) {}

  accept(body: Uint8Array | string): AppResponse | Promise<AppResponse> {
    return this.create(body, this.headers)
  }
}
