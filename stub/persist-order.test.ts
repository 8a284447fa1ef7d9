// The order of a compaction's steps on disk, which a crash test cannot see: only a power cut between two of them would.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** Every open, rename and fsync, in order, each named by its path. */
const steps: string[] = []
const pathOf = new Map<number, string>()

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>()
  return {
    ...real,
    openSync: (path: fs.PathLike, flags?: fs.OpenMode) => {
      const fd = real.openSync(path, flags)
      pathOf.set(fd, String(path))
      steps.push(`open ${String(path)} ${String(flags)}`)
      return fd
    },
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      real.renameSync(from, to)
      steps.push(`rename ${String(from)} -> ${String(to)}`)
    },
    fsyncSync: (fd: number) => {
      real.fsyncSync(fd)
      steps.push(`fsync ${pathOf.get(fd)}`)
    },
  }
})

const { keepInFile, logPathOf } = await import('./persist.js')
const { PetStore } = await import('./store.js')

let dir: string
beforeEach(() => void (dir = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'stub-order-')))))
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('a compaction on disk', () => {
  // Windows cannot flush a folder (its renames are durable on their own).
  it.skipIf(process.platform === 'win32')(
    'makes the new snapshot durable under its name before it empties the log, and the new log before any change',
    () => {
      const file = join(dir, 'state.json')
      const kept = keepInFile(new PetStore(), file)
      steps.length = 0
      kept.close()
      const at = (step: string) => {
        const index = steps.findIndex((s) => s.startsWith(step))
        expect(index, `${step} in ${JSON.stringify(steps)}`).toBeGreaterThanOrEqual(0)
        return index
      }
      const renamed = at(`rename ${file}.${process.pid}.tmp -> ${file}`)
      const emptied = at(`open ${logPathOf(file)} w`)
      const folderSynced = steps.findIndex((s, i) => i > renamed && s === `fsync ${dirname(file)}`)
      expect(at(`fsync ${file}.${process.pid}.tmp`)).toBeLessThan(renamed) // the snapshot's bytes before its name
      expect(folderSynced).toBeGreaterThan(renamed)
      expect(folderSynced).toBeLessThan(emptied)
      expect(steps.slice(emptied + 1).some((s) => s === `fsync ${dirname(file)}`)).toBe(true)
    },
  )
})
