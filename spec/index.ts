/** The spec's public face: loading it, reading it, and the pointers and bases that name its parts. */
export { INT64_MAX, INT64_MIN, isInt64 } from './int64.js'
export { parseJson, stringifyJson, validationView, type JsonValue } from './json.js'
export { PACKAGE_ROOT, packageFile } from './package-files.js'
export { kindOfStats, readTextFile } from './text-file.js'
export type { Reading } from './closed.js'
export type { Error, NewPet, Pet, Pets, PetStatus } from './client-types.js'
export {
  RFC_REFERENCE,
  RFC_SECTIONS,
  basisFor,
  basisOf,
  everyOperation,
  everyResponse,
  operationPointer,
  parameterPointer,
  pointer,
  renderBasis,
  resolvePointer,
  versionPrefix,
  type Basis,
  type BasisLine,
  type BasisRef,
  type RfcSection,
  type SpecPointer,
} from './basis.js'
export { declaredBounds, type IntegerBoundsSchema } from './bounds.js'
export { bundledSpec, loadSpec, parseSpec, spec, SPEC_PATH, SpecError, specFrom, useSpec } from './load.js'
export {
  OPERATION_IDS,
  OPERATIONS,
  type Operation,
  type OperationId,
  type ParameterSchema,
  type ResponseHeader,
  type Validator,
} from './shape.js'
export { Spec } from './spec.js'
