/**
 * The one way tests start a target on a port: `const start = targets(afterEach)` once per file (or `afterAll` for
 * targets a file shares), then `await start({ ...kind })`. Every target started so is closed by that hook (and may
 * be closed earlier by `close()`); each listens on a free 127.0.0.1 port. A test that needs no socket passes the
 * stub's Fetch handler (`createStub(...).fetch`) to `runConformance({ fetch })` instead. See test-support/README.md.
 */
import { DEFAULT_API_KEY, startStub, type Stub, type StubOptions } from '../stub/index.js'
import { FRAMEWORKS, type FrameworkName } from './frameworks/index.js'
import { serveFetch, type Edge, type FetchHandler, type Served } from './misbehaving.js'
import { startStack, type STACK_MISTAKES, type StackName } from './stacks.js'
import { startIndependent, type TargetOptions } from './targets/server.js'

export type { Served } from './misbehaving.js'

/** What to start. */
export type TargetKind =
  /** The stub's own server (`startStub`), as `petstore-stub` serves it. */
  | { stub: StubOptions }
  /** A Fetch handler (the stub's, wrapped by misbehaving.ts, or a test's own) behind a test edge with `edge`'s manners. */
  | { fetch: FetchHandler; edge?: Edge }
  /** A server of misbehaving.ts that speaks below the Fetch API: `{ serve: hang }`, `{ serve: () => fixed(500, '') }`. */
  | { serve: () => Promise<Served> }
  /** The independent implementation of test-support/targets/, with its choices and at most one fault. */
  | { independent: TargetOptions }
  /** A stack of test-support/stacks.ts (or one of its mistakes). */
  | { stack: StackName | keyof typeof STACK_MISTAKES; keys?: string[] }
  /** A framework service of test-support/frameworks/, conformant or with one mistake. */
  | { framework: FrameworkName; keys?: string[]; mistake?: string }

/** A running target. */
export interface Target {
  /** Base address, `/v1` included. */
  url: string
  /** `http://127.0.0.1:<port>`. */
  origin: string
  /** An accepted key, when the target has keys of its own. */
  key: string
  /** Stops listening and ends every connection; a second call does nothing. */
  close(): Promise<void>
}

/** A stub target: also what the running stub holds (its port, store and in-process twin). */
export interface StubTarget extends Target, Pick<Stub, 'port' | 'store' | 'stub'> {}

/** Starts one target; the caller closes it. */
type Start = {
  (kind: { stub: StubOptions }): Promise<StubTarget>
  (kind: { fetch: FetchHandler; edge?: Edge } | { serve: () => Promise<Served> }): Promise<Served>
  (kind: TargetKind): Promise<Target>
}

/**
 * The `start` of one test file: every target it starts is closed by the hook given (`afterEach`, or `afterAll` for
 * targets a whole file shares), so no test leaves a port open.
 */
export function targets(hook: (close: () => Promise<void>) => void): Start {
  const opened: { close(): Promise<void> }[] = []
  hook(async () => {
    await Promise.all(opened.splice(0).map((t) => t.close()))
  })
  return (async (kind: TargetKind) => {
    const started = once(await startKind(kind))
    opened.push(started)
    return started
  }) as Start
}

/** `close` made idempotent, so that a test may close early and the hook close again. */
function once<T extends { close(): Promise<void> }>(target: T): T {
  let closing: Promise<void> | undefined
  const close = target.close.bind(target)
  return Object.assign(target, { close: () => (closing ??= close()) })
}

const originOf = (url: string) => new URL(url).origin

async function startKind(kind: TargetKind): Promise<Target | StubTarget | Served> {
  if ('stub' in kind) {
    const stub = await startStub(kind.stub)
    return { ...stub, origin: originOf(stub.url), key: kind.stub.apiKeys?.[0] ?? DEFAULT_API_KEY }
  }
  if ('fetch' in kind) return serveFetch(kind.fetch, kind.edge)
  if ('serve' in kind) return kind.serve()
  const started =
    'independent' in kind
      ? await startIndependent(kind.independent)
      : 'stack' in kind
        ? await startStack(kind.stack, { keys: kind.keys })
        : await FRAMEWORKS[kind.framework].start({
            keys: kind.keys,
            ...(kind.mistake ? { mistake: kind.mistake } : {}),
          })
  return { ...started, origin: originOf(started.url) }
}
