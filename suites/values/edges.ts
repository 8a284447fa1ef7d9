/**
 * The coverage phase's values: one table from schema keyword to the values at its edge and just past it, walked over
 * NewPet's schema at any depth ($refs resolved, allOf parts, anyOf and oneOf alternatives, type lists, nested objects
 * and arrays of them). Each case changes one place of a plain valid NewPet and names the keyword and the JSON pointer
 * it tests; the judged spec's own validator confirms each one, so a case it disagrees with is never sent.
 */
import fc from 'fast-check'
import { stringifyJson, type JsonValue, type Spec } from '../../spec/index.js'
import { integerBounds, sampleNewPet, sampleValue, samplesOf, textOfLength, type PropertySchema } from './valid.js'

/** Whether the judged spec takes a case's body. */
export type Expected = 'ok' | 'refused'

/** One value of a keyword's edge, before it is placed: `absent` leaves the place out (a required property). */
interface Edge {
  expect: Expected
  /** What the value is, e.g. `6 items, one over maxItems 5`. */
  what: string
  value?: JsonValue
  absent?: true
}

/** One case of the coverage phase: a valid NewPet with one place changed. */
export interface EdgeCase {
  keyword: string
  /** The keyword's place in the spec, e.g. `#/components/schemas/NewPet/properties/tags/maxItems`. */
  pointer: string
  /** Where in the NewPet the value goes, a JSON pointer (`/owner/email`; empty for the body itself). */
  at: string
  expect: Expected
  /** The keyword, the pointer and the value, in one line: what a finding on this case says. */
  why: string
  body: { [property: string]: JsonValue }
}

/** A schema node as the walk reads it: the keywords of {@link PropertySchema}, and the few more it acts on. */
type Node = PropertySchema & {
  $ref?: string
  allOf?: Record<string, unknown>[]
  additionalProperties?: unknown
  nullable?: boolean
}

/** What an edge function may read besides the keyword's own value. */
interface At {
  schema: Node
  spec: Spec
  /** The schema's place in the spec. */
  pointer: string
  /** Distinct valid values of the array's items (for minItems, maxItems and uniqueItems). */
  items: (n: number) => JsonValue[] | undefined
}

const ok = (what: string, value: JsonValue): Edge => ({ expect: 'ok', what, value })
const refused = (what: string, value: JsonValue): Edge => ({ expect: 'refused', what, value })
const show = (value: JsonValue) =>
  typeof value === 'string' && value.length > 24 ? `${value.length} characters` : stringifyJson(value)

const characters = (n: number) => (n === 1 ? 'character' : 'characters')
const itemsWord = (n: number) => (n === 1 ? 'item' : 'items')

/** For each JSON type, the nearest value of another type (a number's digits as a string, and so on). */
const OTHER_TYPE: Record<string, JsonValue> = {
  string: 1,
  integer: '1',
  number: '1',
  boolean: 'true',
  array: { value: 1 },
  object: [1],
}

/** Valid and invalid texts of each format (ajv-formats' reading; int32 and int64 are integer bounds, see `minimum`). */
const FORMATS: Record<string, { valid: string[]; invalid: string[] }> = {
  date: { valid: ['2024-02-29', '1999-12-31'], invalid: ['2023-02-29', '2023-13-01', 'x', '12345'] },
  'date-time': {
    valid: ['2024-02-29T23:59:59Z', '1999-12-31T00:00:00+01:00'],
    invalid: ['2023-02-29T00:00:00Z', '2024-01-01', 'x'],
  },
  time: { valid: ['23:59:59Z'], invalid: ['24:00:01Z', 'x'] },
  email: { valid: ['a@example.com'], invalid: ['x', 'a@', '@example.com'] },
  uuid: {
    valid: ['123e4567-e89b-12d3-a456-426614174000'],
    invalid: ['123e4567-e89b-12d3-a456-42661417400', 'x', '12345'],
  },
  uri: { valid: ['https://example.com/a?b=1'], invalid: ['x', '12345'] },
  hostname: { valid: ['example.com'], invalid: ['-x-.com', 'a b'] },
  ipv4: { valid: ['192.0.2.1'], invalid: ['256.0.0.1', 'x'] },
  ipv6: { valid: ['2001:db8::1'], invalid: ['2001:db8:::1', 'x'] },
}

/** The JSON types a schema's `type` names (and null where OpenAPI 3.0's `nullable` adds it). */
function typesOf(schema: Node): string[] {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type]
  return schema.nullable === true && !types.includes('null') ? [...types, 'null'] : types
}

/** The smallest and largest integers a schema takes that are multiples of its `multipleOf` (when it has one). */
function integerRange(schema: Node): { low: bigint; high: bigint; step: bigint } {
  const { min, max } = integerBounds(schema)
  const step = Number.isInteger(schema.multipleOf) && schema.multipleOf! > 1 ? BigInt(schema.multipleOf!) : 1n
  const floorDiv = (a: bigint) => (a >= 0n ? a / step : -((-a + step - 1n) / step))
  return { low: -floorDiv(-min) * step, high: floorDiv(max) * step, step }
}

/** Which keyword sets an integer's lower or upper edge: the bound it declares, else its format's range. */
function boundKeyword(schema: Node, side: 'min' | 'max'): string | undefined {
  const [inclusive, exclusive] = side === 'min' ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum']
  const own = schema as Record<string, unknown>
  if (typeof own[exclusive] === 'number') return exclusive
  if (typeof own[inclusive] === 'number') return inclusive
  return schema.format === 'int32' || schema.format === 'int64' ? 'format' : undefined
}

/** Integer edges: each bound (or format range) at its value and one step beyond, multiples kept to `multipleOf`. */
function integerEdges(side: 'min' | 'max', at: At): Edge[] {
  if (!typesOf(at.schema).includes('integer')) return []
  const { low, high, step } = integerRange(at.schema)
  if (low > high) return []
  const keyword = boundKeyword(at.schema, side)
  const [edge, beyond] = side === 'min' ? [low, low - step] : [high, high + step]
  return [ok(`${edge}, at its ${keyword}`, edge), refused(`${beyond}, just beyond its ${keyword}`, beyond)]
}

/** Number (not integer) edges: the bound itself, and one beyond it. */
function numberEdges(schema: Node, keyword: string): Edge[] {
  if (!typesOf(schema).includes('number') || typesOf(schema).includes('integer')) return []
  const bound = (schema as Record<string, number>)[keyword]!
  const lower = keyword.endsWith('inimum')
  const exclusive = keyword.startsWith('exclusive')
  const inside = exclusive ? bound + (lower ? 0.5 : -0.5) : bound
  const outside = exclusive ? bound : bound + (lower ? -0.5 : 0.5)
  return [
    ok(`${inside}, inside its ${keyword} ${bound}`, inside),
    refused(`${outside}, outside its ${keyword} ${bound}`, outside),
  ]
}

/** A text of a schema's pattern and length bounds, fast-check writing it (a fixed seed, so every run sends the same). */
function patternSample(schema: Node): string | undefined {
  const min = schema.minLength ?? 0
  const max = schema.maxLength ?? Infinity
  const fits = (t: string) => [...t].length >= min && [...t].length <= max
  return fc.sample(fc.stringMatching(new RegExp(schema.pattern!, 'u')), { numRuns: 64, seed: 7 }).find(fits)
}

/**
 * Keyword to edges: the values at each rule's bound and just past it, computed from the keyword's value alone. A new
 * keyword is one row here. Rows that need a string, integer or array act only where the schema's type takes one.
 */
const EDGES: Record<string, (value: any, at: At) => Edge[]> = {
  type: (_: unknown, { schema }) => {
    const types = typesOf(schema)
    if (!types.length) return []
    const wrong = types.includes('null') ? [] : [refused('null, of no type it allows', null)]
    const other = OTHER_TYPE[types.find((t) => t !== 'null')!]
    if (other !== undefined)
      wrong.push(refused(`${stringifyJson(other)}, of another type than ${types.join(' or ')}`, other))
    if (types.includes('integer') && !types.includes('number')) wrong.push(refused('1.5, a fraction', 1.5))
    return [...(types.includes('null') ? [ok('null, which its type allows', null)] : []), ...wrong]
  },
  nullable: (nullable: boolean) => (nullable ? [ok('null, which nullable allows', null)] : []),
  enum: (values: JsonValue[]) => {
    const near = values
      .filter((v): v is string => typeof v === 'string')
      .map((v) => (v.toUpperCase() !== v ? v.toUpperCase() : `${v}x`))
    return [
      ...values.map((v) => ok(`${show(v)}, one of its values`, v)),
      ...near
        .slice(0, 1)
        .filter((v) => !values.includes(v))
        .map((v) => refused(`${show(v)}, none of its values`, v)),
    ]
  },
  const: (value: JsonValue) => [ok(`${show(value)}, its constant`, value)],
  minimum: (_: number, at) =>
    typesOf(at.schema).includes('integer') ? integerEdges('min', at) : numberEdges(at.schema, 'minimum'),
  maximum: (_: number, at) =>
    typesOf(at.schema).includes('integer') ? integerEdges('max', at) : numberEdges(at.schema, 'maximum'),
  exclusiveMinimum: (_: number, at) =>
    typesOf(at.schema).includes('integer') ? integerEdges('min', at) : numberEdges(at.schema, 'exclusiveMinimum'),
  exclusiveMaximum: (_: number, at) =>
    typesOf(at.schema).includes('integer') ? integerEdges('max', at) : numberEdges(at.schema, 'exclusiveMaximum'),
  multipleOf: (step: number, { schema }) => {
    if (!typesOf(schema).includes('integer') || !Number.isInteger(step) || step < 2) return []
    const { low, high } = integerRange(schema)
    if (low > high) return []
    const multiple = low + BigInt(step) <= high ? low + BigInt(step) : low
    return [
      ok(`${multiple}, a multiple of ${step}`, multiple),
      refused(`${multiple + 1n}, no multiple of ${step}`, multiple + 1n),
    ]
  },
  minLength: (n: number, { schema }) =>
    !typesOf(schema).includes('string') || schema.pattern !== undefined || schema.format !== undefined
      ? []
      : [
          ok(`${n} ${characters(n)}, at its minLength`, textOfLength(n)),
          ...(n > 0
            ? [refused(`${n - 1} ${characters(n - 1)}, one under its minLength ${n}`, textOfLength(n - 1))]
            : []),
        ],
  maxLength: (n: number, { schema }) =>
    !typesOf(schema).includes('string') || schema.pattern !== undefined || schema.format !== undefined
      ? []
      : [
          ok(`${n} ${characters(n)}, at its maxLength`, textOfLength(n)),
          refused(`${n + 1} ${characters(n + 1)}, one over its maxLength ${n}`, textOfLength(n + 1)),
        ],
  pattern: (pattern: string, { schema }) => {
    if (!typesOf(schema).includes('string')) return []
    const sample = patternSample(schema)
    if (sample === undefined) return []
    const matches = (t: string) => new RegExp(pattern, 'u').test(t)
    // Just past the pattern: one character short, one too many, then texts of another shape.
    const misses = [sample.slice(0, -1), sample + sample.slice(-1), 'x', '12345'].filter((t) => !matches(t))
    return [
      ok(`${show(sample)}, matching ${pattern}`, sample),
      ...misses.slice(0, 2).map((t) => refused(`${show(t)}, not matching ${pattern}`, t)),
    ]
  },
  format: (format: string, at) => {
    const { schema } = at
    // An integer format's range is its bounds where the schema declares none of its own.
    if (format === 'int32' || format === 'int64')
      return (['min', 'max'] as const).flatMap((side) =>
        boundKeyword(schema, side) === 'format' ? integerEdges(side, at) : [],
      )
    const texts = FORMATS[format]
    if (!texts || !typesOf(schema).includes('string')) return []
    return [
      ...texts.valid.slice(0, 1).map((t) => ok(`${show(t)}, a valid ${format}`, t)),
      ...texts.invalid.map((t) => refused(`${show(t)}, no valid ${format}`, t)),
    ]
  },
  minItems: (n: number, at) => {
    const items = at.items(n)
    const fewer = n > 0 ? at.items(n - 1) : undefined
    return [
      ...(items ? [ok(`${n} ${itemsWord(n)}, at its minItems`, items)] : []),
      ...(fewer ? [refused(`${n - 1} ${itemsWord(n - 1)}, one under its minItems ${n}`, fewer)] : []),
    ]
  },
  maxItems: (n: number, at) => {
    const items = at.items(n)
    const more = at.schema.uniqueItems ? at.items(n + 1) : items && [...items, items[0] ?? null]
    return [
      ...(items ? [ok(`${n} ${itemsWord(n)}, at its maxItems`, items)] : []),
      ...(more && more.length === n + 1
        ? [refused(`${n + 1} ${itemsWord(n + 1)}, one over its maxItems ${n}`, more)]
        : []),
    ]
  },
  uniqueItems: (unique: boolean, at) => {
    const [item] = at.items(1) ?? []
    return unique && item !== undefined ? [refused('the same item twice', [item, item])] : []
  },
  additionalProperties: (allowed: unknown, { pointer }) =>
    allowed === false
      ? [
          refused(`with the field "undeclared", which ${pointer} does not declare and is closed to`, {
            undeclared: 'x',
          }),
        ]
      : [],
}

/** Keywords whose edge value is merged into the object at the place rather than replacing it. */
const MERGED = new Set(['additionalProperties'])

/** Where `path` points in `body`, set to `value` (or left out): a copy, every object and array on the way copied. */
function placed(body: JsonValue, path: (string | number)[], edge: Edge, merge: boolean): JsonValue {
  if (path.length === 0) {
    if (merge && body !== null && typeof body === 'object' && !Array.isArray(body) && typeof edge.value === 'object')
      return { ...body, ...(edge.value as object) }
    return edge.value!
  }
  const [key, ...rest] = path
  if (Array.isArray(body)) {
    const copy = body.slice()
    copy[key as number] = placed(copy[key as number]!, rest, edge, merge)
    return copy
  }
  const object = { ...(body as { [key: string]: JsonValue }) }
  if (rest.length === 0 && edge.absent) delete object[key as string]
  else object[key as string] = placed(object[key as string]!, rest, edge, merge)
  return object
}

/** Escapes one reference token of a JSON pointer (RFC 6901). */
const token = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1')

/** One place of the walk: the schema there, its pointer in the spec, and where it sits in the NewPet. */
interface Place {
  node: Node
  pointer: string
  path: (string | number)[]
  depth: number
}

/**
 * Every edge case of NewPet's schema in the judged spec, confirmed by its validator: a case whose body the validator
 * judges otherwise than the keyword's row says is left out (another keyword of the place decides it), so the suite
 * never expects a refusal the spec does not make. Each body is a plain valid NewPet with one place changed.
 */
export function bodyEdges(spec: Spec): EdgeCase[] {
  let cases = EDGE_CASES.get(spec)
  if (!cases) EDGE_CASES.set(spec, (cases = walk(spec)))
  return cases
}

/** Each spec's edge cases, walked once (the walk draws samples and validates every case). */
const EDGE_CASES = new WeakMap<Spec, EdgeCase[]>()

function walk(spec: Spec): EdgeCase[] {
  const base = sampleNewPet(spec)
  const validate = spec.schema('NewPet')
  if (validate(base).length > 0) return [] // no valid NewPet to change one place of
  const cases: EdgeCase[] = []
  const seen = new Set<string>()
  let body: JsonValue = base

  const visit = ({ node: raw, pointer, path, depth }: Place): void => {
    if (depth > 6 || raw === null || typeof raw !== 'object') return
    if (typeof raw.$ref === 'string') {
      visit({ node: spec.resolve(raw), pointer: raw.$ref, path, depth: depth + 1 })
      return
    }
    const node = raw
    const items = (n: number) => {
      const values = samplesOf(spec.resolve(node.items ?? {}) as PropertySchema, spec, n)
      return values.length >= n ? values.slice(0, n) : undefined
    }
    const at: At = { schema: node, spec, pointer, items }
    for (const [keyword, row] of Object.entries(EDGES)) {
      const value = (node as Record<string, unknown>)[keyword]
      if (value === undefined) continue
      for (const edge of row(value, at)) add(keyword, `${pointer}/${token(keyword)}`, path, edge)
    }
    const container = path.reduce<JsonValue | undefined>(
      (v, key) => (v === null || typeof v !== 'object' ? undefined : (v as Record<string, JsonValue>)[key]),
      body,
    )
    // Nested places: each declared property (set to its plain value where the base leaves it out), each required one
    // left out, the items of an array (one item at least), each allOf part and each alternative.
    if (node.properties && container !== null && typeof container === 'object' && !Array.isArray(container)) {
      for (const name of node.required ?? [])
        if (name in node.properties)
          add('required', `${pointer}/required`, [...path, name], {
            expect: 'refused',
            what: `without ${name}, which it requires`,
            absent: true,
          })
      for (const [name, member] of Object.entries(node.properties)) {
        const outer = body
        if (!Object.hasOwn(container, name))
          body = placed(
            body,
            [...path, name],
            { expect: 'ok', what: '', value: sampleValue(spec.resolve(member) as PropertySchema, spec) },
            false,
          )
        if (validate(body).length === 0)
          visit({
            node: member as Node,
            pointer: `${pointer}/properties/${token(name)}`,
            path: [...path, name],
            depth: depth + 1,
          })
        body = outer
      }
    }
    if (node.items && Array.isArray(container)) {
      const outer = body
      if (container.length === 0) {
        const [item] = items(1) ?? []
        if (item !== undefined) body = placed(body, path, { expect: 'ok', what: '', value: [item] }, false)
      }
      if (validate(body).length === 0)
        visit({ node: node.items as Node, pointer: `${pointer}/items`, path: [...path, 0], depth: depth + 1 })
      body = outer
    }
    for (const group of ['allOf', 'anyOf', 'oneOf'] as const)
      for (const [i, part] of ((node as Record<string, unknown>)[group] as Node[] | undefined)?.entries() ?? [])
        visit({ node: part, pointer: `${pointer}/${group}/${i}`, path, depth: depth + 1 })
  }

  const add = (keyword: string, pointer: string, path: (string | number)[], edge: Edge) => {
    const changed = placed(body, path, edge, MERGED.has(keyword)) as { [property: string]: JsonValue }
    const key = `${edge.expect} ${stringifyJson(changed)}`
    if (seen.has(key)) return
    // The validator has the last word: a case it judges otherwise is not this keyword's to send.
    if ((validate(changed).length === 0) !== (edge.expect === 'ok')) return
    seen.add(key)
    const where = path.map((key) => `/${token(key)}`).join('')
    cases.push({
      keyword,
      pointer,
      at: where,
      expect: edge.expect,
      why: `${where || 'the body'} ${edge.what} (${keyword}, ${pointer})`,
      body: changed,
    })
  }

  visit({
    node: spec.doc.components.schemas.NewPet as Node,
    pointer: '#/components/schemas/NewPet',
    path: [],
    depth: 0,
  })
  return cases
}

/** A query parameter's value at a documented edge: each bound of an integer, each value of an enumeration. */
export interface QueryEdge {
  name: string
  value: string
  why: string
}

/**
 * The values at the documented edges of each query parameter of an operation: an integer's bounds (kept to its
 * `multipleOf`), each enumerated value. Only values inside: what lies outside is not documented (each operation's
 * out-of-range values are sent, and observed, by the listing scenarios).
 */
export function queryEdges(spec: Spec, operationId: 'listPets'): QueryEdge[] {
  const edges: QueryEdge[] = []
  for (const [name, p] of Object.entries(spec.operation(operationId).parameters)) {
    if (p.in !== 'query') continue
    if (p.type === 'integer' && p.minimum !== undefined && p.maximum !== undefined) {
      const step = p.multipleOf ?? 1
      const low = Math.ceil(p.minimum / step) * step
      const high = Math.floor(p.maximum / step) * step
      if (low <= high)
        for (const [value, bound] of [
          [low, 'minimum'],
          [high, 'maximum'],
        ] as const)
          edges.push({ name, value: String(value), why: `${name}=${value}, at its ${bound}` })
    }
    for (const value of p.enum ?? []) edges.push({ name, value, why: `${name}=${value}, one of its values` })
  }
  return edges
}
