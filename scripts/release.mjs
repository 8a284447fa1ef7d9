#!/usr/bin/env node
/**
 * The release procedure (docs/releasing.md): `node scripts/release.mjs` in a clean clone, after a commit that set
 * package.json's version and CHANGELOG.md's top entry to the same x.y.z. It
 *
 * 1. checks that the working tree is clean, that the version is x.y.z, that CHANGELOG.md's top entry is that
 *    version, and that the tag vx.y.z does not exist yet;
 * 2. builds the package (scripts/build.mjs), so that the GitHub Action installs only the runtime dependencies;
 * 3. makes a release commit: the checked-out commit's files plus dist/, the build (which the branch itself never
 *    holds), with a package.json and package-lock.json of the runtime dependencies alone (no devDependencies, no
 *    `prepare`: the build is there), as a child of that commit, written through a temporary index so the branch
 *    and the working tree stay as they are. The Action's `npm ci --omit=dev --ignore-scripts` then installs the
 *    runtime dependencies only, at the versions of the branch's lockfile;
 * 4. tags it vx.y.z (annotated, with the CHANGELOG entry) and moves the major tag vx to it, so that
 *    `uses: <owner>/<repo>@v1` and `@v1.2.3` resolve;
 * 5. prints the push that publishes both tags (or pushes them with `--push`).
 *
 * Plain Node and git, no shell: it runs wherever they do. `--dry-run` checks and says what it would do.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A release that cannot be made: said in one line, exit 2. */
export class ReleaseError extends Error {}

const VERSION = /^(\d+)\.(\d+)\.(\d+)$/

/** The version of CHANGELOG.md's top entry (`## 1.2.3 - 2026-11-27` or `## [1.2.3]`), and that entry's text. */
export function topChangelogEntry(changelog) {
  const heading = /^## \[?v?(\d+\.\d+\.\d+)\]?.*$/m.exec(changelog)
  if (!heading) return undefined
  const rest = changelog.slice(heading.index + heading[0].length)
  const next = rest.search(/^## /m)
  return { version: heading[1], text: (next === -1 ? rest : rest.slice(0, next)).trim() }
}

/** The tags a release of `version` creates or moves: the version's own and the moving major tag. */
export function releaseTags(version) {
  const match = VERSION.exec(version)
  if (!match) throw new ReleaseError(`package.json's version ${JSON.stringify(version)} is not x.y.z`)
  return { versionTag: `v${version}`, majorTag: `v${match[1]}` }
}

function git(cwd, args, options = {}) {
  const done = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...options.env } })
  if (done.error) throw new ReleaseError(`cannot run git: ${done.error.message}`)
  if (done.status !== 0 && !options.allowFailure)
    throw new ReleaseError(`git ${args.join(' ')} failed: ${(done.stderr || done.stdout).trim().split('\n')[0]}`)
  return { ok: done.status === 0, out: done.stdout.trim() }
}

/**
 * Makes the release of the package at `cwd` (see above). `build` builds dist/ (scripts/build.mjs by default);
 * returns what was made. Throws {@link ReleaseError} when the release cannot be made, having changed nothing.
 */
export function release({ cwd, build = defaultBuild, dryRun = false, push = false, log = () => {} }) {
  const { version } = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'))
  const { versionTag, majorTag } = releaseTags(version)
  const changelogPath = join(cwd, 'CHANGELOG.md')
  if (!existsSync(changelogPath)) throw new ReleaseError('CHANGELOG.md is missing')
  const entry = topChangelogEntry(readFileSync(changelogPath, 'utf8'))
  if (entry?.version !== version)
    throw new ReleaseError(
      `CHANGELOG.md's top entry is ${entry ? entry.version : 'missing'}, package.json's version ${version}: add "## ${version}" first`,
    )
  const status = git(cwd, ['status', '--porcelain', '--untracked-files=no']).out
  if (status) throw new ReleaseError(`the working tree has uncommitted changes; commit them first:\n${status}`)
  if (git(cwd, ['rev-parse', '-q', '--verify', `refs/tags/${versionTag}`], { allowFailure: true }).ok)
    throw new ReleaseError(`the tag ${versionTag} exists already: set a new version in package.json and CHANGELOG.md`)
  const head = git(cwd, ['rev-parse', 'HEAD']).out
  if (dryRun) {
    log(`would build, commit ${head.slice(0, 7)} + dist/ as the release, tag it ${versionTag} and move ${majorTag}`)
    return { version, versionTag, majorTag, head, commit: undefined }
  }

  build(cwd)
  if (!existsSync(join(cwd, 'dist'))) throw new ReleaseError('the build wrote no dist/')

  // The release commit: HEAD's tree plus dist/, through an index of its own (the real one is left alone).
  const scratch = mkdtempSync(join(tmpdir(), 'petstore-release-'))
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') }
    git(cwd, ['read-tree', head], { env })
    git(cwd, ['add', '--force', '--', 'dist'], { env })
    for (const [name, file] of Object.entries(runtimeManifest(cwd, scratch))) {
      const blob = git(cwd, ['hash-object', '-w', '--path', name, file]).out
      git(cwd, ['update-index', '--add', '--cacheinfo', `100644,${blob},${name}`], { env })
    }
    const tree = git(cwd, ['write-tree'], { env }).out
    const message = `Release ${versionTag}: the sources of ${head.slice(0, 7)} and their build (dist/)`
    const commit = git(cwd, ['commit-tree', tree, '-p', head, '-m', message]).out
    git(cwd, ['tag', '-a', versionTag, commit, '-m', `${versionTag}\n\n${entry.text}`])
    git(cwd, ['tag', '-f', '-a', majorTag, commit, '-m', `${majorTag}: the latest ${majorTag}.x.y, now ${versionTag}`])
    log(`${versionTag} and ${majorTag} tag ${commit.slice(0, 7)} (${head.slice(0, 7)} with dist/)`)
    const pushArgs = ['push', '--force', 'origin', `refs/tags/${versionTag}`, `refs/tags/${majorTag}`]
    if (push) git(cwd, pushArgs)
    else log(`publish them with: git ${pushArgs.join(' ')}`)
    return { version, versionTag, majorTag, head, commit }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** npm's own entry point, run by this Node (no shell, so the same on every platform). */
function npmCli() {
  if (process.env.npm_execpath?.endsWith('npm-cli.js')) return process.env.npm_execpath
  const lib = process.platform === 'win32' ? '' : '../lib'
  return join(dirname(process.execPath), lib, 'node_modules/npm/bin/npm-cli.js')
}

/**
 * The release's package.json without devDependencies and `prepare`, and its lockfile of the runtime dependencies
 * alone (npm prunes the branch's lockfile, keeping every version), written into `scratch`; returns their paths.
 */
function runtimeManifest(cwd, scratch) {
  const folder = join(scratch, 'runtime')
  mkdirSync(folder)
  const manifest = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'))
  delete manifest.devDependencies
  if (manifest.scripts) delete manifest.scripts.prepare
  writeFileSync(join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  if (existsSync(join(cwd, 'package-lock.json')))
    copyFileSync(join(cwd, 'package-lock.json'), join(folder, 'package-lock.json'))
  const pruned = spawnSync(
    process.execPath,
    [
      npmCli(),
      'install',
      '--package-lock-only',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    { cwd: folder, encoding: 'utf8' },
  )
  if (pruned.status !== 0)
    throw new ReleaseError(`npm could not write the runtime lockfile: ${(pruned.stderr || '').trim().split('\n')[0]}`)
  return { 'package.json': join(folder, 'package.json'), 'package-lock.json': join(folder, 'package-lock.json') }
}

function defaultBuild(cwd) {
  const built = spawnSync(process.execPath, [join(cwd, 'scripts', 'build.mjs')], { cwd, stdio: 'inherit' })
  if (built.status !== 0) throw new ReleaseError('the build failed')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2)
  const unknown = args.filter((arg) => !['--dry-run', '--push'].includes(arg))
  if (unknown.length > 0) {
    process.stderr.write(
      `release: unknown argument ${unknown[0]} (usage: node scripts/release.mjs [--dry-run] [--push])\n`,
    )
    process.exit(2)
  }
  try {
    release({
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      dryRun: args.includes('--dry-run'),
      push: args.includes('--push'),
      log: (line) => process.stdout.write(`release: ${line}\n`),
    })
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error
    process.stderr.write(`release: ${error.message}\n`)
    process.exit(2)
  }
}
