/**
 * The package as a service team gets it. `npm pack` (which builds dist/), the tarball installed into an empty
 * project from the local npm cache (`npm install ./petstore-conformance-<version>.tgz`), and then, from a
 * working directory inside that project and far from the kit's sources: both commands through `npx`, the library
 * imported from plain Node and type-checked by TypeScript, and the published types checked by
 * `@arethetypeswrong/cli`. Also the limits the kit promises: a tarball of at most 1 MB, an install without Prism
 * of at most 60 MB, and `--via-prism` without Prism saying in one line how to install it.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consumerEnv, npm, NPX_CLI, ok } from '../test-support/packed-kit.js'
import { ROOT, runProcess, startProcess, type RunOptions } from '../test-support/run-command.js'

const require = createRequire(import.meta.url)
const MB = 1_000_000

const npx = (args: string[], options: RunOptions) =>
  runProcess(process.execPath, [NPX_CLI, ...args], { env: consumerEnv, timeoutMs: 180_000, ...options })

/** Bytes on disk under `path`, as `du` counts them (allocated blocks), links not followed. */
async function diskUsage(path: string): Promise<number> {
  const stat = await lstat(path)
  let total = stat.blocks * 512
  if (stat.isDirectory()) for (const name of await readdir(path)) total += await diskUsage(join(path, name))
  return total
}

interface Packed {
  filename: string
  size: number
  unpackedSize: number
  files: { path: string }[]
}

let work: string
let packed: Packed
let tarball: string
let project: string
/** A working directory of the consumer's, not its root and nowhere near the kit's sources. */
let cwd: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'petstore-package-'))
  const pack = ok(await npm(['pack', '--json', '--pack-destination', work], { cwd: ROOT }))
  packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Packed[])[0]!
  tarball = join(work, packed.filename)
  project = join(work, 'service')
  cwd = join(project, 'ci', 'conformance')
  await mkdir(cwd, { recursive: true })
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'service', version: '1.0.0', private: true }, null, 2),
  )
  ok(await npm(['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project }))
})

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

describe('the packed package', () => {
  it('is a tarball of at most 1 MB: the build, its source maps and declarations, and the bins; no sources or tests', () => {
    console.info(
      `npm pack: ${packed.filename}, ${(packed.size / MB).toFixed(2)} MB (${(packed.unpackedSize / MB).toFixed(2)} MB unpacked, ${packed.files.length} files)`,
    )
    expect(packed.size).toBeLessThanOrEqual(1 * MB)
    // docs/package.md gives the tarball's size and file count as `about N kB holding about M files`: near what npm says.
    const said = /`petstore-conformance-[\d.]+\.tgz`, about (\d+) kB holding about (\d+) files/.exec(
      readFileSync(join(ROOT, 'docs/package.md'), 'utf8'),
    )
    expect(said, 'docs/package.md states the tarball size and file count').not.toBeNull()
    expect(Math.abs(packed.size / 1000 - Number(said![1])) / Number(said![1])).toBeLessThan(0.1)
    expect(Math.abs(packed.files.length - Number(said![2])) / Number(said![2])).toBeLessThan(0.05)
    expect(packed.filename).toBe(
      `petstore-conformance-${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}.tgz`,
    )
    const paths = packed.files.map((f) => f.path)
    for (const needed of [
      'package.json',
      'bin/petstore-conformance.js',
      'bin/petstore-stub.js',
      'dist/command/index.js',
      'dist/command/index.js.map',
      'dist/command/index.d.ts',
      'dist/suites/conformance.vitest.js',
      'dist/spec/petstore.yaml',
      'dist/stub/admin.yaml',
      'fixtures/seed-pets.json',
      'fixtures/new-pets.json',
      'dist/spec/client-types.d.ts',
      'dist/reporters/result.schema.json',
    ])
      expect(paths).toContain(needed)
    expect(paths.filter((p) => p.startsWith('dist/fixtures/'))).toEqual([])
    expect(
      paths.filter((p) => /(^|\/)(tests?|test-support|bench|docs|scripts)\/|\.test\.|\.tgz$|(?<!\.d)\.ts$/.test(p)),
    ).toEqual([])
  })

  it('installs without Prism in at most 60 MB', async () => {
    const bytes = await diskUsage(join(project, 'node_modules'))
    console.info(
      `installed node_modules: ${(bytes / MB).toFixed(1)} MB, ${(await readdir(join(project, 'node_modules'))).length} entries`,
    )
    expect(bytes).toBeLessThanOrEqual(60 * MB)
    await expect(lstat(join(project, 'node_modules/@stoplight/prism-cli'))).rejects.toThrow()
    await expect(lstat(join(project, 'node_modules/tsx'))).rejects.toThrow()
  })

  it('has types that @arethetypeswrong/cli finds nothing wrong with (an ESM-only package)', async () => {
    const manifest = require.resolve('@arethetypeswrong/cli/package.json')
    const { bin } = JSON.parse(await readFile(manifest, 'utf8')) as { bin: Record<string, string> }
    ok(
      await runProcess(process.execPath, [join(dirname(manifest), bin.attw!), tarball, '--profile', 'esm-only'], {
        timeoutMs: 120_000,
      }),
    )
  })
})

describe('installed from the tarball, from a working directory of the consumer', () => {
  it('npx petstore-conformance judges the embedded stub: exit 0, reports in ./reports', async () => {
    const run = await npx(['petstore-conformance', '--quiet'], { cwd })
    expect(run.code, run.stdout.slice(-3000) + run.stderr).toBe(0)
    expect(run.stdout).toMatch(/Verdict: conformant/)
    expect(await readdir(join(cwd, 'reports'))).toEqual(
      expect.arrayContaining(['junit.xml', 'report.json', 'report.html']),
    )
  })

  it('npx petstore-stub serves; npx petstore-conformance --base-url ... --api-key ... judges it: exit 0', async () => {
    const key = 'service-team-key-5f1c'
    const stub = startProcess(process.execPath, [NPX_CLI, 'petstore-stub', '--port', '0', '--api-key', key], {
      cwd,
      env: consumerEnv,
      timeoutMs: 180_000,
    })
    try {
      const [, url] = await stub.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/)
      const run = await npx(['petstore-conformance', '--base-url', url!, '--api-key', key, '--reporter', 'console'], {
        cwd,
      })
      expect(run.code, run.stdout.slice(-3000) + run.stderr).toBe(0)
      expect(run.stdout).toContain(url)
      expect(run.stdout + run.stderr).not.toContain(key)
    } finally {
      stub.stop('SIGTERM')
    }
    const stopped = await stub.exited
    expect(stopped.timedOut).toBe(false)
  })

  it("the stub's default seed is the installed package's fixtures/seed-pets.json, read as it is now", async () => {
    const seed = join(project, 'node_modules', 'petstore-conformance', 'fixtures', 'seed-pets.json')
    const original = await readFile(seed, 'utf8')
    await writeFile(seed, '[{"id": 41, "name": "Edited", "categoryId": 9007199254740993}]')
    try {
      await writeFile(
        join(cwd, 'seed.mjs'),
        `import { createStub } from 'petstore-conformance'
const stub = createStub({ apiKeys: ['k'] })
const answer = await stub.fetch(new Request('http://stub.test/v1/pets', { headers: { authorization: 'Bearer k' } }))
console.log(await answer.text())
`,
      )
      const run = ok(await runProcess(process.execPath, ['seed.mjs'], { cwd, env: consumerEnv, timeoutMs: 60_000 }))
      expect(run.stdout.trim()).toBe('[{"id":41,"name":"Edited","categoryId":9007199254740993}]')
    } finally {
      await writeFile(seed, original)
    }
  })

  it('--via-prism without Prism: exit 2 and one line giving the command that installs it', async () => {
    const run = await npx(['petstore-conformance', '--via-prism', '--quiet', '--reporter', 'console'], { cwd })
    expect(run.code).toBe(2)
    const lines = run.stderr.split('\n').filter((line) => line.startsWith('petstore-conformance'))
    expect(lines).toEqual([
      expect.stringMatching(/Prism is not installed.*: npm install --save-dev @stoplight\/prism-cli@/),
    ])
    const { peerDependencies } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>
    }
    expect(lines[0]).toContain(`@stoplight/prism-cli@${peerDependencies['@stoplight/prism-cli']}`)
  })

  it("plain Node imports createStub, startStub, runConformance and the result's JSON schema", async () => {
    await writeFile(
      join(cwd, 'library.mjs'),
      `import { createStub, startStub, runConformance } from 'petstore-conformance'
import schema from 'petstore-conformance/result.schema.json' with { type: 'json' }
const stub = createStub({ apiKeys: ['k'] })
const answer = await stub.fetch(new Request('http://stub.test/v1/pets?limit=2', { headers: { authorization: 'Bearer k' } }))
const inProcess = await runConformance({ fetch: stub.fetch, apiKey: 'k', runs: 3 })
const live = await startStub({ apiKeys: ['k2'] })
const overHttp = await runConformance({ baseUrl: live.url, apiKey: 'k2', runs: 3 })
await live.close()
console.log(JSON.stringify({ status: answer.status, pets: (await answer.json()).length, inProcess: inProcess.verdict, overHttp: overHttp.verdict, schema: schema.title }))
`,
    )
    const run = ok(await runProcess(process.execPath, ['library.mjs'], { cwd, env: consumerEnv, timeoutMs: 120_000 }))
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({
      status: 200,
      pets: 2,
      inProcess: 'conformant',
      overHttp: 'conformant',
      schema: expect.any(String),
    })
  })

  it('TypeScript (nodenext, strict, no skipLibCheck) resolves the library, its result types and the client types', async () => {
    await writeFile(
      join(cwd, 'library-types.mts'),
      `import { createStub, runConformance, type CheckResult, type RunResult } from 'petstore-conformance'
import type { Error, NewPet, Pet, PetStatus } from 'petstore-conformance'
const result: RunResult = await runConformance({ fetch: createStub({ apiKeys: ['k'] }).fetch, apiKey: 'k' })
export const failed: CheckResult[] = result.checks.filter((c) => c.outcome === 'failed')
export const rex: NewPet = { name: 'Rex', categoryId: 1, status: 'available' }
export const stored: Pet = { ...rex, id: 7 }
export const statuses: PetStatus[] = ['available', 'pending', 'sold']
export const refused: Error = { code: 'missing_field', message: 'name is required', status: 400 }
// @ts-expect-error a status outside the spec's enum
export const lost: PetStatus = 'lost'
// @ts-expect-error a Pet has the id the service assigned
export const noId: Pet = { name: 'Rex', categoryId: 1 }
`,
    )
    const tsc = require.resolve('typescript/bin/tsc')
    const types = join(ROOT, 'node_modules/@types') // the consumer's @types/node, as any Node project has
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--typeRoots',
      types,
      '--types',
      'node',
      'library-types.mts',
    ]
    ok(await runProcess(process.execPath, [tsc, ...args], { cwd, timeoutMs: 120_000 }))
  })
})
