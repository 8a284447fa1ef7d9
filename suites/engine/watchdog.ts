/**
 * A guard against the one hang no timeout reaches: the run's own code blocking its event loop (a loop that never
 * ends), where no request timeout, `--max-time` or interrupt can act. A thread of its own watches a heartbeat the
 * event loop beats; when the beat has stopped for `staleMs`, the thread writes `message` to stderr and ends the
 * process. The command then sees its run end without every check judged, reports what it has, and exits 2.
 */
import { Worker } from 'node:worker_threads'

/** The watching thread: CommonJS, evaluated from text, so that it needs no file of its own beside the build. */
const WATCHER = `
const { workerData } = require('node:worker_threads')
const { writeSync } = require('node:fs')
const beat = new BigInt64Array(workerData.shared)
const stale = BigInt(workerData.staleMs) * 1000000n
setInterval(() => {
  if (process.hrtime.bigint() - Atomics.load(beat, 0) <= stale) return
  try { writeSync(2, workerData.message + '\\n') } catch {}
  process.kill(process.pid, 'SIGKILL')
}, workerData.everyMs)
`

/**
 * Starts watching this thread's event loop; returns the function that stops watching. The loop beats several times
 * within `staleMs`, so only a loop blocked for all of it is taken for a hang.
 */
export function watchEventLoop(staleMs: number, message: string): () => void {
  const shared = new SharedArrayBuffer(8)
  const beat = new BigInt64Array(shared)
  const everyMs = Math.max(10, Math.min(1_000, Math.floor(staleMs / 4)))
  const beatNow = () => void Atomics.store(beat, 0, process.hrtime.bigint())
  beatNow()
  const timer = setInterval(beatNow, everyMs)
  timer.unref()
  // No flags of this process (`--input-type=module` would make the watcher's text a module without `require`).
  const watcher = new Worker(WATCHER, { eval: true, execArgv: [], workerData: { shared, staleMs, everyMs, message } })
  watcher.unref() // never what keeps the process alive
  return () => {
    clearInterval(timer)
    void watcher.terminate()
  }
}
