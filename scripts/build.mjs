#!/usr/bin/env node
/**
 * The package's build (`npm run build`; `prepare` runs it on `npm ci` in a clone, on `npm pack`, and on a git
 * install): the client types generated from the spec (spec/client-types.ts, scripts/client-types.mjs), then TypeScript compiled by `tsc -p tsconfig.build.json` to JavaScript, source maps and declarations,
 * and the data files the modules read at run time copied beside them, in the sources' layout, so that every
 * `new URL('../x', import.meta.url)` finds the same file under dist/ as in the sources.
 *
 * Plain JavaScript run by Node, no shell, so it runs wherever Node does. It builds into a folder of its own
 * and then swaps it in for dist/, so a command started from dist/ meanwhile never finds it half-written.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { clientTypes } from './client-types.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'dist')
const next = join(root, `dist.build-${process.pid}`)

/**
 * What the modules read at run time besides their own code: files of these folders that are not TypeScript
 * (the spec and its examples, the admin API's description, the result's JSON schema). Test-only folders and
 * files stay out. The fixtures' data (seed pets, pets to create) is not copied: it is read from the package's
 * own fixtures/ folder (shipped through package.json's "files"), so editing it needs no build.
 */
const DATA_FOLDERS = ['spec', 'model', 'stub', 'suites', 'reporters', 'command']
const DATA_FILE = /\.(ya?ml|json)$/
const TEST_ONLY = new Set(['test-support', 'node_modules'])

function dataFiles(folder) {
  const found = []
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`
    if (entry.isDirectory() && !TEST_ONLY.has(entry.name)) found.push(...dataFiles(path))
    else if (entry.isFile() && DATA_FILE.test(entry.name)) found.push(path)
  }
  return found
}

function remove(path) {
  rmSync(path, { recursive: true, force: true, maxRetries: 5 })
}

// The client types (Pet, NewPet, PetStatus, Error) from the spec's schemas, written before compiling so that
// the package exports them; rewritten only when they change, so a watching type checker is not disturbed.
const typesFile = join(root, 'spec', 'client-types.ts')
const types = await clientTypes(join(root, 'spec', 'petstore.yaml'))
if (!existsSync(typesFile) || readFileSync(typesFile, 'utf8') !== types) writeFileSync(typesFile, types)

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
remove(next)
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', next], {
  stdio: 'inherit',
})
if (compiled.status !== 0) {
  remove(next)
  process.stderr.write(`build: tsc failed (exit ${compiled.status ?? compiled.signal})\n`)
  process.exit(1)
}

const data = DATA_FOLDERS.flatMap(dataFiles)
for (const file of data) {
  mkdirSync(dirname(join(next, file)), { recursive: true })
  cpSync(join(root, file), join(next, file))
}

// Swap: dist/ is replaced in two renames, not emptied and refilled.
const old = join(root, `dist.old-${process.pid}`)
if (existsSync(dist)) {
  try {
    renameSync(dist, old)
  } catch {
    remove(dist) // Windows refuses to rename a folder with an open file in it
  }
}
renameSync(next, dist)
remove(old)
process.stdout.write(
  `build: ${relative(root, dist)}/ (JavaScript, source maps, declarations, ${data.length} data files)\n`,
)
