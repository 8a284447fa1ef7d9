/**
 * The data files a user is told about are the ones read: the default seed and the example pets come from the
 * package's own fixtures/ folder (shipped in the package), whether the code runs from the sources or from dist/,
 * never from a copy the build made. The packed package's e2e test shows the same in an installed package.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { PACKAGE_ROOT, packageFile, parseJson } from '../spec/index.js'
import { DEFAULT_SEED_PATH, createStub } from '../stub/index.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }

describe("the package's data files", () => {
  it('are found at the package root, from the sources', () => {
    expect(PACKAGE_ROOT).toBe(join(ROOT, '.'))
    expect(DEFAULT_SEED_PATH).toBe(join(ROOT, 'fixtures', 'seed-pets.json'))
    expect(packageFile('fixtures/new-pets.json')).toBe(join(ROOT, 'fixtures', 'new-pets.json'))
  })

  it('are shipped in the package, and the build copies none of them', () => {
    expect(manifest.files).toEqual(expect.arrayContaining(['fixtures/seed-pets.json', 'fixtures/new-pets.json']))
    expect(readFileSync(join(ROOT, 'scripts', 'build.mjs'), 'utf8')).not.toMatch(/fixtures\/seed-pets/)
  })

  it('the default seed is the file as it is now: the stub starts with exactly its pets', async () => {
    const pets = parseJson(readFileSync(join(ROOT, 'fixtures', 'seed-pets.json'), 'utf8')) as unknown[]
    const stub = createStub({ apiKeys: ['k'] })
    const answer = await stub.fetch(
      new Request('http://stub.test/v1/pets?limit=100', { headers: { authorization: 'Bearer k' } }),
    )
    expect(((await answer.json()) as unknown[]).length).toBe(Math.min(100, pets.length))
    expect(
      (
        await stub
          .fetch(new Request('http://stub.test/__stub/health'))
          .then((r) => r.json() as Promise<{ pets: number }>)
      ).pets,
    ).toBe(pets.length)
  })

  it('the compiled code (dist/, as the commands run it) reads the same files', async () => {
    const compiled = join(ROOT, 'dist', 'spec', 'package-files.js')
    expect(existsSync(compiled), 'dist/ is built by npm ci (npm run build)').toBe(true)
    const { packageFile: fromDist } = (await import(
      pathToFileURL(compiled).href
    )) as typeof import('../spec/package-files.js')
    expect(fromDist('fixtures/seed-pets.json')).toBe(DEFAULT_SEED_PATH)
    expect(existsSync(join(ROOT, 'dist', 'fixtures'))).toBe(false)
  })
})
