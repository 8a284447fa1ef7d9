/** Values the scenarios send, read from the spec: valid ones, invalid ones, and query texts. */
export {
  anyText,
  asJson,
  categoryId,
  categoryIdEdges,
  codePoint,
  codePoints,
  integerBounds,
  labelOf,
  newPet,
  petStatus,
  sampleNewPet,
  sampleValue,
  samplesOf,
  type NewPetValue,
  type PropertySchema,
} from './valid.js'
export {
  invalidBody,
  invalidExamples,
  invalidNumbers,
  JSON_REQUEST_TYPES,
  leewayNumbers,
  malformedJson,
  OTHER_REQUEST_TYPES,
  refusesUndeclared,
  type BodyShape,
  type InvalidBody,
  type LeewayNumber,
  type NumberText,
} from './invalid.js'
export { listLimit, oddLimits, oddStatuses, outOfRangeLimits, outOfRangeStatuses } from './queries.js'
export { bodyEdges, queryEdges, type EdgeCase, type Expected, type QueryEdge } from './edges.js'
