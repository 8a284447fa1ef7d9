/**
 * A "likeness": what a conformance report observed on a service where the interface is silent, read into the
 * choices a twin of it makes. The stub reads the report as JSON data (report.json of petstore-conformance), never
 * the suite's code; every observation is either adopted or named, with the reason, among those not mimicked.
 */
import { readFileSync } from 'node:fs'
import { packageFile, readTextFile, type Spec } from '../../spec/index.js'
import { inert, isReasonable, readAnswer, showAnswer, type Observed } from './answer.js'
import { idWords, orderWords } from './summary.js'

/** Thrown when a report cannot be the model of a twin: not a report, another kit's, another revision's. */
export class LikeError extends Error {
  override name = 'LikeError'

  constructor(message: string) {
    super(inert(message)) // one line on a terminal, whatever a report hand-edited to be hostile holds
  }
}

/** The parts of report.json (reporters/result.schema.json) a likeness reads. */
export interface ReportData {
  tool: { name: string; version: string }
  target?: { baseUrl?: string }
  specVersion: string
  startedAt?: string
  verdict?: string
  checks?: { id: string; severity: string; outcome: string; title?: string }[]
  observations: { id: string; operationId?: string; subject: string; behaviour: string }[]
}

/** How a twin assigns ids (the stub's own: 1, 2, 3...). */
export type IdScheme = 'beyond-2^53' | 'descending' | 'random' | 'signed'

/** How a twin orders a list: by creation (the stub's), newest first, by id, by id downwards, or scattered. */
export type Order = 'newest-first' | 'by-id' | 'by-id-descending' | 'scattered'

/** What a twin answers to listPets queries the stub refuses: by the exact query the report shows, else `fallback`. */
export interface QueryRule {
  byQuery: Map<string, Observed>
  fallback: Observed
}

/** An answer observed, or `accepted` for a request taken as a valid one. */
export type Taken = Observed | 'accepted'

/** Every choice a twin makes differently from the stub; absent fields keep the stub's own. */
export interface Traits {
  defaultStatus?: string
  ids?: IdScheme
  order?: Order
  /** listPets queries, by the raw query (`limit=0`); `fallback`s by parameter. */
  queries?: { byQuery: Map<string, Observed>; fallback: Map<string, Observed> }
  /** Undeclared NewPet fields: kept and echoed, or refused. `id` refused only when the service refused it. */
  undeclared?: { keep: boolean; refusal?: Observed; idRefusal?: Observed }
  /** Fields every Pet carries beyond the documented ones. */
  extraFields?: string[]
  /** createPet by the request's Content-Type as sent (`no Content-Type` when none). */
  mediaTypes?: Map<string, Taken>
  /** createPet bodies in a form parsers differ on, by the report's words for the form. */
  leeway?: Map<string, Taken>
  /** getPet with a petId that is not an int64 in its plain form. */
  invalidId?: { notInteger?: Observed; beyondInt64?: Observed; spellingsTaken: boolean; spellingRefusal?: Observed }
  /** Undocumented methods, by `METHOD /template` and whether a key came (`METHOD /template without a key`). */
  methods?: Map<string, Observed>
  /** Other spellings of the documented paths, by the report's subject (`GET /pets with a trailing slash`). */
  paths?: Map<string, Observed>
  /** Any other unknown path. */
  unknownPath?: Observed
  /** Error codes: the service's code for a 401 and a 404, and the style of the others. */
  codes?: { unauthorized?: string; notFound?: string; style?: 'upper' | 'numeric' }
  /** A body over the limit: refused with this answer, or taken (the twin's limit is raised to `maxBody`). */
  tooLarge?: Observed
  maxBody?: number
  /** An invalid body over the stub's own limit: refused in these words (a service that reads large bodies). */
  largeInvalid?: Observed
}

/** One choice adopted: which check observed it, on what, and what the twin does. */
export interface Adopted {
  checkId: string
  subject?: string
  choice: string
}

/** One observation the twin does not reproduce, and why. */
export interface NotMimicked {
  checkId: string
  subject?: string
  reason: string
}

/** A report read into a twin's choices, with what was adopted and what was not. */
export interface Likeness {
  source: { tool: string; version: string; specVersion: string; baseUrl?: string; startedAt?: string; verdict?: string }
  traits: Traits
  adopted: Adopted[]
  notMimicked: NotMimicked[]
  /** Said at start: a partial or odd report. */
  warnings: string[]
}

/** The kit's own version, which reads reports of the same major and minor version. */
export const KIT_VERSION: string = (
  JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }
).version

/** The largest body a twin takes when the service took a larger one than the stub would (1 MiB and more). */
const LARGE_MAX_BODY = 2 * 1024 * 1024

/** The observed checks a likeness knows how to read (their ids in report.json). */
const READ = new Set([
  'createPet.status.default',
  'createPet.id-scheme',
  'listPets.ordering',
  'listPets.limit.out-of-range',
  'listPets.status.out-of-range',
  'createPet.unknown-field',
  'pet.extra-fields',
  'createPet.media-type',
  'createPet.json-leeway',
  'getPet.invalid-id',
  'methods.undocumented',
  'paths.variant',
  'createPet.large-body',
  'createPet.name.long',
])

/** Reads a report (a file path, its text parsed, or a likeness already read) against the served spec. Throws LikeError. */
export function readLikeness(source: string | ReportData | Likeness, spec: Spec): Likeness {
  if (typeof source === 'object' && 'traits' in source) return source
  let data: unknown = source
  if (typeof source === 'string') {
    let text: string
    try {
      text = readTextFile(source)
    } catch (error) {
      throw new LikeError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
    try {
      data = JSON.parse(text)
    } catch {
      throw new LikeError(`${source} is not JSON: give the report.json a conformance run wrote`)
    }
  }
  return likenessOf(checkReport(data, typeof source === 'string' ? source : 'the report', spec), spec)
}

/** The report, once it is shown to be one this kit can read, of the spec served. */
function checkReport(data: unknown, where: string, spec: Spec): ReportData {
  const report = data as Partial<ReportData> | null
  if (report === null || typeof report !== 'object' || typeof report.tool?.name !== 'string')
    throw new LikeError(`${where} is not a conformance report: give the report.json petstore-conformance wrote`)
  if (report.tool.name !== 'petstore-conformance')
    throw new LikeError(`${where} was written by ${JSON.stringify(report.tool.name)}, not petstore-conformance`)
  if (typeof report.tool.version !== 'string' || typeof report.specVersion !== 'string')
    throw new LikeError(
      `${where} names no version of its tool or of the interface: give the report.json petstore-conformance wrote`,
    )
  const version = report.tool.version
  if (majorMinor(version) !== majorMinor(KIT_VERSION))
    throw new LikeError(
      `${where} was written by petstore-conformance ${version}; this stub reads reports of ${majorMinor(KIT_VERSION)}.x: run this kit's petstore-conformance against the service again`,
    )
  if (report.checks !== undefined && !Array.isArray(report.checks))
    throw new LikeError(`${where} has checks that are no list: give the report.json petstore-conformance wrote`)
  if (!Array.isArray(report.observations))
    throw new LikeError(`${where} has no observations: run petstore-conformance ${KIT_VERSION} against the service`)
  if (report.specVersion !== spec.version)
    throw new LikeError(
      `${where} judged version ${report.specVersion} of the interface; this stub serves ${spec.version}: give it the same spec (--spec) or run the suite again`,
    )
  return report as ReportData
}

function majorMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.')
}

/** The choices of a report known to be readable. */
function likenessOf(report: ReportData, spec: Spec): Likeness {
  const adopted: Adopted[] = []
  const notMimicked: NotMimicked[] = []
  const warnings: string[] = []
  const traits: Traits = {}
  const adopt = (checkId: string, choice: string, subject?: string) =>
    adopted.push({ checkId, ...(subject ? { subject } : {}), choice })
  const skip = (checkId: string, reason: string, subject?: string) =>
    notMimicked.push({ checkId, ...(subject ? { subject } : {}), reason })

  if (report.verdict === 'incomplete')
    warnings.push('the report is incomplete: choices its run did not reach keep the stub’s own')
  for (const check of report.checks ?? []) {
    if (check === null || typeof check !== 'object' || check.outcome !== 'failed') continue
    if (check.severity === 'fail')
      skip(check.id, 'the service fails this check: its answers there are not copied, the twin stays conformant')
    else if (check.severity === 'advice')
      skip(check.id, 'advice the service does not follow: the twin keeps the good practice')
  }

  // Observations grouped by check, then by subject; truncated lists are said once.
  const byCheck = new Map<string, Map<string, string[]>>()
  for (const o of report.observations) {
    if (typeof o?.id !== 'string' || typeof o.subject !== 'string' || typeof o.behaviour !== 'string') continue
    if (o.behaviour.startsWith('[truncated:')) {
      warnings.push(`${o.id}: ${o.behaviour.slice(1, -1)}; the twin follows the ones listed`)
      continue
    }
    if (o.operationId !== undefined && !Object.hasOwn(spec.operations, o.operationId)) {
      skip(o.id, `operation ${o.operationId} is not in the served spec`, o.subject)
      continue
    }
    if (!READ.has(o.id)) {
      skip(o.id, 'an observation this stub does not know how to reproduce', o.subject)
      continue
    }
    const subjects = byCheck.get(o.id) ?? new Map<string, string[]>()
    subjects.set(o.subject, [...(subjects.get(o.subject) ?? []), o.behaviour])
    byCheck.set(o.id, subjects)
  }
  const one = (id: string): [string, string][] =>
    [...(byCheck.get(id) ?? [])].map(([subject, behaviours]) => [subject, behaviours[0]!])
  /** The answer in `words` when the twin may give it; else says why not. */
  const answerOf = (id: string, subject: string, words: string): Observed | undefined => {
    const answer = readAnswer(words)
    if (answer === undefined) skip(id, `the report's words for the answer (${words}) do not say what to send`, subject)
    else if (!isReasonable(answer))
      skip(id, `${answer.status} is never a reasonable choice: the twin does not copy it`, subject)
    return answer && isReasonable(answer) ? answer : undefined
  }

  // Default status.
  for (const [subject, words] of one('createPet.status.default')) {
    const status = /^status "(.*)"$/.exec(words)?.[1]
    const allowed = spec.propertiesOf('NewPet').status?.enum ?? []
    if (status !== undefined && allowed.includes(status)) {
      traits.defaultStatus = status
      adopt('createPet.status.default', `a NewPet without status gets status "${status}"`, subject)
    } else if (status !== undefined) skip('createPet.status.default', `"${status}" is not a PetStatus`, subject)
    else adopt('createPet.status.default', 'a NewPet without status gets none (as the stub)', subject)
  }

  // Ids, then the order that, with those ids, shows what the report showed.
  const scheme = one('createPet.id-scheme')[0]?.[1]
  let idsAscending = true
  if (scheme !== undefined) {
    if (scheme.startsWith('not monotonic')) traits.ids = scheme.includes('some negative') ? 'signed' : 'random'
    else if (scheme.startsWith('descending')) traits.ids = 'descending'
    else if (scheme.includes('beyond 2^53')) traits.ids = 'beyond-2^53'
    idsAscending = traits.ids === undefined || traits.ids === 'beyond-2^53'
    adopt('createPet.id-scheme', idWords(traits.ids))
  }
  // Every order seen, not only each listing's first: a service whose listings came in different orders has none.
  const orders = new Set(
    [...(byCheck.get('listPets.ordering')?.values() ?? [])].flat().map((words) => words.replace(/ \(.*$/, '')),
  )
  if (orders.size > 1) skip('listPets.ordering', `the service's order varied (${[...orders].join('; ')})`)
  else if (orders.size === 1) {
    const [seen] = orders
    const wanted = seen === 'ascending by id' ? 'up' : seen === 'descending by id' ? 'down' : 'none'
    if (idsAscending) traits.order = wanted === 'up' ? undefined : wanted === 'down' ? 'newest-first' : 'scattered'
    else if (traits.ids === 'descending')
      traits.order = wanted === 'up' ? 'newest-first' : wanted === 'down' ? undefined : 'scattered'
    else traits.order = wanted === 'up' ? 'by-id' : wanted === 'down' ? 'by-id-descending' : undefined
    adopt('listPets.ordering', `lists ${seen}: ${orderWords(traits.order)}`)
  }

  // listPets queries out of range.
  const queries = { byQuery: new Map<string, Observed>(), fallback: new Map<string, Observed>() }
  for (const id of ['listPets.limit.out-of-range', 'listPets.status.out-of-range']) {
    const name = id.split('.')[1]!
    const counts = new Map<string, { answer: Observed; count: number }>()
    for (const [subject, words] of one(id)) {
      const query = /^GET [^?]*\?(.*)$/.exec(subject)?.[1]
      const answer = answerOf(id, subject, words)
      if (query === undefined || answer === undefined) continue
      if (answer.kind !== 'error' && answer.kind !== 'pets') {
        skip(id, `${showAnswer(answer)} is neither a list nor an Error`, subject)
        continue
      }
      queries.byQuery.set(query, answer)
      adopt(id, answer.kind === 'pets' ? 'taken, as a valid value near it' : `refused: ${showAnswer(answer)}`, subject)
      const key = showAnswer(answer)
      counts.set(key, { answer, count: (counts.get(key)?.count ?? 0) + 1 })
    }
    const most = [...counts.values()].sort((a, b) => b.count - a.count)[0]
    if (most) queries.fallback.set(name, most.answer)
  }
  if (queries.byQuery.size) traits.queries = queries

  // Undeclared fields, and fields beyond the documented ones.
  for (const [subject, words] of one('createPet.unknown-field')) {
    const answer = answerOf('createPet.unknown-field', subject, words.replace(/ \(echoed back\)$/, ''))
    if (answer === undefined) continue
    const onlyId = /undescribed field "id"$/.test(subject)
    const undeclared = (traits.undeclared ??= { keep: false })
    if (answer.status >= 400) {
      if (onlyId) undeclared.idRefusal = answer
      else undeclared.refusal = answer
      adopt('createPet.unknown-field', `refused: ${showAnswer(answer)}`, subject)
    } else if (!onlyId && words.endsWith('(echoed back)')) {
      undeclared.keep = true
      adopt('createPet.unknown-field', 'kept and shown in every answer with the pet', subject)
    } else adopt('createPet.unknown-field', onlyId ? 'ignored: the assigned id wins' : 'ignored (as the stub)', subject)
  }
  const declared = new Set(['id', ...Object.keys(spec.propertiesOf('NewPet'))])
  const kept = new Set(
    one('createPet.unknown-field').flatMap(([subject]) => [...subject.matchAll(/"([^"]+)"/g)].map((m) => m[1]!)),
  )
  const extra = new Set<string>()
  for (const [, words] of [...(byCheck.get('pet.extra-fields') ?? [])].flatMap(([s, all]) => all.map((w) => [s, w])))
    for (const name of /^extra fields: (.*)$/.exec(words!)?.[1]?.split(', ') ?? [])
      if (!declared.has(name) && !kept.has(name)) extra.add(name)
  if (extra.size) {
    traits.extraFields = [...extra]
    adopt('pet.extra-fields', `every Pet carries ${[...extra].join(', ')} (values made by the twin)`)
    skip('pet.extra-fields', 'the report names the extra fields, not their values: the twin makes its own')
  }

  // Media types and JSON leeway on createPet.
  for (const [id, prefix] of [
    ['createPet.media-type', 'POST /pets with '],
    ['createPet.json-leeway', 'POST /pets with '],
  ] as const) {
    const table = new Map<string, Taken>()
    for (const [subject, words] of one(id)) {
      const label = subject.startsWith(prefix) ? subject.slice(prefix.length) : subject
      const answer = answerOf(id, subject, words.replace(/^.* -> /, ''))
      if (answer === undefined) continue
      if (answer.status >= 200 && answer.status < 300) table.set(label, 'accepted')
      else table.set(label, answer)
      adopt(id, answer.status < 300 ? 'taken' : `refused: ${showAnswer(answer)}`, subject)
    }
    if (table.size) traits[id === 'createPet.media-type' ? 'mediaTypes' : 'leeway'] = table
  }
  if (traits.leeway?.get('a duplicate key (RFC 8259 §4: names SHOULD be unique)') === 'accepted') {
    traits.leeway.delete('a duplicate key (RFC 8259 §4: names SHOULD be unique)')
    adopted.pop()
    skip(
      'createPet.json-leeway',
      'the service takes a duplicate key; the twin reads JSON without losing int64 digits, which refuses one',
      'POST /pets with a duplicate key (RFC 8259 §4: names SHOULD be unique)',
    )
  }

  // getPet with a petId in another form.
  const invalid = byCheck.get('getPet.invalid-id')
  if (invalid) {
    const rule: NonNullable<Traits['invalidId']> = { spellingsTaken: false }
    for (const [subject, all] of invalid) {
      const answers = all.map((words) => answerOf('getPet.invalid-id', subject, words)).filter((a) => a !== undefined)
      const refusal = answers.find((a) => a.status >= 400 && !(a.status === 404 && a.code === undefined))
      const refusals = new Set(answers.filter((a) => a.status >= 400).map(showAnswer))
      if (refusals.size > 1 && !/another spelling/.test(subject))
        skip(
          'getPet.invalid-id',
          `the service refused these ids in ${refusals.size} ways, by a form the report does not say: the twin answers ${showAnswer(refusal!)}`,
          subject,
        )
      if (subject.endsWith('that is not an integer')) rule.notInteger = refusal
      else if (subject.endsWith('beyond int64')) rule.beyondInt64 = refusal
      else {
        rule.spellingsTaken = answers.some((a) => a.status === 200)
        rule.spellingRefusal = answers.find((a) => a.status >= 400 && a.status !== 404) ?? refusal
      }
      adopt('getPet.invalid-id', answers.map(showAnswer).join('; '), subject)
    }
    traits.invalidId = rule
  }

  // Undocumented methods and other spellings of the paths.
  for (const [id, key] of [
    ['methods.undocumented', 'methods'],
    ['paths.variant', 'paths'],
  ] as const) {
    const table = new Map<string, Observed>()
    for (const [subject, words] of one(id)) {
      const answer = answerOf(id, subject, words)
      if (answer === undefined) continue
      table.set(subject, answer)
      adopt(id, showAnswer(answer), subject)
    }
    if (table.size) traits[key] = table
  }
  // An unknown path is answered as the service answered a path in another letter case, the surest of its 404s.
  const unknown = [...(traits.paths ?? [])].find(
    ([subject, answer]) => / in upper case$/.test(subject) && answer.status === 404,
  )?.[1]
  if (unknown) {
    traits.unknownPath = unknown
    adopt('paths.variant', `any other unknown path: ${showAnswer(unknown)}`)
  }

  // A large body.
  for (const [subject, words] of one('createPet.large-body')) {
    const answer = answerOf('createPet.large-body', subject, words.replace(/^.* -> /, '').replace(/, name .*$/, ''))
    if (answer === undefined) continue
    if (!subject.includes('a valid NewPet')) {
      if (answer.kind === 'error') traits.largeInvalid = answer
      adopt('createPet.large-body', showAnswer(answer), subject)
      continue
    }
    if (answer.status < 300) {
      traits.maxBody = LARGE_MAX_BODY
      adopt('createPet.large-body', `taken: the twin takes bodies up to ${LARGE_MAX_BODY} bytes`, subject)
    } else {
      traits.tooLarge = answer
      adopt('createPet.large-body', `refused: ${showAnswer(answer)}`, subject)
    }
  }
  // A 413 to an invalid body of 1 MiB is the service's size limit speaking before its validation: a valid body of that size
  // meets it too (the report may lack that observation: a service that closes the connection on a large upload may not
  // have let the suite read its answer).
  if (traits.tooLarge === undefined && traits.maxBody === undefined && traits.largeInvalid?.status === 413)
    traits.tooLarge = traits.largeInvalid
  if (byCheck.has('createPet.name.long'))
    skip(
      'createPet.name.long',
      'field size limits are sizes, which the twin does not copy: it takes names up to its body limit',
    )

  // Error codes: the service's own for a 401 and a 404, and the style of all it showed.
  const codes = [...byCheck.values()]
    .flatMap((subjects) => [...subjects.values()].flat())
    .map((words) => readAnswer(words))
    .filter((a): a is Observed => a?.kind === 'error')
  if (codes.length) {
    const style = codes.every((a) => /^[A-Z][A-Z0-9_]*$/.test(a.code!))
      ? 'upper'
      : codes.every((a) => /^E[0-9]{3}$/.test(a.code!))
        ? 'numeric'
        : undefined
    const unauthorized = codes.find((a) => a.status === 401)?.code
    const notFound = [...(byCheck.get('getPet.invalid-id')?.values() ?? [])]
      .flat()
      .map((words) => readAnswer(words))
      .find((a) => a?.status === 404 && a.kind === 'error')?.code
    traits.codes = {
      ...(style ? { style } : {}),
      ...(unauthorized ? { unauthorized } : {}),
      ...(notFound ? { notFound } : {}),
    }
    adopt(
      'error codes',
      [
        style === 'upper'
          ? 'codes in UPPER_CASE'
          : style === 'numeric'
            ? 'codes as E<status>'
            : 'the stub’s code names',
        unauthorized ? `401 code "${unauthorized}"` : '',
        notFound ? `404 code "${notFound}"` : '',
      ]
        .filter(Boolean)
        .join(', '),
    )
    skip('error codes', 'the report shows Error codes, not messages: the twin writes its own messages')
  }
  return {
    source: {
      tool: report.tool.name,
      version: report.tool.version,
      specVersion: report.specVersion,
      // Shown in the start message: text only (a value that is no text, hand-edited in, would throw as it is shown).
      ...(typeof report.target?.baseUrl === 'string' ? { baseUrl: report.target.baseUrl } : {}),
      ...(typeof report.startedAt === 'string' ? { startedAt: report.startedAt } : {}),
      ...(typeof report.verdict === 'string' ? { verdict: report.verdict } : {}),
    },
    traits,
    adopted,
    notMimicked,
    warnings,
  }
}
