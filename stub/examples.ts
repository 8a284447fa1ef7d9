/**
 * The spec's response examples and body schemas, per operation and status, read at run time (never retyped):
 * what `Prefer: example=` and `code=` answer with. The document is read with integers as bigint, so int64
 * examples keep every digit.
 */
import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'
import { SPEC_PATH, spec as specInUse, type JsonValue, type OperationId, type Spec } from '../spec/index.js'
import { toInt64 } from './store.js'

/** One named example of a response. */
export interface ResponseExample {
  name: string
  status: number
  value: JsonValue
}

type Node = Record<string, any>

/** The examples and body schemas of every operation's responses. */
export class SpecExamples {
  readonly doc: Node
  /** The spec the stub serves: what `code=` may name is read from it. */
  readonly spec: Spec
  readonly #examples = new Map<OperationId, ResponseExample[]>()
  readonly #schemas = new Map<string, Node | undefined>()

  constructor(spec: Spec = specInUse()) {
    this.spec = spec
    // Read again from its text, so int64 examples keep every digit; a spec built from a document has only that.
    this.doc =
      spec.text === undefined && spec.doc !== undefined
        ? spec.doc
        : (exact(parseYaml(spec.text ?? readFileSync(SPEC_PATH, 'utf8'), { intAsBigInt: true }) as Node) as Node)
    for (const op of Object.values(spec.operations)) {
      const responses = this.doc.paths[op.path][op.method.toLowerCase()].responses as Node
      const examples: ResponseExample[] = []
      for (const [status, ref] of Object.entries(responses)) {
        const media = this.resolve(ref).content?.['application/json'] as Node | undefined
        this.#schemas.set(`${op.operationId} ${status}`, media?.schema)
        for (const [name, example] of Object.entries<Node>(media?.examples ?? {})) {
          const value = this.resolve(example).value as JsonValue | undefined
          if (value !== undefined) examples.push({ name, status: Number(status), value })
        }
        if (media?.example !== undefined && !media.examples)
          examples.push({ name: 'example', status: Number(status), value: media.example as JsonValue })
      }
      this.#examples.set(op.operationId, examples)
    }
  }

  /** The named examples of an operation's responses, in the spec's order. */
  of(operationId: OperationId): readonly ResponseExample[] {
    return this.#examples.get(operationId) ?? []
  }

  /** The body schema of an operation's response, or `undefined` when none is documented. */
  schema(operationId: OperationId, status: number): Node | undefined {
    return this.#schemas.get(`${operationId} ${status}`)
  }

  /** Follows local `$ref`s to the node they name. */
  resolve(node: Node): Node {
    let current = node
    while (current && typeof current.$ref === 'string') {
      current = (current.$ref as string)
        .replace(/^#\//, '')
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce((at: Node, key) => at?.[key], this.doc)
    }
    return current
  }
}

/** Integers as the stub keeps them: `number` when a double holds them, `bigint` beyond. */
function exact(value: unknown): unknown {
  if (typeof value === 'bigint') return toInt64(value)
  if (Array.isArray(value)) return value.map(exact)
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, exact(item)]))
  return value
}

const loaded = new WeakMap<Spec, SpecExamples>()

/** A spec's examples (the one in use by default), read once per spec. */
export function specExamples(spec: Spec = specInUse()): SpecExamples {
  let examples = loaded.get(spec)
  if (!examples) loaded.set(spec, (examples = new SpecExamples(spec)))
  return examples
}
