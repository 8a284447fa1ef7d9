/**
 * The catalogue: every check the suite runs, in one table. Tests, reports and `--check` selection read it.
 * Adding a check means one file and one line here.
 */
import { acceptsValid } from './accepts-valid.js'
import { authSchemeCase } from './auth-scheme-case.js'
import { createPetAuthRequired, getPetAuthRequired, listPetsAuthRequired } from './auth-required.js'
import { assignsId } from './assigns-id.js'
import { authStoresNothing } from './auth-stores-nothing.js'
import type { Check } from './check.js'
import { contentTypeJson } from './content-type.js'
import { documentedStatusesSeen } from './coverage.js'
import { deprecationHeader } from './deprecation-header.js'
import { deprecationScoped } from './deprecation-scoped.js'
import { echoesNewPet } from './echo.js'
import { errorStatusEchoed } from './error-status-echoed.js'
import { findsCreated } from './finds-created.js'
import { idsUnique } from './ids-unique.js'
import { invalidStoresNothing } from './invalid-stores-nothing.js'
import { keepsExisting } from './keeps-existing.js'
import { limitDefault } from './limit-default.js'
import { limitFills } from './limit-fills.js'
import { limitMax } from './limit-max.js'
import { noServerError } from './no-server-error.js'
import { noStackTrace } from './no-stack-trace.js'
import * as observed from './observed-checks.js'
import { rejectsInvalid } from './rejects-invalid.js'
import { responseSchema } from './response-schema.js'
import { returnsCreated } from './returns-created.js'
import { statusDocumented } from './status-documented.js'
import { statusFilter } from './status-filter.js'
import { successorLink } from './successor-link.js'
import { sunsetHeader } from './sunset-header.js'
import { transportOk } from './transport-ok.js'
import { uniqueInPage } from './unique-in-page.js'
import { unknown404 } from './unknown-404.js'
import { validQueryAccepted } from './valid-query-accepted.js'
import { wwwAuthenticate } from './www-authenticate.js'

export type { Check, CheckInput } from './check.js'

/** Checks judged on every exchange the suite receives. */
export const CROSS_CUTTING = [
  transportOk, // a complete HTTP response, no timeout or reset
  noServerError, // never a 5xx
  statusDocumented, // the status is listed for the operation
  contentTypeJson, // application/json
  responseSchema, // the body validates against the documented schema
  errorStatusEchoed, // Error.status repeats the HTTP status
  noStackTrace, // advice: no stack trace in error bodies
  wwwAuthenticate, // advice: 401 carries a Bearer challenge
  deprecationScoped, // advice: Deprecation/Sunset only on getPet
  deprecationHeader, // advice: getPet says Deprecation
  sunsetHeader, // advice: getPet says Sunset at x-sunset
  successorLink, // advice: getPet links to GET /pets
  observed.extraFields, // observed: fields beyond the documented ones
  validQueryAccepted, // listPets: a documented query gets 200
  uniqueInPage, // listPets: each pet once per page
] as const satisfies readonly Check[]

/** Every check, cross-cutting first. */
export const CHECKS = [
  ...CROSS_CUTTING,
  listPetsAuthRequired, // 401 without a valid key
  createPetAuthRequired,
  getPetAuthRequired,
  authStoresNothing, // an unauthenticated create stores nothing
  authSchemeCase, // observed: "bearer" in lower case
  acceptsValid, // valid NewPet -> 201
  echoesNewPet, // the Pet echoes what was sent
  rejectsInvalid, // invalid body -> 400
  invalidStoresNothing, // ... and nothing stored
  idsUnique, // distinct ids, also concurrently
  assignsId, // an id in the body is not used
  observed.statusDefault, // observed: status when omitted
  observed.idScheme, // observed: how ids are assigned
  observed.longName, // observed: a long name
  observed.unknownField, // observed: an undescribed field
  returnsCreated, // getPet returns the created pet
  keepsExisting, // pets listed at the start are still there at the end
  unknown404, // getPet of an unknown id -> 404
  limitMax, // at most `limit` pets
  limitFills, // min(limit, held) pets
  limitDefault, // 20 without limit
  statusFilter, // only that status
  findsCreated, // created pets listed as created when the page has room
  observed.ordering, // observed: order of the list
  observed.limitOutOfRange, // observed: limit outside 1..100
  observed.statusOutOfRange, // observed: status outside the enum
  documentedStatusesSeen, // every provokable documented status seen
] as const satisfies readonly Check[]

/** The id of a check of the catalogue. */
export type CheckId = (typeof CHECKS)[number]['id']

const BY_ID = new Map<string, Check>(CHECKS.map((c) => [c.id, c]))

/** The check with this id; throws on an id the catalogue does not hold (a bug in the suite). */
export function checkById(id: string): Check {
  const check = BY_ID.get(id)
  if (!check) throw new Error(`no check ${id} in the catalogue`)
  return check
}
