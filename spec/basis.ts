/**
 * What documents a behaviour: a JSON pointer into the spec (RFC 6901, `$ref`s followed on the way), or an RFC
 * section for HTTP itself. A check of severity `fail` names one; reports render it from the spec's own words.
 */
import type { OperationId } from './shape.js'
import type { Spec } from './spec.js'

/** What an RFC section says, in one line: the only words of a basis not read from the spec. */
export const RFC_SECTIONS = {
  'RFC 9110 §15.6': '5xx is a server error: the server failed to fulfil an apparently valid request',
  'RFC 9112 §2.1': 'an HTTP message is a start-line, header lines, an empty line and the body the headers announce',
  'RFC 9112 §8': 'a message cut off before its end (a closed connection, a timeout) is incomplete',
  'RFC 9110 §15.5.2': '401 Unauthorized: the server MUST send WWW-Authenticate with at least one challenge',
  'RFC 6750 §3': 'a resource protected by Bearer tokens answers a missing or invalid token with a Bearer challenge',
  'RFC 9110 §11.6.1': 'WWW-Authenticate lists challenges: an auth-scheme with auth-params or a token68',
  'RFC 9110 §11.1': 'the authentication scheme is a case-insensitive token',
  'RFC 9110 §15.5.6': '405 Method Not Allowed: the server MUST send Allow with the methods the resource supports',
  'RFC 9745 §2': 'Deprecation: @<unix-seconds>, when the resource was or will be deprecated',
  'RFC 8594 §3': 'Sunset: the HTTP-date at which the resource is expected to become unresponsive',
  'RFC 9110 §10.2.3': 'Retry-After: how long the client ought to wait before making a follow-up request',
} as const

/** An RFC section a basis may name: `RFC <number> §<section>`, one of {@link RFC_SECTIONS}. */
export type RfcSection = keyof typeof RFC_SECTIONS

/** A JSON pointer into the spec, as a URI fragment: `#/paths/~1pets/get/responses`. */
export type SpecPointer = `#/${string}`

/** One place that documents a behaviour. */
export type BasisRef = { readonly spec: SpecPointer } | { readonly rfc: RfcSection }

/** What documents a behaviour: one place or more. */
export type Basis = readonly [BasisRef, ...BasisRef[]]

/**
 * One place of a basis as reports show it: the reference, the spec's (or the RFC's) words, and the operation and
 * status it speaks of when the pointer lies under one, so a report can show, beside a finding, the lines about it.
 */
export interface BasisLine {
  ref: string
  text: string
  operationId?: OperationId
  status?: string
}

/** `RFC 9110 §15.6`, `RFC 9112 §8.2.1`: the form of an RFC reference. */
export const RFC_REFERENCE = /^RFC [1-9][0-9]{2,4} §[1-9][0-9]*(\.[0-9]+)*$/

/** The pointer (as a URI fragment) to a place of the spec given by its keys, each escaped (`/` as `~1`). */
export function pointer(...keys: (string | number)[]): SpecPointer {
  return `#/${keys.map((k) => String(k).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`
}

/**
 * The documented version prefix (the path of the spec's first server URL that has one, e.g. `/v1`, whether the URL is
 * absolute or a path alone) and the pointer to that URL. A server variable in the path reads as its default; one in
 * the scheme or host stands for anything.
 */
export function versionPrefix(spec: Spec): { prefix: string; pointer: SpecPointer } | undefined {
  const servers: unknown = spec.doc.servers
  if (!Array.isArray(servers)) return undefined
  for (const [index, server] of servers.entries()) {
    const { url, variables } = (server ?? {}) as { url?: unknown; variables?: Record<string, { default?: unknown }> }
    if (typeof url !== 'string') continue
    const written = url.replace(/\{([^}]*)\}/g, (_, name: string) => {
      const value = variables?.[name]?.default
      return typeof value === 'string' && value !== '' ? value : 'x'
    })
    // An absolute URL, one without a scheme (`//host/v1`), or a path alone (`/v1`, relative to the host serving the spec).
    const path = /^(?:[^:/]*:)?\/\/[^/]*(\/.*)?$|^(\/(?!\/).*)$/
      .exec(written)
      ?.slice(1)
      .find(Boolean)
      ?.replace(/\/+$/, '')
    if (path) return { prefix: path, pointer: pointer('servers', index, 'url') }
  }
  return undefined
}

/** The pointer to an operation of the spec, followed by more keys: `#/paths/~1pets/get/responses`. */
export function operationPointer(spec: Spec, operationId: OperationId, ...keys: (string | number)[]): SpecPointer {
  const op = spec.operation(operationId)
  return pointer('paths', op.path, op.method.toLowerCase(), ...keys)
}

/** The pointer to a parameter of an operation, by name, followed by more keys: `#/paths/~1pets/get/parameters/0/schema`. */
export function parameterPointer(
  spec: Spec,
  operationId: OperationId,
  name: string,
  ...keys: (string | number)[]
): SpecPointer {
  const op = spec.operation(operationId)
  const parameters: unknown = spec.doc.paths[op.path][op.method.toLowerCase()].parameters
  const index = Array.isArray(parameters)
    ? parameters.findIndex(
        (p) => isRecord(deref(spec.doc, p)) && (deref(spec.doc, p) as { name?: unknown }).name === name,
      )
    : -1
  if (index === -1) throw new Error(`${operationId} has no parameter ${name} in the spec`)
  return operationPointer(spec, operationId, 'parameters', index, ...keys)
}

/** A basis of these places; throws when there are none (a spec that documents nothing of the kind). */
export function basisOf(refs: readonly BasisRef[]): Basis {
  if (!refs.length) throw new Error('a basis names at least one place')
  return refs as unknown as Basis
}

/** A basis with one spec pointer per documented operation, each followed by the same keys. */
export function everyOperation(spec: Spec, ...keys: (string | number)[]): Basis {
  return basisOf(
    (Object.keys(spec.operations) as OperationId[]).map((op) => ({ spec: operationPointer(spec, op, ...keys) })),
  )
}

/** A basis with one spec pointer per documented response of every operation, each followed by the same keys. */
export function everyResponse(spec: Spec, ...keys: (string | number)[]): Basis {
  return basisOf(
    (Object.keys(spec.operations) as OperationId[]).flatMap((op) =>
      spec.statuses(op).map((status) => ({ spec: operationPointer(spec, op, 'responses', status, ...keys) })),
    ),
  )
}

/** The keys of a pointer, unescaped; undefined when it is not a fragment pointer (`#/...`). */
export function pointerKeys(ref: string): string[] | undefined {
  if (!ref.startsWith('#/')) return undefined
  return ref
    .slice(2)
    .split('/')
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
}

type Node = unknown

/** A JSON object (not null, not an array). */
export const isRecord = (v: Node): v is Record<string, Node> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Follows a local `$ref` (a few levels at most), or returns the node itself. */
function deref(doc: Node, node: Node, depth = 0): Node {
  if (depth > 8 || !isRecord(node) || typeof node.$ref !== 'string') return node
  const target = resolvePointer(doc, node.$ref)
  return target === undefined ? node : deref(doc, target.value, depth + 1)
}

/** The value a pointer names in the document, `$ref`s followed on the way; undefined when it names nothing. */
export function resolvePointer(doc: Node, ref: string): { value: Node } | undefined {
  const keys = pointerKeys(ref)
  if (!keys) return undefined
  let at: Node = doc
  for (const key of keys) {
    if (isRecord(at) && !Object.hasOwn(at, key)) at = deref(doc, at)
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < at.length) at = at[Number(key)]
    else if (isRecord(at) && Object.hasOwn(at, key)) at = at[key]
    else return undefined
  }
  return { value: at }
}

/** `a`, `a and b`, `a, b and c`. */
export function listed(items: readonly unknown[]): string {
  const words = items.map(String)
  return words.length <= 1 ? (words[0] ?? 'nothing') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

/** The first paragraph of a description, on one line, bounded. */
function prose(text: string): string {
  const first = text
    .trim()
    .split(/\n\s*\n/)[0]!
    .replace(/\s+/g, ' ')
  return first.length > 240 ? `${first.slice(0, 239)}…` : first
}

/** Where a pointer lies, in words (`listPets 200 body`, `NewPet.name`, `limit`), and the operation and status under it. */
interface Place {
  label: string
  kind: string
  operationId?: OperationId
  status?: string
}

function placeOf(doc: Node, keys: string[]): { place: Place; value: Node } | undefined {
  let at: Node = doc
  let place: Place = { label: 'the interface', kind: 'root' }
  for (const key of keys) {
    if (isRecord(at) && !Object.hasOwn(at, key)) at = deref(doc, at)
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < at.length) at = at[Number(key)]
    else if (isRecord(at) && Object.hasOwn(at, key)) at = at[key]
    else return undefined
    place = enter(place, key, deref(doc, at))
  }
  return { place, value: at }
}

/** Where a pointer is once it goes one key further. */
function enter(place: Place, key: string, node: Node): Place {
  const named = (label: string, kind: string): Place => ({ ...place, label, kind })
  switch (place.kind) {
    case 'paths':
      return named(key, 'path')
    case 'path':
      return isRecord(node) && typeof node.operationId === 'string'
        ? { label: node.operationId, kind: 'operation', operationId: node.operationId as OperationId }
        : named(key, 'method')
    case 'responses':
      return place.operationId ? { ...named(`${place.label} ${key}`, 'response'), status: key } : named(key, 'response')
    case 'parameters':
      return named(isRecord(node) && typeof node.name === 'string' ? node.name : key, 'parameter')
    case 'schemas':
    case 'headers':
    case 'securitySchemes':
      return named(key, place.kind.slice(0, -1))
    case 'properties':
      return named(`${place.label}.${key}`, 'schema')
    case 'content':
      return named(place.label.endsWith(' body') ? place.label : `${place.label} body`, 'media')
    case 'servers':
      return named('the base address', 'server')
    case 'operation':
      return key === 'requestBody' ? named(`${place.label} request body`, key) : named(place.label, key)
    case 'allOf':
    case 'oneOf':
    case 'anyOf':
      return named(place.label, 'schema')
    default:
      return named(place.label, key)
  }
}

/** A schema in a few words: `Pets (A JSON array of Pet objects…)`, `integer, int64`. */
function describeSchema(doc: Node, schema: Node): string {
  if (isRecord(schema) && typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').at(-1)!
    const target = deref(doc, schema)
    const about = isRecord(target) && typeof target.description === 'string' ? ` (${prose(target.description)})` : ''
    return `${name}${about}`
  }
  if (!isRecord(schema)) return JSON.stringify(schema)
  const parts = [schema.type, schema.format].filter((p) => typeof p === 'string')
  for (const bound of ['minimum', 'maximum', 'default'] as const)
    if (schema[bound] !== undefined) parts.push(`${bound} ${JSON.stringify(schema[bound])}`)
  if (Array.isArray(schema.enum)) parts.push(`one of ${listed(schema.enum)}`)
  return parts.length ? parts.join(', ') : 'a schema'
}

/** The words of the spec at a pointer, e.g. `listPets documents 200 and 401`, `NewPet requires name and categoryId`. */
export function describePointer(doc: Node, ref: string): Omit<BasisLine, 'ref'> | undefined {
  const keys = pointerKeys(ref)
  if (!keys) return undefined
  const found = placeOf(doc, keys)
  if (!found) return undefined
  const { place } = found
  const value = deref(doc, found.value)
  const key = keys.at(-1) ?? ''
  const { label } = place
  const text = ((): string => {
    if (key === 'responses' && isRecord(value)) return `${label} documents ${listed(Object.keys(value))}`
    if (key === 'required' && Array.isArray(value)) return `${label} requires ${listed(value)}`
    if (key === 'required' && value === true) return `${label} is required`
    if (key === 'enum' && Array.isArray(value)) return `${label}: one of ${listed(value)}`
    if (key === 'description' || key === 'summary') return `${label}: ${prose(String(value))}`
    if (key === 'deprecated') return value === true ? `${label} is deprecated` : `${label} is not deprecated`
    if (key === 'security' && Array.isArray(value))
      return `${label} requires ${listed(value.flatMap((s) => (isRecord(s) ? Object.keys(s) : [])))}${schemeWords(doc, value)}`
    if (key === 'content' && isRecord(value)) return `${label}: ${listed(Object.keys(value))}`
    if (key === 'headers' && isRecord(value)) return `${label} headers: ${listed(Object.keys(value))}`
    if (key === 'parameters' && Array.isArray(value))
      return `${label} parameters: ${listed(value.map((p) => describeParameter(doc, p)))}`
    if (key === 'schema') return `${label}: ${describeSchema(doc, found.value)}`
    if (key === 'requestBody' && isRecord(value)) return `${label}: ${describeBody(doc, value)}`
    // A media type of a body: the schema it carries, in words (never its examples, dumped).
    if (place.kind === 'media' && isRecord(value) && value.schema !== undefined)
      return `${label} as ${key}: ${schemaRequires(doc, value.schema)}`
    if (key === 'examples' && isRecord(value)) return `${label}: examples ${listed(Object.keys(value))}`
    if (isRecord(value) && keys.at(-2) === 'examples')
      return `${label}: example ${key}${typeof value.summary === 'string' ? ` (${prose(value.summary)})` : ''}`
    if (!isRecord(value) && !Array.isArray(value)) return `${label}: ${key} ${String(value)}`
    if (isRecord(value) && place.kind === 'operation' && typeof value.summary === 'string')
      return `${label}: ${prose(value.summary)}`
    if (isRecord(value) && place.kind === 'securityScheme')
      return `${label}: ${value.type} ${value.scheme ?? ''}`.trim()
    if (isRecord(value) && typeof value.description === 'string') return `${label}: ${prose(value.description)}`
    // Nothing to say in words: the place alone (reports give the pointer beside it), never a dump of the spec.
    return label
  })()
  return {
    text,
    ...(place.operationId ? { operationId: place.operationId } : {}),
    ...(place.status ? { status: place.status } : {}),
  }
}

function describeParameter(doc: Node, parameter: Node): string {
  const p = deref(doc, parameter)
  if (!isRecord(p)) return 'a parameter'
  const schema = p.schema
  // A named schema by its name only: its description would nest in the parentheses.
  const about =
    isRecord(schema) && typeof schema.$ref === 'string' ? schema.$ref.split('/').at(-1) : describeSchema(doc, schema)
  return `${String(p.name)} (${about})`
}

function describeBody(doc: Node, body: Record<string, Node>): string {
  const content = isRecord(body.content) ? body.content : {}
  const schemas: Node[] = []
  const media = Object.entries(content).map(([type, m]) => {
    const schema = isRecord(m) ? m.schema : undefined
    const name = isRecord(schema) && typeof schema.$ref === 'string' ? schema.$ref.split('/').at(-1) : 'a body'
    if (schema !== undefined && !schemas.some((s) => JSON.stringify(s) === JSON.stringify(schema))) schemas.push(schema)
    return `${name} as ${type}`
  })
  const required = schemas.map((schema) => requiredWords(doc, schema)).filter(Boolean)
  return `${listed(media)}${body.required === true ? ', required' : ''}${required.length ? `; ${required.join('; ')}` : ''}`
}

/** `NewPet requires name and categoryId`, or undefined when the schema requires nothing. */
function requiredWords(doc: Node, schema: Node): string | undefined {
  const target = deref(doc, schema)
  if (!isRecord(target) || !Array.isArray(target.required) || !target.required.length) return undefined
  const name = isRecord(schema) && typeof schema.$ref === 'string' ? schema.$ref.split('/').at(-1) : 'it'
  return `${name} requires ${listed(target.required)}`
}

/** A body's schema in words: `NewPet, which requires name and categoryId`, or the schema described. */
function schemaRequires(doc: Node, schema: Node): string {
  const required = requiredWords(doc, schema)
  const name = isRecord(schema) && typeof schema.$ref === 'string' ? schema.$ref.split('/').at(-1)! : undefined
  if (name && required) return `${name}, which ${required.slice(name.length + 1)}`
  return describeSchema(doc, schema)
}

function schemeWords(doc: Node, security: Node[]): string {
  const schemes = isRecord(doc) && isRecord(doc.components) ? doc.components.securitySchemes : undefined
  const names = security.flatMap((s) => (isRecord(s) ? Object.keys(s) : []))
  const words = names.flatMap((name) => {
    const scheme = isRecord(schemes) ? schemes[name] : undefined
    if (!isRecord(scheme)) return []
    return [typeof scheme.description === 'string' ? prose(scheme.description) : `${scheme.type} ${scheme.scheme}`]
  })
  return words.length ? ` (${words.join('; ')})` : ''
}

/**
 * A basis as reports show it: each place with its words, read from this spec (a pointer this revision of the spec
 * lacks says so), or the RFC section's line.
 */
export function renderBasis(spec: Spec, basis: readonly BasisRef[]): BasisLine[] {
  return basis.map((ref): BasisLine => {
    if ('rfc' in ref) return { ref: ref.rfc, text: `${ref.rfc}: ${RFC_SECTIONS[ref.rfc] ?? 'an RFC section'}` }
    const described = describePointer(spec.doc, ref.spec)
    return described ? { ref: ref.spec, ...described } : { ref: ref.spec, text: `${ref.spec}: not in this spec` }
  })
}

/**
 * The lines of a basis that speak of one finding: those about its operation (or about none), and among them, when
 * some speak of the status it got, those and the ones about no status.
 */
export function basisFor(
  lines: readonly BasisLine[],
  about: { operationId?: string | undefined; status?: number | string | undefined },
): BasisLine[] {
  const forOperation =
    about.operationId === undefined
      ? [...lines]
      : lines.filter((l) => !l.operationId || l.operationId === about.operationId)
  const status = about.status === undefined ? undefined : String(about.status)
  const forStatus = forOperation.filter((l) => l.status === undefined || l.status === status)
  const chosen = status !== undefined && forStatus.some((l) => l.status !== undefined) ? forStatus : forOperation
  return chosen.length ? chosen : [...lines]
}
