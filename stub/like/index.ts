/** A twin of a real service: a conformance report read into the choices it observed, and the wrappers that make them. */
export { readAnswer, showAnswer, type Observed } from './answer.js'
export { idMapping, type IdMapping } from './ids.js'
export {
  KIT_VERSION,
  LikeError,
  readLikeness,
  type Adopted,
  type IdScheme,
  type Likeness,
  type NotMimicked,
  type Order,
  type ReportData,
  type Traits,
} from './likeness.js'
export { likenessLines, likenessSummary } from './summary.js'
export { likeWrappers, type LikeWrappers } from './wrap.js'
export { compareObservations, type Fidelity } from './fidelity.js'
