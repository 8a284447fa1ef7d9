/** The stub's public face: build it in-process (a Fetch handler, or on a port), or build its parts. */
export {
  answer,
  App,
  BASE_PATH,
  DEFAULT_MAX_BODY,
  MAX_MAX_BODY,
  DEPRECATION,
  JSON_TYPE,
  RETRY_AFTER,
  SOCKET_DIRECTIVES,
  TRICKLE_MS,
} from './app.js'
export type { AppOptions, AppRequest, AppResponse, Chaos, FullRequest, Handler, SocketDirective } from './app.js'
export { Admin, ADMIN_MAX_BODY, ADMIN_SPEC_PATH } from './admin.js'
export { ADMIN_PREFIX } from './admin-path.js'
export {
  Journal,
  JOURNAL_DEFAULTS,
  JOURNAL_LIMITS,
  type JournalEntry,
  type JournalFilter,
  type JournalOptions,
} from './journal.js'
export { COMPACT_BYTES, dataFileOf, keepInFile, logPathOf, readDataFile, type DataFile } from './persist.js'
export { absolute, lockPathOf } from './data-lock.js'
export { exposureOf, isHostToAllow, isLoopbackAddress, isOriginToAllow } from './origin.js'
export { available, CHAOS_STATUSES, MAX_DELAY_MS, statusesOf } from './prefer.js'
export { specExamples } from './examples.js'
export {
  bufferedLog,
  LOG_BACKLOG_BYTES,
  LOG_INTERVAL_MS,
  logLine,
  streamLog,
  withoutSecrets,
  type BufferedLog,
  type LogStream,
} from './log.js'
export { ApiError, errorBody } from './errors.js'
export { FAULTS, isFaultName, type Fault, type FaultName } from './faults/index.js'
export { DEFAULT_SEED_PATH, loadSeed, readSnapshot, type SeedPet, type Snapshot } from './seed.js'
export { ListenError, serve, type RunningServer, type ServerOptions } from './server.js'
export {
  PetStore,
  PersistError,
  StoreError,
  StoreFullError,
  petJson,
  toInt64,
  type Int64,
  type NewPetRecord,
  type PetRecord,
  type Store,
  type StoreState,
} from './store.js'
export {
  createStub,
  DEFAULT_API_KEY,
  DEFAULT_MAX_STORE,
  MAX_MAX_STORE,
  secretsOf,
  startStub,
  type CreateStubOptions,
  type InProcessStub,
  type Stub,
  type StubOptions,
} from './stub.js'
export {
  compareObservations,
  KIT_VERSION,
  LikeError,
  likenessLines,
  likenessSummary,
  readLikeness,
  type Fidelity,
  type Likeness,
  type ReportData,
} from './like/index.js'
export {
  assertCleanClient,
  ClientReporter,
  ClientReportError,
  ReportingJournal,
  type ClientFinding,
  type ClientReport,
  type NotExercised,
} from './client-report.js'
export { clientReportMarkdown } from './client-report-markdown.js'
