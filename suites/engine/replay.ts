/**
 * `--replay`: a failing finding's request sent again, and judged again by the same check with the facts it was
 * judged on, as Schemathesis's `st replay` does. Cross-cutting checks judge the new answer too, so a request
 * that now fails differently is not called fixed. Facts about the target's store (the pets a finding names, how
 * many pets it held) are first looked up again, through another operation than the finding's own: where they no
 * longer hold (a restart with fresh data), the finding cannot be replayed, and the answer is neither a fix nor a fault.
 */
import type { Exchange, Finding, Request } from '../../model/index.js'
import { parseJson, stringifyJson, type JsonValue, type Spec } from '../../spec/index.js'
import { judgeExchange } from '../checks/applies.js'
import { isNotJudged, operationsOn, type Check, type Facts } from '../checks/check.js'
import { catalogueFor } from '../checks/index.js'
import { idOf, isObject, listedPets, pageSize } from '../checks/util.js'
import type { Transport } from '../transport/transport.js'
import { labelOf } from '../values/index.js'
import { fitNewPet } from './naming.js'

/** What replaying one finding showed. */
export interface Replayed {
  outcome: 'fixed' | 'still failing' | 'cannot replay'
  /** Why it still fails, or why it cannot be replayed (what the suite cannot know). */
  messages: string[]
  exchange?: Exchange
  /** What the replay did to recreate the finding's premise, e.g. `recreated 8 pets the finding counted on`. */
  notes?: string[]
}

/** Said of every finding a replay cannot judge: what can. */
export const ONLY_A_FULL_RUN = 'only a full run of the suite can confirm a fix'

const SENT_BY_TRANSPORT = new Set([
  'accept',
  'user-agent',
  'authorization',
  'content-type',
  'content-length',
  'accept-encoding',
])

/** The request a finding's exchange recorded, relative to the base address it was sent to. */
export function requestOf(finding: Finding, baseUrl: string): Request | undefined {
  const recorded = finding.exchange?.request
  if (!recorded || !finding.replay || !recorded.url.startsWith(baseUrl)) return undefined
  const suffix = recorded.url.slice(baseUrl.length)
  const at = suffix.indexOf('?')
  const headers = Object.fromEntries(
    Object.entries(recorded.headers).filter(([name]) => !SENT_BY_TRANSPORT.has(name.toLowerCase())),
  )
  const contentType = recorded.headers['content-type']
  return {
    ...(finding.exchange?.operationId ? { operationId: finding.exchange.operationId } : {}),
    method: recorded.method,
    path: at < 0 ? suffix : suffix.slice(0, at),
    ...(at < 0 ? {} : { rawQuery: suffix.slice(at + 1) }),
    ...(recorded.body !== undefined ? { body: recorded.body } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
    credential: finding.replay.credential,
  }
}

function factsOf(text: string | undefined): Facts {
  if (text === undefined) return {}
  const facts = parseJson(text) as Record<string, JsonValue>
  if (Array.isArray(facts.takenIds)) return { ...facts, takenIds: new Set(facts.takenIds.map(String)) } as Facts
  return facts as Facts
}

/** Judges an exchange with one check and the facts given; the messages it finds. */
function judgeWith(check: Check, exchange: Exchange, facts: Facts, spec: Spec): string[] {
  if (check.scope === 'run') return []
  const judgement = judgeExchange(check, exchange, facts, spec) ?? []
  // Another check without its premise on this answer has nothing to add.
  return isNotJudged(judgement) ? [] : judgement
}

/** Sends a finding's request again through `transport` and judges the answer. */
export async function replayFinding(
  finding: Finding,
  previousBaseUrl: string,
  transport: Transport,
  spec: Spec,
): Promise<Replayed> {
  if (finding.source !== 'suite')
    return { outcome: 'cannot replay', messages: [`found by ${finding.source}: run the suite with --via-prism again`] }
  const check = catalogueFor(spec).find((c) => c.id === finding.checkId)
  const request = requestOf(finding, previousBaseUrl)
  if (!check || check.scope === 'run' || !request)
    return { outcome: 'cannot replay', messages: ['the finding carries no request to send again'] }
  const facts = factsOf(finding.replay?.facts)
  // Without the facts it was judged on, the check would not apply to the new answer: that is no fix.
  const missing = (check.scope === 'exchange' ? (check.on.needs ?? []) : []).filter((need) => facts[need] === undefined)
  if (missing.length)
    return {
      outcome: 'cannot replay',
      messages: [`the report kept too little to judge it again (${missing.join(', ')})`],
    }
  const notes: string[] = []
  const gone = await factsGone(check, finding, facts, { transport, spec, notes })
  if (gone) return { outcome: 'cannot replay', messages: [`${gone}; ${ONLY_A_FULL_RUN}`] }
  const exchange = await transport.send(request)
  // A pet that was there, and is not found now: the store lost it (a restart), so the answer says nothing of a fix.
  const was = finding.exchange?.response?.status
  if (request.operationId === 'getPet' && exchange.response?.status === 404 && was !== undefined && was !== 404)
    return {
      outcome: 'cannot replay',
      messages: [
        `${request.method} ${request.path} now answers 404 where it answered ${was}: the pet is not found (a restart with fresh data?), so the answer cannot show a fix; ${ONLY_A_FULL_RUN}`,
      ],
      exchange,
    }
  // An answer that lacks the check's premise (a page now full, no Error body to compare) shows neither the failure nor
  // its fix: only a run that sets the premise up again can tell.
  const own = judgeExchange(check, exchange, facts, spec)
  if (isNotJudged(own))
    return {
      outcome: 'cannot replay',
      messages: [`the answer leaves the check nothing to judge (${own.notJudged}); ${ONLY_A_FULL_RUN}`],
      exchange,
    }
  // The check itself, and every fail-severity check judged on every exchange: a new failure is no fix.
  const judges = (catalogueFor(spec) as readonly Check[]).filter(
    (c) =>
      c === check || (c.severity === 'fail' && c.scope !== 'run' && typeof operationsOn(c.on.operation) === 'string'),
  )
  const messages = judges.flatMap((c) =>
    judgeWith(c, exchange, c === check ? facts : {}, spec).map((m) => (c === check ? m : `${c.id}: ${m}`)),
  )
  return {
    outcome: messages.length ? 'still failing' : 'fixed',
    messages,
    exchange,
    ...(notes.length ? { notes } : {}),
  }
}

/** A pet's id as text for a message. */
const idText = (pet: JsonValue): string => (isObject(pet) && pet.id !== undefined ? stringifyJson(pet.id) : '?')

/** The pets one listing at `limit`'s maximum shows (with a status filter when given), or why there are none. */
async function listing(transport: Transport, spec: Spec, status?: string): Promise<JsonValue[] | string> {
  const maximum = spec.parameter('listPets', 'limit').maximum
  const query: [string, string][] = maximum === undefined ? [] : [['limit', String(maximum)]]
  if (status !== undefined) query.push(['status', status])
  const exchange = await transport.send({ operationId: 'listPets', method: 'GET', path: '/pets', query })
  const pets = exchange.response?.status === 200 ? listedPets(exchange) : undefined
  return pets ?? `listing the pets answered ${exchange.response?.status ?? exchange.error}`
}

/** Whether getPet still finds a pet, by its id; undefined when the answer says neither. */
async function stillHeld(transport: Transport, pet: JsonValue): Promise<boolean | undefined> {
  const id = idOf(pet)
  if (id === undefined) return undefined
  const exchange = await transport.send({ operationId: 'getPet', method: 'GET', path: `/pets/${id}` })
  if (exchange.response?.status === 404) return false
  return exchange.response?.status === 200 &&
    idOf(exchange.json.kind === 'json' ? exchange.json.value : undefined) === id
    ? true
    : undefined
}

/** The pet a getPet finding's recorded answer showed, when it showed one: the replay counts on it still being held. */
function petAnswered(finding: Finding): JsonValue | undefined {
  const exchange = finding.exchange
  if (exchange?.operationId !== 'getPet' || exchange.response?.status !== 200) return undefined
  let body: JsonValue | undefined
  try {
    body = parseJson(exchange.response.rawBody)
  } catch {
    return undefined
  }
  return idOf(body) === undefined ? undefined : body
}

/**
 * Why the facts a finding was judged on no longer hold on the target, or cannot be known to; undefined when they
 * still do. Each is looked up through another operation than the finding's own, so a fault of that operation does
 * not hide itself: a getPet finding's pet in a listing, a listPets finding's pets by getPet.
 */
async function factsGone(
  check: Check,
  finding: Finding,
  facts: Facts,
  { transport, spec, notes }: { transport: Transport; spec: Spec; notes: string[] },
): Promise<string | undefined> {
  const needs: readonly string[] = check.scope === 'exchange' ? (check.on.needs ?? []) : []
  const maximum = Number(spec.parameter('listPets', 'limit').maximum ?? Infinity)
  if (needs.includes('storedAfter'))
    return 'whether the request stored a pet was learned by a later listing, which a replay does not repeat: run the suite again'
  const pet = facts.expected ?? facts.existing ?? petAnswered(finding)
  if (pet !== undefined) {
    // Unfiltered, then among the pets of its status: a store larger than one listing may still show it.
    const status = isObject(pet) && typeof pet.status === 'string' ? pet.status : undefined
    for (const filter of status === undefined ? [undefined] : [undefined, status]) {
      const pets = await listing(transport, spec, filter)
      if (typeof pets === 'string') return `${pets}: whether pet ${idText(pet)} is still held is unknown`
      if (pets.some((p) => idOf(p) === idOf(pet))) return undefined
      if (pets.length < maximum)
        return `pet ${idText(pet)} is gone: the target lists ${pets.length} pets${filter === undefined ? '' : ` of status ${filter}`}, and not it`
    }
    // More pets than one listing shows, none of them it: not shown gone, so the answer is judged.
    return undefined
  }
  if (facts.created === undefined && facts.atLeast === undefined) return undefined
  // The pets the finding counted on, by getPet: the run's own, and those its recorded page showed. A restart with
  // fresh data has lost them.
  const held = new Set<string>()
  const gone: JsonValue[] = []
  const counted = [...(facts.created ?? []), ...pageAnswered(finding)]
  for (const known of counted.slice(0, LOOKUPS)) {
    const id = idOf(known)
    if (id === undefined || held.has(id)) continue
    const found = await stillHeld(transport, known)
    if (found === false) gone.push(known)
    else if (found && (facts.status === undefined || (isObject(known) && known.status === facts.status))) held.add(id)
  }
  // A check judged on the very pets (their ids) cannot be given others; a count of pets can.
  if (gone.length && (facts.atLeast === undefined || needs.includes('created')))
    return `pet ${idText(gone[0]!)}, which the finding counted on, is gone (getPet answered 404)`
  if (facts.atLeast === undefined) return undefined
  // What the finding counted on: a page of `limit` pets, or of every pet known, whichever is fewer.
  const assumed = Math.min(facts.atLeast, pageSize(spec, facts.limit), maximum)
  if (held.size >= assumed) return undefined
  const pets = await listing(transport, spec, facts.status)
  const where = facts.status === undefined ? '' : ` of status ${facts.status}`
  if (typeof pets === 'string') return `${pets}: how many pets${where} the target holds is unknown`
  for (const listed of pets) if (idOf(listed) !== undefined) held.add(idOf(listed)!)
  if (held.size >= assumed) return undefined
  // Some of the pets it counted on were looked up and none is gone: the store is as the finding saw it, as far as
  // getPet can tell, and the listing's count is what is judged again.
  if (held.size > 0 && !gone.length) return undefined
  // The store lost them (a restart with fresh data): the pets it counted on are made again, as the run made them.
  const missing = assumed - held.size
  const made = gone.length ? await recreate(transport, spec, gone, missing, facts.status) : 0
  if (made < missing)
    return `the finding assumed the target holds at least ${assumed} pets${where}; it now lists ${pets.length}, and ${made} of the ${missing} missing could be made again`
  notes.push(`recreated ${made} pet${made === 1 ? '' : 's'}${where} the finding counted on (the target had lost them)`)
  return undefined
}

/**
 * Creates `count` pets (of `status` when given) like the ones lost, named as the run named them; resolves to how many
 * the target answered 201 to. Bounded by the lookups a replay makes.
 */
async function recreate(
  transport: Transport,
  spec: Spec,
  lost: JsonValue[],
  count: number,
  status?: string,
): Promise<number> {
  const declared = spec.propertiesOf('NewPet')
  let made = 0
  for (let i = 0; i < Math.min(count, LOOKUPS); i++) {
    const like = lost[i % lost.length]
    // What NewPet declares of the lost pet, fitted to the spec (a required property it lacks at its plain value).
    const kept = isObject(like) ? Object.entries(like).filter(([name]) => Object.hasOwn(declared, name)) : []
    const pet = fitNewPet(spec, Object.fromEntries(kept), '') as Record<string, JsonValue>
    if (!kept.length) pet[labelOf(spec)] = `pcs-replay-${i + 1}`
    if (status !== undefined) pet.status = status
    const exchange = await transport.send({
      operationId: 'createPet',
      method: 'POST',
      path: '/pets',
      body: stringifyJson(pet),
      contentType: 'application/json',
    })
    if (exchange.response?.status !== 201) break
    made++
  }
  return made
}

/** getPet lookups one finding's replay may make at most. */
const LOOKUPS = 120

/** The pets a listPets finding's recorded answer showed. */
function pageAnswered(finding: Finding): JsonValue[] {
  const exchange = finding.exchange
  if (exchange?.operationId !== 'listPets' || exchange.response?.status !== 200) return []
  try {
    const body = parseJson(exchange.response.rawBody)
    return Array.isArray(body) ? body : []
  } catch {
    return []
  }
}
