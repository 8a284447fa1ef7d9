/**
 * Every snippet a user pastes is tested or says why not: each shell and TypeScript block of the README and docs/
 * carries `<!-- run: RUNNER -->` (tests/snippets.e2e.test.ts runs it in a scratch project that installs the
 * packed kit) or `<!-- not run: why -->`. The cheap checks run here: the markers, every YAML block parses, the
 * MSW recipe is the one stub/msw.test.ts runs on every npm test, and the README fits its purpose (short, links
 * that lead somewhere).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { allSnippets, CODE_LANGUAGES, RUNNERS, snippetFiles, type Runner } from '../test-support/snippets.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const snippets = allSnippets()
const where = (s: { file: string; line: number }) => `${s.file}:${s.line}`

describe('the snippets of the README and docs/', () => {
  it('are found: the README and the docs pages hold shell, TypeScript and YAML blocks', () => {
    const languages = new Set(snippets.map((s) => s.language))
    for (const language of ['sh', 'ts', 'yaml']) expect(languages).toContain(language)
    expect(snippets.filter((s) => s.file === 'README.md').length).toBeGreaterThanOrEqual(5)
  })

  it('each shell or TypeScript block is run by a test (a known runner) or says why it is not', () => {
    const unmarked = snippets.filter((s) => CODE_LANGUAGES.has(s.language) && s.marker === undefined).map(where)
    expect(unmarked).toEqual([])
    for (const s of snippets) {
      if (!s.marker) continue
      if ('notRun' in s.marker) expect(s.marker.notRun.length, where(s)).toBeGreaterThan(15)
      else expect(RUNNERS as readonly string[], where(s)).toContain(s.marker.run)
    }
  })

  it('runners match the block: shell runners on shell blocks, TypeScript ones on TypeScript', () => {
    for (const s of snippets) {
      if (!s.marker || !('run' in s.marker)) continue
      const shell = ['project-sh', 'project-sh-stub'].includes(s.marker.run)
      expect(shell ? ['sh', 'bash', 'shell'] : ['ts', 'typescript'], where(s)).toContain(s.language)
    }
  })

  it('every YAML block parses', () => {
    for (const s of snippets.filter((s) => s.language === 'yaml' || s.language === 'yml'))
      expect(() => parse(s.code), where(s)).not.toThrow()
  })

  it('the MSW recipe is the one stub/msw.test.ts runs in the kit (only its two imports differ)', () => {
    const recipes = snippets.filter((s) => s.marker && 'run' in s.marker && (s.marker.run as Runner) === 'project-msw')
    expect(recipes).toHaveLength(1)
    const inKit = readFileSync(join(ROOT, 'stub', 'msw.test.ts'), 'utf8')
    const region = /\/\/ --- recipe start\n([\s\S]*?)\/\/ --- recipe end/.exec(inKit)![1]!.trim()
    const body = recipes[0]!.code
      .split('\n')
      .filter((line) => !line.startsWith('import '))
      .join('\n')
      .trim()
    expect(body).toBe(region)
    expect(recipes[0]!.code).toContain("import { afterAll, afterEach, beforeAll } from 'vitest'")
    expect(recipes[0]!.code).toContain("from 'petstore-conformance'")
  })

  it('the README fits a screen per use: under 250 lines, and every relative link leads to a file', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(readme.split('\n').length).toBeLessThan(250)
    for (const file of snippetFiles()) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      for (const [, target] of text.matchAll(/\]\(((?!https?:|#)[^)#\s]+)(#[^)]*)?\)/g)) {
        const base = file.includes('/') ? join(ROOT, file, '..') : ROOT
        expect(existsSync(join(base, target!)), `${file} links to ${target}`).toBe(true)
      }
    }
  })

  it('speaks to installed users: no "in-repo" stub, no reporter named after the test runner', () => {
    for (const file of snippetFiles()) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      expect(text, file).not.toMatch(/in-repo stub|vitest's JUnit reporter/)
    }
  })
})
