/**
 * The one way tests start a child process: the kit's commands as a user runs them (`runCommand`, `startCommand`:
 * a child process of a bin, its exit code and what it printed; for `petstore-conformance`, also the report files
 * it wrote to a scratch directory made and removed here), and any other program (`runProcess`, `startProcess`,
 * `runProcessSync`). The kit's commands run only in `*.e2e.test.ts` files (`npm run test:e2e`); in-process tests
 * call the library (`runConformance`). See test-support/README.md.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { RunResult } from '../model/index.js'

/** The project root: the working directory of every child unless told otherwise. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The kit's two commands, by the name tests use. */
export const BINS = {
  conformance: join(ROOT, 'bin', 'petstore-conformance.js'),
  stub: join(ROOT, 'bin', 'petstore-stub.js'),
} as const

/** One of the kit's commands. */
export type Bin = keyof typeof BINS

/** How to start a child. */
export interface RunOptions {
  /** Variables set (a string) or removed (undefined) over the child's environment; see {@link childEnv}. */
  env?: Record<string, string | undefined>
  /** Working directory; the project root by default. */
  cwd?: string
  /** Killed (SIGKILL) after this long, so a hung child cannot outlive its test; none by default. */
  timeoutMs?: number
}

/** How a finished child ended and what it printed. */
export interface Finished {
  /** Exit code; null when a signal ended it. */
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** Wall time from start to exit. */
  ms: number
  /** True when `timeoutMs` ran out and the child was killed. */
  timedOut: boolean
}

/** A finished run of `petstore-conformance`: also every file it wrote, and its JSON report when it wrote one. */
export interface ConformanceRun extends Finished {
  /** The output directory's files by name (report.json, junit.xml, ...), read before the directory is removed. */
  files: Record<string, string>
  report?: RunResult
}

/** A child still running. */
export interface Running {
  child: ChildProcess
  /** Resolves when it has exited and its output is closed. */
  exited: Promise<Finished>
  /** What it printed so far. */
  output(): { stdout: string; stderr: string }
  /** Resolves with the first match of `pattern` in stdout; rejects if the child exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>
  /** Sends `signal` (SIGTERM by default) unless it has exited already. */
  stop(signal?: NodeJS.Signals): void
}

// Children still running when the test process exits (a test that timed out) are killed with it.
const living = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of living) child.kill('SIGKILL')
})

/**
 * The child's environment: the parent's, less what would change the commands' behaviour behind a test's back
 * (colour forcing, and the `PETSTORE_*` fallbacks for the target and key), plus `extra` (undefined removes).
 */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (name !== 'FORCE_COLOR' && name !== 'NO_COLOR' && !name.startsWith('PETSTORE_')) env[name] = value
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}

/** Starts any executable (`node --import tsx script.ts`, `sh -c ...`) with stdin closed, collecting its output. */
export function startProcess(command: string, args: readonly string[], options: RunOptions = {}): Running {
  const started = performance.now()
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  living.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text))
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text))
  let timedOut = false
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true
          child.kill('SIGKILL')
        }, options.timeoutMs)
  const exited = new Promise<Finished>((resolve, reject) => {
    child.on('error', (error) => {
      living.delete(child)
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      living.delete(child)
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, ms: Math.round(performance.now() - started), timedOut })
    })
  })
  exited.catch(() => undefined) // seen by whoever awaits it; never an unhandled rejection
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const match = pattern.exec(stdout)
        if (!match) return false
        child.stdout!.off('data', look)
        resolve(match)
        return true
      }
      if (look()) return
      child.stdout!.on('data', look)
      void exited.then(
        (done) =>
          reject(
            new Error(`exited (${done.code ?? done.signal}) before printing ${pattern}: ${done.stderr.slice(0, 2000)}`),
          ),
        reject,
      )
    })
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
  return { child, exited, output: () => ({ stdout, stderr }), waitFor, stop }
}

/** Starts one of the kit's commands with Node, e.g. `startCommand('stub', ['--port', '0'])`. */
export function startCommand(bin: Bin, args: readonly string[], options: RunOptions = {}): Running {
  return startProcess(process.execPath, [BINS[bin], ...args], options)
}

/** Runs any executable to its end. */
export function runProcess(command: string, args: readonly string[], options: RunOptions = {}): Promise<Finished> {
  return startProcess(command, args, options).exited
}

/**
 * Runs any executable to its end, blocking: a probe of what is installed (`runProcessSync('git', ['--version'])`)
 * or a quick step a synchronous helper needs. A command that cannot start ends with code null and the reason on
 * stderr; `timeoutMs` kills it.
 */
export function runProcessSync(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Omit<Finished, 'ms' | 'timedOut'> {
  const done = spawnSync(command, args, {
    cwd: options.cwd ?? ROOT,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: options.timeoutMs,
  })
  return {
    code: done.status,
    signal: done.signal,
    stdout: done.stdout ?? '',
    stderr: done.error ? String(done.error.message) : (done.stderr ?? ''),
  }
}

/**
 * Runs one of the kit's commands to its end. For `conformance`, unless `args` name an `--output-dir`, the reports
 * go to a fresh scratch directory whose files (and parsed `report.json`) come back with the result; the
 * directory is removed before this resolves.
 */
export function runCommand(bin: 'conformance', args: readonly string[], options?: RunOptions): Promise<ConformanceRun>
export function runCommand(bin: Bin, args: readonly string[], options?: RunOptions): Promise<Finished>
export async function runCommand(
  bin: Bin,
  args: readonly string[],
  options: RunOptions = {},
): Promise<Finished | ConformanceRun> {
  if (bin !== 'conformance' || args.some((a) => a === '--output-dir' || a.startsWith('--output-dir='))) {
    return startCommand(bin, args, options).exited
  }
  const dir = await mkdtemp(join(tmpdir(), 'petstore-command-'))
  try {
    const finished = await startCommand(bin, [...args, '--output-dir', dir], options).exited
    const files: Record<string, string> = {}
    for (const name of (await readdir(dir)).sort()) files[name] = await readFile(join(dir, name), 'utf8')
    const report = files['report.json'] === undefined ? undefined : (JSON.parse(files['report.json']) as RunResult)
    return { ...finished, files, report }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Ids of the fail-severity checks a report marks failed, sorted. */
export function failedChecks(report: RunResult | undefined): string[] {
  return (report?.checks ?? [])
    .filter((c) => c.severity === 'fail' && c.outcome === 'failed')
    .map((c) => c.id)
    .sort()
}

/** The checks a report could not judge (the kit broke, or left them unjudged), each with its reason. */
export function brokenChecks(report: RunResult | undefined): string[] {
  return (report?.checks ?? [])
    .filter((c) => c.outcome === 'error' || c.outcome === 'unjudged')
    .map((c) => `${c.id}: ${c.reason ?? ''}`)
}
