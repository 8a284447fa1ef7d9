import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { prismBin } from './launch.js'

describe('prismBin', () => {
  it("resolves Prism's entry point from node_modules, so no shell or PATH is involved", () => {
    expect(prismBin()).toMatch(/@stoplight[\\/]prism-cli[\\/]/)
    expect(existsSync(prismBin())).toBe(true)
  })
})
