/**
 * The catalogue: every check the suite runs, in one table. The engine runs each where its `on` says it applies;
 * tests, reports and `--check` selection read it. Adding a check means one file, one line here and its unit test.
 * A check reaches the spec only through its arguments: what the spec decides in its title, basis or statuses is
 * declared as a function of the spec, resolved here, once, for the spec a run judges ({@link catalogueFor}).
 */
import { acceptsValid } from './accepts-valid.js'
import { assignsId } from './assigns-id.js'
import { createPetAuthRequired, getPetAuthRequired, listPetsAuthRequired } from './auth-required.js'
import { authSchemeCase } from './auth-scheme-case.js'
import { authStoresNothing } from './auth-stores-nothing.js'
import { resolveCheck, type Declaration, type Resolved } from './check.js'
import { contentTypeJson } from './content-type.js'
import { documentedStatusesSeen } from './coverage.js'
import { deprecationHeader } from './deprecation-header.js'
import { deprecationScoped } from './deprecation-scoped.js'
import { echoesNewPet } from './echo.js'
import { emptyIsArray } from './empty-is-array.js'
import { errorBody } from './error-body.js'
import { errorStatusEchoed } from './error-status-echoed.js'
import { extraFields } from './extra-fields.js'
import { findsCreated } from './finds-created.js'
import { idMatches } from './id-matches.js'
import { idScheme } from './id-scheme.js'
import { idsUnique } from './ids-unique.js'
import { invalidId } from './invalid-id.js'
import { invalidIdRefused } from './invalid-id-refused.js'
import { invalidStoresNothing } from './invalid-stores-nothing.js'
import { jsonLeeway } from './json-leeway.js'
import { largeBody } from './large-body.js'
import { keepsExisting } from './keeps-existing.js'
import { limitDefault } from './limit-default.js'
import { limitFills } from './limit-fills.js'
import { limitMax } from './limit-max.js'
import { limitOutOfRange } from './limit-out-of-range.js'
import { longName } from './long-name.js'
import { mediaType } from './media-type.js'
import { methodsAllow } from './methods-allow.js'
import { noDataWithoutKey } from './no-data-without-key.js'
import { noRedirect } from './no-redirect.js'
import { noServerError } from './no-server-error.js'
import { noStackTrace } from './no-stack-trace.js'
import { ordering } from './ordering.js'
import { pathVariant } from './path-variant.js'
import { refusedStoresNothing } from './refused-stores-nothing.js'
import { rejectsInvalid } from './rejects-invalid.js'
import { responseHeaders } from './response-headers.js'
import { responseSchema } from './response-schema.js'
import { returnsCreated } from './returns-created.js'
import { statusDefault } from './status-default.js'
import { statusDocumented } from './status-documented.js'
import { statusFilter } from './status-filter.js'
import { statusOutOfRange } from './status-out-of-range.js'
import { successorLink } from './successor-link.js'
import { sunsetHeader } from './sunset-header.js'
import { transportOk } from './transport-ok.js'
import { uniqueInPage } from './unique-in-page.js'
import { unknown404 } from './unknown-404.js'
import { undocumentedMethod } from './undocumented-method.js'
import { unfilteredListsAll } from './unfiltered-lists-all.js'
import { unknownField } from './unknown-field.js'
import { validQueryAccepted } from './valid-query-accepted.js'
import { wwwAuthenticate } from './www-authenticate.js'
import type { Spec } from '../../spec/index.js'

export type {
  BySpec,
  Check,
  Declaration,
  ExchangeCheck,
  ExchangeInput,
  Fact,
  Facts,
  RunCheck,
  RunInput,
  TransportCheck,
} from './check.js'
export {
  appliesTo,
  exchangeInput,
  judgeExchange,
  subjectOf,
  type PerExchangeCheck,
  type PerExchangeDeclaration,
} from './applies.js'
export {
  bySpec,
  credentialKind,
  isNotJudged,
  listedOperation,
  notJudged,
  onOperation,
  operationsOn,
  resolveCheck,
} from './check.js'
export type { Judgement, NotJudged } from './check.js'
export { refusedBeyondInterface, undocumentedMediaType } from './beyond.js'
export { bodyOf, idOf, isObject, listedPets, queryOutsideRange, requestLine, show } from './util.js'

/**
 * Every check as declared, in the order reports list them: cross-cutting first, then by operation, the run-level
 * last. Ids, severities, scopes and operations are read here; titles and bases from {@link catalogueFor}.
 */
export const CHECKS = [
  transportOk, // any request: a complete HTTP response, no timeout or reset
  noServerError, // any request: never a 5xx
  statusDocumented, // the status is listed for the operation
  noRedirect, // a documented operation is answered, never redirected
  contentTypeJson, // application/json
  responseSchema, // the body validates against the documented schema
  responseHeaders, // documented response headers match their schemas
  errorBody, // a documented error status carries an Error body, on every operation
  errorStatusEchoed, // Error.status repeats the HTTP status
  noStackTrace, // advice, any request: no stack trace in error bodies
  wwwAuthenticate, // advice, any request: 401 carries a Bearer challenge
  methodsAllow, // advice, any request: 405 carries Allow
  noDataWithoutKey, // any request without a valid key (other methods, path variants): no pet data
  undocumentedMethod, // observed: methods no operation of the path documents
  pathVariant, // observed: other spellings of a documented path
  deprecationScoped, // advice: Deprecation/Sunset only on the deprecated operation
  deprecationHeader, // advice: the deprecated operation says Deprecation
  sunsetHeader, // advice: ... and Sunset at x-sunset
  successorLink, // advice: ... and links to its successor
  extraFields, // observed: fields beyond the documented ones
  validQueryAccepted, // listPets: a documented query gets 200
  uniqueInPage, // listPets: each pet once per page
  listPetsAuthRequired, // 401 without a valid key
  createPetAuthRequired,
  getPetAuthRequired,
  authStoresNothing, // an unauthenticated create stores nothing
  authSchemeCase, // advice: the scheme in another letter case is accepted
  acceptsValid, // valid NewPet -> 201
  echoesNewPet, // the Pet echoes what was sent
  rejectsInvalid, // invalid body -> 400
  invalidStoresNothing, // ... and nothing stored
  refusedStoresNothing, // a valid NewPet refused (media type, size) stores nothing
  idsUnique, // distinct ids, also concurrently
  assignsId, // an id in the body is not used
  statusDefault, // observed: status when omitted
  idScheme, // observed, run: how ids are assigned
  longName, // observed: a long name
  unknownField, // observed: an undescribed field
  jsonLeeway, // observed: JSON whose reading parsers may differ on
  mediaType, // observed: a media type the spec does not document
  largeBody, // observed: a body over 64 KiB
  returnsCreated, // getPet returns the created pet
  keepsExisting, // pets held before the run are still there
  unknown404, // getPet of an unknown id -> 404
  idMatches, // getPet 200 shows the pet asked for
  invalidIdRefused, // a petId that is no int64 -> 404 or 400
  invalidId, // observed: which of them
  limitMax, // at most `limit` pets
  limitFills, // min(limit, held) pets
  limitDefault, // the default page without limit
  statusFilter, // only that status
  findsCreated, // created pets listed as created when the page has room
  unfilteredListsAll, // without status, a page with room lists a pet of each status
  emptyIsArray, // an empty result is []
  ordering, // observed: order of the list
  limitOutOfRange, // observed: limit outside its range
  statusOutOfRange, // observed: status outside the enum
  documentedStatusesSeen, // run: every provokable documented status seen
] as const satisfies readonly Declaration[]

/** One entry of the table as declared, with its literal id. */
export type CatalogueDeclaration = (typeof CHECKS)[number]

/** One entry of the catalogue resolved for a spec, with its literal id. */
export type CatalogueCheck = Resolved<CatalogueDeclaration>

/** The id of a check of the catalogue: a mistyped id is a compile error. */
export type CheckId = CatalogueDeclaration['id']

/** The check of the table with this id, as declared, typed as exactly that check. */
export type CheckOf<Id extends CheckId> = Extract<CatalogueDeclaration, { id: Id }>

const BY_ID = new Map<string, CatalogueDeclaration>(CHECKS.map((c) => [c.id, c]))

const RESOLVED = new WeakMap<Spec, readonly CatalogueCheck[]>()

/**
 * The catalogue for the spec a run judges: every check in the table's order, its title, basis and statuses as that
 * spec decides them. Built once per spec, so each check is the same object wherever the run reads it.
 */
export function catalogueFor(spec: Spec): readonly CatalogueCheck[] {
  let checks = RESOLVED.get(spec)
  if (!checks) RESOLVED.set(spec, (checks = CHECKS.map((c) => resolveCheck<CatalogueDeclaration>(c, spec))))
  return checks
}

/** The check with this id, as declared. */
export function checkById<Id extends CheckId>(id: Id): CheckOf<Id> {
  return BY_ID.get(id) as CheckOf<Id>
}

/** True when a text (a `--check` flag, a report) names a check of the table. */
export function isCheckId(id: string): id is CheckId {
  return BY_ID.has(id)
}

/** Checks judged on every answered exchange they apply to. */
export const EXCHANGE_CHECKS = CHECKS.filter(
  (c): c is Extract<CatalogueCheck, { scope: 'exchange' }> => c.scope === 'exchange',
)

/** Checks judged on every exchange, answered or not. */
export const TRANSPORT_CHECKS = CHECKS.filter(
  (c): c is Extract<CatalogueCheck, { scope: 'transport' }> => c.scope === 'transport',
)

/** Checks judged once, on the run as a whole. */
export const RUN_CHECKS = CHECKS.filter((c): c is Extract<CatalogueCheck, { scope: 'run' }> => c.scope === 'run')
