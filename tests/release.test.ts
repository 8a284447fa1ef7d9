/**
 * The release procedure's promises, checked on every change: CHANGELOG.md's top entry is package.json's version,
 * and every `uses:` line of the README and docs/ names a tag the procedure creates (v<major> or v<version>), so
 * what a user pastes resolves once the version is released. The procedure itself is release.e2e.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { releaseTags, topChangelogEntry } = (await import(join(ROOT, 'scripts/release.mjs'))) as {
  releaseTags: (version: string) => { versionTag: string; majorTag: string }
  topChangelogEntry: (text: string) => { version: string; text: string } | undefined
}
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

describe('the release procedure', () => {
  it("CHANGELOG.md's top entry is package.json's version", () => {
    expect(topChangelogEntry(read('CHANGELOG.md'))?.version).toBe(version)
  })

  it('reads a CHANGELOG as the script does (top entry only), and names the tags of a version', () => {
    expect(topChangelogEntry('# C\n\n## 2.0.1 - 2026-11-27\n\n- a\n\n## 2.0.0\n\n- b\n')).toEqual({
      version: '2.0.1',
      text: '- a',
    })
    expect(topChangelogEntry('# C\n\nnothing yet\n')).toBeUndefined()
    expect(releaseTags('2.0.1')).toEqual({ versionTag: 'v2.0.1', majorTag: 'v2' })
    expect(() => releaseTags('2.0')).toThrow(/not x\.y\.z/)
  })

  it('every `uses:` of the kit in the README and docs/ names a tag the procedure creates', () => {
    const { versionTag, majorTag } = releaseTags(version)
    const uses = docs.flatMap((path) =>
      [...read(path).matchAll(/uses: OWNER\/petstore-conformance@(v[\w.]+)/g)].map((m) => `${path}: ${m[1]}`),
    )
    expect(uses.length).toBeGreaterThan(0)
    for (const line of uses) expect([majorTag, versionTag]).toContain(line.slice(line.lastIndexOf(' ') + 1))
  })

  it('docs/releasing.md gives the command that releases', () => {
    expect(read('docs/releasing.md')).toContain('node scripts/release.mjs')
  })
})
