/**
 * Loading a spec: parsing a document and checking it is a revision of this interface, reading it from a file, and
 * the spec in use (the bundled one unless a run or a stub was given another).
 */
import { fileURLToPath } from 'node:url'
import { parse as parseYaml } from 'yaml'
import { OPERATIONS, type Doc, type OperationId } from './shape.js'
import { Spec } from './spec.js'
import { readTextFile } from './text-file.js'

/** Where the single source of truth lives. */
export const SPEC_PATH = fileURLToPath(new URL('./petstore.yaml', import.meta.url))

/** A spec that cannot be read, or is not a revision of this interface; the message is one sentence naming the file. */
export class SpecError extends Error {
  override name = 'SpecError'
}

/** The component schemas the kit reads by name. */
const SCHEMAS = ['PetStatus', 'NewPet', 'Pet', 'Pets', 'Error'] as const

/** The properties of an animal record every revision keeps (the interface's name, category and status). */
const RECORD = ['name', 'categoryId', 'status'] as const

/**
 * A spec from its text, checked to be a revision of this interface: OpenAPI 3.1 whose schemas compile, with the
 * three operations at their methods and paths and the schemas the kit reads. Throws {@link SpecError} saying what
 * is wrong, in one sentence.
 */
export function parseSpec(text: string, where = 'the spec'): Spec {
  let doc: Doc
  try {
    doc = parseYaml(text) as Doc
  } catch (error) {
    throw new SpecError(`${where} is not valid YAML or JSON: ${firstLine(error)}`)
  }
  if (doc === null || typeof doc !== 'object' || !/^3\.1\.[0-9]+$/.test(String(doc.openapi)))
    throw new SpecError(`${where} is not an OpenAPI 3.1 document (openapi: ${String(doc?.openapi)})`)
  let loaded: Spec
  try {
    loaded = new Spec(doc, text)
  } catch (error) {
    throw new SpecError(`${where} is not valid OpenAPI: ${firstLine(error)}`)
  }
  for (const [operationId, { method, path }] of Object.entries(OPERATIONS)) {
    const op = loaded.operations[operationId as OperationId]
    if (!op || op.method !== method || op.path !== path)
      throw new SpecError(
        `${where} is not a revision of the Pet Store interface: it has no operation ${operationId} (${method} ${path})`,
      )
  }
  // The largest page is what the kit fills and reads whole: a limit without both bounds leaves no page to fill.
  const limit = loaded.operations.listPets.parameters.limit
  if (limit?.minimum === undefined || limit.maximum === undefined || limit.minimum > limit.maximum)
    throw new SpecError(
      `${where} is not a revision the kit can judge: listPets' limit needs a minimum and a maximum (inclusive or exclusive), the maximum not below the minimum`,
    )
  for (const name of SCHEMAS) {
    if (!doc.components?.schemas?.[name])
      throw new SpecError(`${where} is not a revision of the Pet Store interface: it has no schema ${name}`)
  }
  try {
    for (const name of SCHEMAS) loaded.schema(name)
  } catch (error) {
    throw new SpecError(`${where} is not valid OpenAPI: ${firstLine(error)}`)
  }
  // The record every revision keeps: a name, a category reference and an availability status, its values listed.
  const declared = loaded.propertiesOf('NewPet')
  for (const name of RECORD)
    if (!Object.hasOwn(declared, name))
      throw new SpecError(`${where} is not a revision of the Pet Store interface: NewPet declares no ${name}`)
  const statuses: unknown = doc.components.schemas.PetStatus.enum
  if (!Array.isArray(statuses) || statuses.length === 0 || !statuses.every((value) => typeof value === 'string'))
    throw new SpecError(
      `${where} is not a revision of the Pet Store interface: PetStatus does not list its values as an enum of strings`,
    )
  return loaded
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0]!
}

/** Reads and parses a spec file, checked as {@link parseSpec} does. Throws {@link SpecError} naming the path. */
export function loadSpec(path: string = SPEC_PATH): Spec {
  let text: string
  try {
    text = readTextFile(path)
  } catch (error) {
    throw new SpecError(`cannot read the spec at ${path}: ${firstLine(error)}`)
  }
  return parseSpec(text, `the spec ${path}`)
}

let bundled: Spec | undefined
let current: Spec | undefined

/** The spec in use: the one a run or a stub was given ({@link useSpec}), else the bundled one, read once. */
export function spec(): Spec {
  return current ?? bundledSpec()
}

/** The spec bundled with the kit (`spec/petstore.yaml`), read once, whatever spec is in use. */
export function bundledSpec(): Spec {
  return (bundled ??= loadSpec())
}

/**
 * Makes `revision` the spec in use (a spec object, a file path, or `undefined` for the bundled one) and returns it.
 * Code that reads `spec()` at call time follows it; a vitest worker calls this before its scenarios run.
 */
export function useSpec(revision: Spec | string | undefined): Spec {
  current = revision === undefined ? undefined : typeof revision === 'string' ? loadSpec(revision) : revision
  return spec()
}

/** The spec an option names: a loaded spec, a file path, or (when absent) the bundled one. Throws {@link SpecError}. */
export function specFrom(option: Spec | string | undefined): Spec {
  return option === undefined ? bundledSpec() : typeof option === 'string' ? loadSpec(option) : option
}
