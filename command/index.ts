/**
 * The package's library entry (`import ... from 'petstore-conformance'`): the suite as a function, the stub
 * in-process or on a port, the types of the run's result, and the interface's types for clients (`Pet`, `NewPet`,
 * `PetStatus`, `ErrorBody`, generated from the spec). `petstore-conformance/result.schema.json` is the
 * JSON schema of that result (the JSON report).
 */
export { runConformance, type ConformanceOptions } from './library.js'
export { UsageError } from './usage-error.js'
export {
  createStub,
  DEFAULT_API_KEY,
  startStub,
  type CreateStubOptions,
  type InProcessStub,
  type Stub,
  type StubOptions,
  assertCleanClient,
  ClientReportError,
  clientReportMarkdown,
  type ClientFinding,
  type ClientReport,
  type NotExercised,
  compareObservations,
  LikeError,
  readLikeness,
  type Fidelity,
  type Likeness,
} from '../stub/index.js'
export { exitCode, verdictOf } from '../model/index.js'
/** The interface's own types, generated from the spec's schemas at build time: what a client sends and reads. */
export type { NewPet, Pet, Pets, PetStatus } from '../spec/index.js'
/** The body of every error answer (the spec's `Error` schema), named so that it shadows no global `Error`. */
export type { Error as ErrorBody } from '../spec/index.js'
/** @deprecated Use `ErrorBody`: importing `Error` shadows the global `Error` in the importing module. */
export type { Error } from '../spec/index.js'
export type {
  CatalogueEntry,
  CheckResult,
  Finding,
  Observation,
  Outcome,
  RecordedExchange,
  RecordedRequest,
  RecordedResponse,
  Replayable,
  RunResult,
  ScenarioRecord,
  Severity,
  Source,
  StatusCoverage,
  Verdict,
} from '../model/index.js'
