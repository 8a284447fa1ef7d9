/**
 * `--data FILE`: the store kept in a file across restarts. Read at start; written after changes (at most every
 * DEBOUNCE_MS) and at shutdown, each time to a temporary file renamed over the old one, so that a crash never
 * leaves half a file. A file that cannot be read or is not a snapshot stops the start: it is never emptied.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs'
import type { Spec } from '../spec/index.js'
import { readJsonFile, readSnapshot, type Snapshot } from './seed.js'
import type { PetStore } from './store.js'

/** How long after a change the file is written: changes within it are written together. */
export const DEBOUNCE_MS = 250

/**
 * The snapshot in the data file, its pets checked against `spec` (the one in use by default), or `undefined` when
 * there is no file yet. Throws StoreError (one line) otherwise.
 */
export function readDataFile(path: string, spec?: Spec): Snapshot | undefined {
  if (!existsSync(path)) return undefined
  return readSnapshot(readJsonFile(path, 'data file'), `the data file ${path}`, spec)
}

/** Keeps `store` written to `path`; `onError` hears of a write that failed (the stub keeps serving). */
export function keepInFile(
  store: PetStore,
  path: string,
  onError: (message: string) => void = () => undefined,
): { flush(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined
  let written = -1
  const flush = () => {
    clearTimeout(timer)
    timer = undefined
    if (written === store.version) return
    const temporary = `${path}.${process.pid}.tmp`
    try {
      writeFileSync(temporary, store.stateJson())
      renameSync(temporary, path) // atomic: readers see the old file or the new one, never a mix
      written = store.version
    } catch (error) {
      onError(`cannot write the data file ${path}: ${(error as Error).message}`)
    }
  }
  store.onChange = () => {
    timer ??= setTimeout(flush, DEBOUNCE_MS)
  }
  flush() // the file exists from the start, so a kill right away still leaves the state
  return {
    flush,
    stop() {
      flush()
      store.onChange = undefined
    },
  }
}
