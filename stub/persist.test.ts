import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEBOUNCE_MS, keepInFile, readDataFile } from './persist.js'
import { createStub } from './stub.js'
import { PetStore, StoreError } from './store.js'

let dir: string
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'stub-data-'))))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const pet = { name: 'Rex', categoryId: 9223372036854775807n }
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the data file', () => {
  it('is absent until written: reading it gives nothing', () => {
    expect(readDataFile(join(dir, 'none.json'))).toBeUndefined()
  })

  it.each([
    ['not JSON', '{', /the data file .* is not valid JSON/],
    ['an empty file', '', /is not valid JSON/],
    ['a bad pet', '{"pets":[{"id":"1","name":"a","categoryId":1}]}', /the data file .*: pets\[0\]\.id must be integer/],
  ])('refuses %s with one line naming it', (_title, text, message) => {
    const file = join(dir, 'state.json')
    writeFileSync(file, text)
    expect(() => readDataFile(file)).toThrow(StoreError)
    expect(() => readDataFile(file)).toThrow(message)
    expect(() => createStub({ data: file })).toThrow(message)
    expect(readFileSync(file, 'utf8')).toBe(text)
  })

  it('is written at once, then after changes (together within the debounce), through a renamed temporary file', async () => {
    const file = join(dir, 'state.json')
    const store = new PetStore()
    const kept = keepInFile(store, file)
    expect(readFileSync(file, 'utf8')).toBe('{"nextId":1,"pets":[]}')
    store.add(pet)
    store.add(pet)
    expect(readFileSync(file, 'utf8')).toBe('{"nextId":1,"pets":[]}') // not yet: changes are written together
    await wait(DEBOUNCE_MS * 2)
    expect(readFileSync(file, 'utf8')).toBe(store.stateJson())
    expect(store.stateJson()).toContain('"categoryId":9223372036854775807')
    store.add(pet)
    kept.stop() // shutdown writes what is pending at once
    expect(readDataFile(file)!.pets).toHaveLength(3)
    expect(readdirSync(dir)).toEqual(['state.json'])
  })

  it('is read back by a new stub, which continues the ids', async () => {
    const file = join(dir, 'state.json')
    const first = createStub({ data: file, seed: false })
    first.store.add(pet)
    first.close()
    const second = createStub({ data: file })
    expect(second.store.size).toBe(1)
    expect(second.store.add(pet).pet.id).toBe(2)
    second.reset() // a reset goes to the seed, not to the file
    expect(second.store.size).toBeGreaterThan(1)
    second.close()
    expect(readDataFile(file)!.pets.length).toBe(second.store.size)
  })

  it('reports a write that fails, and the stub keeps its pets', () => {
    const messages: string[] = []
    const store = new PetStore()
    keepInFile(store, join(dir, 'missing', 'state.json'), (message) => messages.push(message))
    expect(messages[0]).toMatch(/^cannot write the data file .*missing\/state\.json: /)
  })
})
