import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runProcessSync } from '../test-support/run-command.js'
import { readTextFile } from './text-file.js'

let dir: string
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'text-file-'))))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('readTextFile', () => {
  it('reads a file, and refuses a folder and a missing file in one line', () => {
    const file = join(dir, 'pets.json')
    writeFileSync(file, '[{"name":"Rex é"}]')
    expect(readTextFile(file)).toBe('[{"name":"Rex é"}]')
    mkdirSync(join(dir, 'folder'))
    expect(() => readTextFile(join(dir, 'folder'))).toThrow('it is a directory, not a file')
    expect(() => readTextFile(join(dir, 'none.json'))).toThrow(/ENOENT/)
  })

  it.skipIf(process.platform === 'win32')('refuses a device, which would never end (/dev/zero)', () => {
    expect(() => readTextFile('/dev/zero')).toThrow('it is a device, not a file')
  })

  it.skipIf(process.platform === 'win32')(
    'reads a named pipe no program writes to as giving nothing, at once, instead of waiting for ever',
    () => {
      const fifo = join(dir, 'pets.json')
      expect(runProcessSync('mkfifo', [fifo]).code).toBe(0)
      // Read the usual way, the open itself never returned (and this test ran out of time).
      expect(() => readTextFile(fifo)).toThrow('it is a pipe that gave nothing (no program was writing to it)')
    },
  )
})
