import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { loadSpec, SPEC_PATH } from '../spec/index.js'
import { generate, valueMaker } from './generate.js'
import { createStub } from './stub.js'

const work = mkdtempSync(join(tmpdir(), 'petstore-generate-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The bundled spec with NewPet's name given `pattern`. */
function namePattern(pattern: string): string {
  const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'))
  doc.setIn(['components', 'schemas', 'NewPet', 'properties', 'name', 'pattern'], pattern)
  const path = join(work, `${pattern.replace(/\W+/g, '_')}.yaml`)
  writeFileSync(path, doc.toString())
  return path
}

describe('generated strings', () => {
  it('meet a pattern the usual forms of a word and a number can: capitals, small letters, digits, hyphens', () => {
    const random = (() => {
      let n = 0
      return () => ((n = (n * 16807 + 11) % 2147483647) % 1000) / 1000
    })()
    for (const pattern of ['^[A-Z]+$', '^[a-z0-9-]+$', '^[A-Z][a-z]+$', '^[0-9]+$', '^[a-z]+-[0-9]+$']) {
      for (let i = 0; i < 20; i++) {
        const text = generate({ type: 'string', pattern, maxLength: 20 }, (node) => node, random)
        expect([pattern, new RegExp(pattern).test(String(text))]).toEqual([pattern, true])
      }
    }
  })

  it("use a schema's example only when it meets the schema: a name example a revision's pattern refuses is not used", () => {
    const spec = loadSpec(namePattern('^[A-Z]+$'))
    const name = spec.propertiesOf('NewPet').name!
    expect(name.example).toBe('Rex')
    const made = valueMaker(spec, name)()
    expect(made).toMatch(/^[A-Z]+$/)
  })

  it('fit every seed pet to a name pattern that refuses the seed names: none is left out', () => {
    const bundled = createStub({}).store.size
    for (const pattern of ['^[A-Z]+$', '^[a-z0-9-]+$']) {
      const stub = createStub({ spec: namePattern(pattern) })
      const names = stub.snapshot().pets.map((pet) => pet.name as string)
      expect([pattern, names.length, names.every((name) => new RegExp(pattern).test(name))]).toEqual([
        pattern,
        bundled,
        true,
      ])
    }
  })
})
