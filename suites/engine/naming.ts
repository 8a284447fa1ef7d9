/**
 * Run naming: the prefix a run marks its pets with, a label fitted to the judged spec's schema, and bodies marked so
 * that a pet stored from them can be traced to the run.
 */
import { stringifyJson, type JsonValue, type Spec } from '../../spec/index.js'
import {
  codePoints,
  integerBounds,
  labelOf,
  sampleNewPet,
  sampleValue,
  type InvalidBody,
  type PropertySchema,
} from '../values/index.js'

/**
 * A NewPet a scenario wrote by hand, made to fit the judged spec: each required property it lacks at its plain value
 * (a revision may require one more); an integer past a revision's bounds wrapped into them, and a value outside a
 * revision's enumeration replaced by its first value; and its label, when it carries the run's `prefix`, fitted to
 * the label's maxLength and pattern ({@link fitLabel}).
 */
export function fitNewPet(spec: Spec, body: JsonValue, prefix: string): JsonValue {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body
  const properties = spec.propertiesOf('NewPet') as Record<string, PropertySchema>
  const fitted: { [property: string]: JsonValue } = { ...body }
  let changed = false
  const set = (name: string, value: JsonValue) => {
    fitted[name] = value
    changed = true
  }
  for (const name of spec.requiredOf('NewPet'))
    if (!Object.hasOwn(body, name) && properties[name]) set(name, sampleValue(properties[name], spec))
  for (const [name, value] of Object.entries(body)) {
    const schema = properties[name]
    if (schema?.enum && !schema.enum.some((allowed) => allowed === value)) set(name, schema.enum[0]!)
    else if (schema?.type === 'integer' && (typeof value === 'bigint' || Number.isInteger(value))) {
      const { min, max } = integerBounds(schema)
      const n = BigInt(value as bigint | number)
      const span = max - min + 1n
      if (n < min || n > max) set(name, min + ((((n - min) % span) + span) % span))
    }
  }
  const label = labelOf(spec)
  // A value of another type than the revision gives its property (a categoryId that became a uuid) takes its plain one.
  for (const [name, value] of Object.entries(fitted))
    if (name !== label && properties[name] && !propertyTakes(spec, name, value))
      set(name, sampleValue(properties[name], spec))
  const value = fitted[label]
  if (typeof value === 'string' && value.startsWith(prefix)) {
    const text = fitLabel(spec, prefix, value.slice(prefix.length))
    if (text !== undefined) set(label, text)
  }
  return changed ? fitted : body
}

/** True when the judged spec takes `text` as the label (every other property at its plain value). */
function labelTakes(spec: Spec, text: string): boolean {
  return spec.schema('NewPet')({ ...plainOf(spec), [labelOf(spec)]: text }).length === 0
}

/** True when the judged spec takes `value` as the property `name` (every other property at its plain value). */
function propertyTakes(spec: Spec, name: string, value: JsonValue): boolean {
  const plain = plainOf(spec)
  const validate = spec.schema('NewPet')
  // When the plain NewPet itself is refused (a label pattern it misses), no property can be told apart: all are taken.
  return validate(plain).length > 0 || validate({ ...plain, [name]: value }).length === 0
}

/** Each spec's plain NewPet, made once. */
const PLAIN = new WeakMap<Spec, { [property: string]: JsonValue }>()

function plainOf(spec: Spec): { [property: string]: JsonValue } {
  let plain = PLAIN.get(spec)
  if (!plain) PLAIN.set(spec, (plain = sampleNewPet(spec)))
  return plain
}

/**
 * `prefix + rest` as a label the spec takes: as it is when it does; else cut to the label's maxLength (the end of
 * what fits replaced by a digest of the whole rest, so distinct labels stay distinct), and, for a pattern that takes
 * only letters, with the rest written in letters. `undefined` when it is to stay as it is: it fits, or nothing does.
 * (Compared by how it was made, not as text: a label may be a megabyte long.)
 */
function fitLabel(spec: Spec, prefix: string, rest: string): string | undefined {
  const schema = (spec.propertiesOf('NewPet') as Record<string, PropertySchema>)[labelOf(spec)]
  const max = schema?.maxLength
  if (max === undefined && schema?.pattern === undefined) return undefined // any text will do
  const room = max === undefined ? Infinity : max - codePoints(prefix)
  if (codePoints(rest) <= room && labelTakes(spec, prefix + rest)) return undefined
  const digest = lettersOf(fnv1a(rest).toString(36)).padStart(7, 'a')
  const cut = (text: string) => {
    if (codePoints(text) <= room) return prefix + text
    // Where the whole digest does not fit, its last letters, which vary the most.
    return prefix + (room > 7 ? firstCodePoints(text, room - 7) + digest : digest.slice(7 - Math.max(0, room)))
  }
  for (const text of [rest, lettersOf(rest), lettersOf(rest).toUpperCase()]) {
    const label = cut(text)
    if (labelTakes(spec, label)) return label
  }
  return undefined
}

/** The first `count` code points of a text (a surrogate pair is one), without splitting it into characters. */
function firstCodePoints(text: string, count: number): string {
  let end = 0
  for (let n = 0; n < count && end < text.length; n++) {
    const unit = text.charCodeAt(end)
    const next = text.charCodeAt(end + 1) // NaN past the end
    end += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1
  }
  return text.slice(0, end)
}

/** `text` in lower-case letters only: letters kept (lower-cased), digits as `a` to `j`, anything else as `x`. */
function lettersOf(text: string): string {
  return text.replace(/[^a-z]/gi, (c) =>
    /[0-9]/.test(c) ? String.fromCharCode(97 + Number(c)) : /[A-Z]/.test(c) ? c.toLowerCase() : 'x',
  )
}

/**
 * The prefix a run names its pets with, so they can be told apart on a shared target: `pcs-<runId>-`, or, when the
 * judged spec's label refuses it, the first plainer form it takes (the run id in letters, lower, capitalised or upper
 * case), cut down when the label's maxLength leaves too little room after it.
 */
export function runPrefix(spec: Spec, runId: string): string {
  const standard = `pcs-${runId}-`
  const max = (spec.propertiesOf('NewPet') as Record<string, PropertySchema>)[labelOf(spec)]?.maxLength
  const letters = lettersOf(runId)
  const capitalised = letters.charAt(0).toUpperCase() + letters.slice(1)
  const forms =
    max !== undefined && standard.length + 6 > max
      ? [runId, letters, capitalised, letters.toUpperCase()].map((form) => form.slice(0, shortPrefixLength(max)))
      : [standard, `pcs${letters}`, `Pcs${letters}`, `PCS${letters.toUpperCase()}`]
  const found = forms.find((form) => labelTakes(spec, `${form}xx`) || labelTakes(spec, `${form}XX`))
  // A label too short for any mark of the run (a maxLength of 2, say) carries none: its pets are still told apart by id.
  return found ?? (max !== undefined && max < standard.length ? '' : standard)
}

/**
 * How much of the run id a short label keeps: at least 4 characters where 4 more still fit after them, else fewer,
 * so that at least 3 are left for what tells the run's labels apart.
 */
function shortPrefixLength(max: number): number {
  return max >= 8 ? max - 4 : Math.max(0, Math.min(4, max - 3))
}

/** The 32-bit FNV-1a hash of a text's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0
  return hash
}

/**
 * The text to send for an invalid body, or undefined for no body. Its label (`name`) is prefixed with `marker`, so
 * that a pet the target should not have stored can be recognised, unless that would make the body valid.
 */
export function renderInvalid(invalid: InvalidBody, marker: string, spec: Spec): string | undefined {
  if (invalid.raw !== undefined) return invalid.raw
  if (!('body' in invalid)) return undefined
  const text = stringifyJson(markLabel(spec, invalid.body!, marker))
  return invalid.cut === undefined ? text : text.slice(0, Math.min(invalid.cut, text.length - 1))
}

/**
 * `body` with its label (`name`) prefixed by `marker`, so that a pet stored from it can be traced to the run, unless
 * the prefix changes what the schema says of it (a name under its minLength made long enough, a valid one pushed over
 * its maxLength or out of its pattern): then `body` goes unmarked, and such a pet cannot be traced.
 */
export function markLabel(spec: Spec, body: JsonValue, marker: string): JsonValue {
  const label = labelOf(spec)
  if (marker === '' || body === null || typeof body !== 'object' || Array.isArray(body)) return body
  const value = body[label]
  if (typeof value !== 'string') return body
  const marked = { ...body, [label]: `${marker}${value}` }
  const validate = spec.schema('NewPet')
  return (validate(marked).length === 0) === (validate(body).length === 0) ? marked : body
}
