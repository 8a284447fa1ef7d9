/**
 * Component schemas that close an `allOf` against itself, and how the kit reads them.
 *
 * JSON Schema's `additionalProperties` sees only the properties of the schema object it sits in. Written beside an
 * `allOf` (Pet closed), or in a part the `allOf` takes in (a closed NewPet inside Pet), it refuses what the other
 * parts declare: `id` itself, so that no Pet could ever be valid and every service would fail. What such a spec
 * means is the whole composition closed, which JSON Schema writes `unevaluatedProperties: false`; the kit judges
 * and serves it so, and says so in one line. The part keeps its own `additionalProperties` wherever it is used
 * alone (a closed NewPet still refuses an undeclared field in a request).
 */
import { isRecord, listed, pointer as pointerTo, resolvePointer } from './basis.js'

type Doc = Record<string, any>

/** One part of a composition: the schema object and where it is. */
interface Part {
  node: Doc
  pointer: string
}

/** How the kit reads a part of a spec that it does not take literally, and why: one sentence for the user. */
export interface Reading {
  /** Where, e.g. `#/components/schemas/Pet`. */
  pointer: string
  text: string
}

/**
 * `doc` with every self-refusing composition among its component schemas rewritten as closed as a whole (a copy;
 * `doc` is left as written), and a reading per schema rewritten. Returns `doc` itself when there is none.
 */
export function readClosedCompositions(doc: Doc): { doc: Doc; readings: Reading[] } {
  const schemas: Doc = doc.components?.schemas ?? {}
  const rewritten: Record<string, Doc> = {}
  const readings: Reading[] = []
  for (const [name, schema] of Object.entries<Doc>(schemas)) {
    if (!isRecord(schema) || !Array.isArray(schema.allOf)) continue
    const pointer = pointerTo('components', 'schemas', name)
    const parts = partsOf(doc, schema, pointer, new Set())
    const declared = new Set(parts.flatMap(({ node }) => [...Object.keys(propertiesOf(node)), ...requiredOf(node)]))
    const refusals = parts
      .filter(({ node }) => node.additionalProperties === false)
      .map((part) => ({ part, refused: [...declared].filter((name) => !allows(part.node, name)) }))
      .filter(({ refused }) => refused.length > 0)
    if (!refusals.length) continue
    rewritten[name] = {
      ...opened(doc, schema, new Set()),
      unevaluatedProperties: schema.unevaluatedProperties ?? false,
    }
    const { part, refused } = refusals[0]!
    readings.push({
      pointer,
      text:
        `${pointer}: additionalProperties: false at ${part.pointer} would refuse ${listed(refused.map((r) => `"${r}"`))}, which ${name} ` +
        `declares; read as closing the whole of ${name} (unevaluatedProperties: false)`,
    })
  }
  if (!readings.length) return { doc, readings }
  return {
    doc: { ...doc, components: { ...doc.components, schemas: { ...schemas, ...rewritten } } },
    readings,
  }
}

/** The schema and the parts its `allOf` takes in, `$ref`s followed, depth first. */
function partsOf(doc: Doc, node: Doc, pointer: string, seen: Set<string>): Part[] {
  const parts: Part[] = [{ node, pointer }]
  ;(node.allOf as unknown[]).forEach((item, i) => {
    if (!isRecord(item)) return
    const ref = typeof item.$ref === 'string' ? item.$ref : undefined
    if (ref !== undefined && seen.has(ref)) return // a cycle: each schema once
    const target = ref === undefined ? item : resolvePointer(doc, ref)?.value
    if (!isRecord(target)) return
    const at = ref ?? `${pointer}/allOf/${i}`
    if (Array.isArray(target.allOf)) parts.push(...partsOf(doc, target, at, new Set(seen).add(at)))
    else parts.push({ node: target, pointer: at })
  })
  return parts
}

/**
 * The schema with `additionalProperties: false` taken off it and off every part its `allOf` takes in, those parts
 * copied in place of their `$ref`s; everything else (nested `$ref`s included) as written.
 */
function opened(doc: Doc, node: Doc, seen: Set<string>): Doc {
  const { additionalProperties, ...rest } = node
  const copy: Doc = additionalProperties === false ? rest : node
  if (!Array.isArray(node.allOf)) return copy
  return {
    ...copy,
    allOf: node.allOf.map((item: unknown) => {
      if (!isRecord(item)) return item
      const ref = typeof item.$ref === 'string' ? item.$ref : undefined
      if (ref === undefined) return opened(doc, item, seen)
      const target = seen.has(ref) ? undefined : resolvePointer(doc, ref)?.value
      return isRecord(target) ? opened(doc, target, new Set(seen).add(ref)) : item
    }),
  }
}

function allows(node: Doc, name: string): boolean {
  if (Object.hasOwn(propertiesOf(node), name)) return true
  return Object.keys(isRecord(node.patternProperties) ? node.patternProperties : {}).some((pattern) => {
    try {
      return new RegExp(pattern, 'u').test(name)
    } catch {
      return false
    }
  })
}

function propertiesOf(node: Doc): Doc {
  return isRecord(node.properties) ? node.properties : {}
}

function requiredOf(node: Doc): string[] {
  return Array.isArray(node.required) ? node.required.filter((r: unknown) => typeof r === 'string') : []
}
