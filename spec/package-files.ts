/**
 * Where the package's own data files are read from: its root (the folder of its package.json), whether the code
 * runs from the TypeScript sources (tsx, vitest), from dist/ in a clone, or from an installed package. The data
 * files a user is told about (fixtures/seed-pets.json, fixtures/new-pets.json) are read there, never from a copy
 * under dist/, so editing one takes effect at once, without a build.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PACKAGE_NAME = 'petstore-conformance'

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return dir
      } catch {
        // not a readable manifest: keep looking upwards
      }
    }
    if (dirname(dir) === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package above ${start}`)
  }
}

/** The package's root folder: the one holding its package.json (and fixtures/, shipped in the package). */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)))

/** A file of the package, by its path from the package's root (e.g. `fixtures/seed-pets.json`). */
export function packageFile(path: string): string {
  return join(PACKAGE_ROOT, ...path.split('/'))
}
