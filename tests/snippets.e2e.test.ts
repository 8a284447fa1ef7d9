/**
 * Every snippet of the README and docs/ marked `<!-- run: RUNNER -->` runs here as written, in a scratch project
 * that installed the packed kit (and MSW, for the MSW recipe) from npm's cache, as a user pastes it: shell lines
 * through bash from the project (the `curl` lines against the installed stub, started on a free port that
 * replaces 4010), TypeScript type-checked (strict, nodenext) and run by Node, the MSW recipe as a vitest test file
 * of the project with one test added that creates a pet through `fetch`. The markers themselves are checked by
 * tests/snippets.test.ts. Shell snippets are skipped where there is no bash.
 */
import { createRequire } from 'node:module'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consumerEnv, NPX_CLI, ok, projectWithKit } from '../test-support/packed-kit.js'
import { ROOT, runProcess, runProcessSync, startProcess } from '../test-support/run-command.js'
import { allSnippets, type Runner, type Snippet } from '../test-support/snippets.js'

const require = createRequire(import.meta.url)
const hasBash = runProcessSync('bash', ['-c', 'true']).code === 0
const runnable = allSnippets().filter(
  (s): s is Snippet & { marker: { run: Runner; note: string } } => s.marker !== undefined && 'run' in s.marker,
)

let work: string
let project: string
let counter = 0

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'petstore-snippets-'))
  ;({ project } = await projectWithKit(work, ['msw']))
})

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

/**
 * The block as a bash script: each command line, then a check of its exit code (0, or the `(exit N)` its comment
 * names), so that every line is judged and a failing one names itself.
 */
function shellScript(code: string): string {
  const out: string[] = []
  code.split('\n').forEach((line, i) => {
    if (line.trim() === '' || line.trim().startsWith('#')) return
    const expected = /#.*\(exit (\d+)\)/.exec(line)?.[1] ?? '0'
    out.push(line)
    out.push(
      `code=$?; if [ "$code" != ${expected} ]; then echo "snippet line ${i + 1} exited $code, not ${expected}" >&2; exit 1; fi`,
    )
  })
  return out.join('\n') + '\n'
}

async function runShell(code: string) {
  const script = join(work, `snippet-${++counter}.sh`)
  await writeFile(script, shellScript(code))
  return runProcess('bash', ['--noprofile', '--norc', script], { cwd: project, env: consumerEnv, timeoutMs: 300_000 })
}

async function typeCheck(file: string) {
  const tsc = require.resolve('typescript/bin/tsc')
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022']
  const types = ['--typeRoots', join(ROOT, 'node_modules/@types'), '--types', 'node'] // any Node project's @types/node
  return runProcess(process.execPath, [tsc, ...args, ...types, '--skipLibCheck', file], {
    cwd: project,
    timeoutMs: 120_000,
  })
}

async function runTypeScript(code: string, execute: boolean) {
  const name = `snippet-${++counter}`
  await writeFile(join(project, `${name}.mts`), code)
  ok(await typeCheck(`${name}.mts`))
  if (!execute) return
  const ts = (await import('typescript')).default
  const js = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText
  await writeFile(join(project, `${name}.mjs`), js)
  ok(await runProcess(process.execPath, [`${name}.mjs`], { cwd: project, env: consumerEnv, timeoutMs: 120_000 }))
}

/** The recipe, pasted into a test file of the project, and one test that goes through it. */
async function runMsw(code: string) {
  const test = `${code}

import { expect, it } from 'vitest'

it('the recipe answers the client from the stub, and keeps what it sent', async () => {
  const created = await fetch('https://api.example/v1/pets', {
    method: 'POST',
    headers: { authorization: 'Bearer petstore-dev-key', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  })
  expect(created.status).toBe(201)
  expect(await created.json()).toMatchObject({ name: 'Rex', categoryId: 1 })
  expect(stub.requests({ method: 'POST' })).toHaveLength(1)
  const refused = await fetch('https://api.example/v1/pets')
  expect(refused.status).toBe(401)
})
`
  await writeFile(join(project, 'msw-recipe.test.ts'), test)
  const run = await runProcess(process.execPath, [NPX_CLI, 'vitest', 'run', 'msw-recipe.test.ts'], {
    cwd: project,
    env: consumerEnv,
    timeoutMs: 180_000,
  })
  expect(run.code, run.stdout.slice(-3000) + run.stderr.slice(-3000)).toBe(0)
  expect(run.stdout).toMatch(/1 passed/)
}

describe('the snippets of the README and docs/, run as written', () => {
  it('are many: every runner is used', () => {
    expect(new Set(runnable.map((s) => s.marker.run))).toEqual(
      new Set(['project-sh', 'project-sh-stub', 'project-ts', 'project-tsc', 'project-msw']),
    )
  })

  for (const snippet of runnable) {
    const name = `${snippet.file}:${snippet.line} (${snippet.marker.run})`
    const shell = snippet.marker.run === 'project-sh' || snippet.marker.run === 'project-sh-stub'
    it.runIf(!shell || hasBash)(name, async () => {
      switch (snippet.marker.run) {
        case 'project-sh': {
          const run = await runShell(snippet.code)
          expect(run.code, run.stdout.slice(-3000) + run.stderr.slice(-3000)).toBe(0)
          break
        }
        case 'project-sh-stub': {
          const bin = join(project, 'node_modules/petstore-conformance/bin/petstore-stub.js')
          const stub = startProcess(process.execPath, [bin, '--port', '0'], { cwd: project, timeoutMs: 180_000 })
          try {
            const [, port] = await stub.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/)
            const run = await runShell(snippet.code.replaceAll('127.0.0.1:4010', `127.0.0.1:${port}`))
            expect(run.code, run.stdout.slice(-3000) + run.stderr.slice(-3000)).toBe(0)
            for (const [, status] of snippet.code.matchAll(/curl -i .*Prefer: code=(\d+)/g))
              expect(run.stdout).toMatch(new RegExp(`HTTP/1\\.1 ${status} `)) // a body printed before has no newline
            if (/limit=2/.test(snippet.code)) expect(run.stdout).toMatch(/^\[\{"id":\d+,"name":/m)
          } finally {
            stub.stop()
          }
          break
        }
        case 'project-ts':
          await runTypeScript(snippet.code, true)
          break
        case 'project-tsc':
          await runTypeScript(snippet.code, false)
          break
        case 'project-msw':
          await runMsw(snippet.code)
          break
      }
    })
  }
})
