/** The stub's public face: build it in-process (a Fetch handler, or on a port), or build its parts. */
export { answer, App, BASE_PATH, DEFAULT_MAX_BODY, DEPRECATION, JSON_TYPE, SOCKET_DIRECTIVES, TRICKLE_MS } from './app.js'
export type { AppOptions, AppRequest, AppResponse, FullRequest, Handler, SocketDirective } from './app.js'
export { ApiError, errorBody } from './errors.js'
export { FAULTS, isFaultName, type Fault, type FaultName } from './faults/index.js'
export { DEFAULT_SEED_PATH, loadSeed, type SeedPet } from './seed.js'
export { bufferedLog, ListenError, serve, type RunningServer, type ServerOptions } from './server.js'
export { PetStore, StoreError, petJson, toInt64, type Int64, type NewPetRecord, type PetRecord, type Store } from './store.js'
export { createStub, DEFAULT_API_KEY, startStub, type CreateStubOptions, type InProcessStub, type Stub, type StubOptions } from './stub.js'
