/**
 * The release procedure (scripts/release.mjs, docs/releasing.md) in a scratch git repository: it refuses what
 * cannot be released (a CHANGELOG that does not match, uncommitted changes, a tag that exists) having changed
 * nothing; a release tags a commit holding the sources and their build as v<version> and v<major>, leaving the
 * branch and the working tree as they were; the next release moves v<major> and keeps the older tag.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, runProcessSync } from '../test-support/run-command.js'

interface Released {
  version: string
  versionTag: string
  majorTag: string
  head: string
  commit?: string
}
const { release, ReleaseError } = (await import(join(ROOT, 'scripts/release.mjs'))) as {
  release: (options: { cwd: string; build: (cwd: string) => void; dryRun?: boolean }) => Released
  ReleaseError: new (message: string) => Error
}

const hasGit = runProcessSync('git', ['--version']).code === 0
let repo: string

function git(...args: string[]): string {
  const done = runProcessSync('git', args, { cwd: repo })
  if (done.code !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr}`)
  return done.stdout.trim()
}

function commitVersion(version: string, changelogVersion = version) {
  // a development dependency the release leaves out of its package.json and lockfile
  writeFileSync(
    join(repo, 'package.json'),
    JSON.stringify({ name: 'kit', version, devDependencies: { 'left-pad': '1.3.0' } }, null, 2),
  )
  writeFileSync(
    join(repo, 'CHANGELOG.md'),
    `# Changelog\n\n## ${changelogVersion}\n\n- what changed\n\n## 0.9.0\n\n- older\n`,
  )
  git('add', 'package.json', 'CHANGELOG.md')
  git('commit', '-q', '-m', `version ${version}`)
}

/** The build: a file in dist/, which .gitignore keeps out of the branch. */
const build = (cwd: string) => {
  mkdirSync(join(cwd, 'dist'), { recursive: true })
  writeFileSync(join(cwd, 'dist', 'index.js'), 'export const built = true\n')
}

beforeAll(() => {
  if (!hasGit) return
  repo = mkdtempSync(join(tmpdir(), 'petstore-release-test-'))
  git('init', '-q', '-b', 'main')
  git('config', 'user.email', 'release@petstore.test')
  git('config', 'user.name', 'Release')
  writeFileSync(join(repo, '.gitignore'), '/dist/\n')
  git('add', '.gitignore')
  git('commit', '-q', '-m', 'start')
})

afterAll(() => {
  if (repo) rmSync(repo, { recursive: true, force: true })
})

describe.runIf(hasGit)('scripts/release.mjs', () => {
  it('refuses a version whose CHANGELOG entry is missing, and changes nothing', () => {
    commitVersion('1.2.3', '1.2.2')
    expect(() => release({ cwd: repo, build })).toThrow(ReleaseError)
    expect(() => release({ cwd: repo, build })).toThrow(/top entry is 1\.2\.2, package\.json's version 1\.2\.3/)
    expect(git('tag')).toBe('')
  })

  it('refuses uncommitted changes', () => {
    commitVersion('1.2.3')
    writeFileSync(join(repo, 'CHANGELOG.md'), '# Changelog\n\n## 1.2.3\n\n- edited\n')
    expect(() => release({ cwd: repo, build })).toThrow(/uncommitted changes/)
    git('checkout', '--', 'CHANGELOG.md')
    expect(git('tag')).toBe('')
  })

  it('tags the sources plus their build as v1.2.3 and v1, the branch and working tree untouched', () => {
    const head = git('rev-parse', 'HEAD')
    const made = release({ cwd: repo, build })
    expect(made).toMatchObject({ version: '1.2.3', versionTag: 'v1.2.3', majorTag: 'v1', head })
    expect(git('rev-parse', 'HEAD')).toBe(head)
    expect(git('status', '--porcelain')).toBe('')
    expect(git('rev-parse', 'v1.2.3^{commit}')).toBe(made.commit)
    expect(git('rev-parse', 'v1^{commit}')).toBe(made.commit)
    expect(git('rev-parse', `${made.commit}^`)).toBe(head)
    expect(git('show', 'v1:dist/index.js')).toBe('export const built = true')
    expect(JSON.parse(git('show', 'v1:package.json'))).toEqual({ name: 'kit', version: '1.2.3' })
    expect(JSON.parse(git('show', 'main:package.json'))).toHaveProperty('devDependencies')
    expect(JSON.parse(git('show', 'v1:package-lock.json'))).toMatchObject({ name: 'kit', version: '1.2.3' })
    expect(git('show', 'v1:package-lock.json')).not.toContain('left-pad')
    expect(git('ls-tree', '-r', '--name-only', 'main')).not.toContain('dist/index.js')
    expect(git('tag', '-l', '--format=%(contents)', 'v1.2.3')).toContain('- what changed')
  })

  it('refuses to release the same version twice', () => {
    expect(() => release({ cwd: repo, build })).toThrow(/v1\.2\.3 exists already/)
  })

  it('the next release moves v1 and keeps v1.2.3; a dry run changes nothing', () => {
    const first = git('rev-parse', 'v1.2.3^{commit}')
    commitVersion('1.3.0')
    const dry = release({ cwd: repo, build, dryRun: true })
    expect(dry.commit).toBeUndefined()
    expect(git('rev-parse', 'v1^{commit}')).toBe(first)
    const made = release({ cwd: repo, build })
    expect(git('rev-parse', 'v1^{commit}')).toBe(made.commit)
    expect(git('rev-parse', 'v1.2.3^{commit}')).toBe(first)
    expect(git('tag').split('\n').sort()).toEqual(['v1', 'v1.2.3', 'v1.3.0'])
  })
})
