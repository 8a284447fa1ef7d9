import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const withCycles = new ESLint({ cwd: ROOT, overrideConfigFile: join(ROOT, 'eslint.config.js') })
// The rules other than import-x/no-cycle, which reads every module an import reaches (seconds for an import of an
// index): each describe below looks at rules of its own, and only the one on cycles needs it.
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: join(ROOT, 'eslint.config.js'),
  overrideConfig: { rules: { 'import-x/no-cycle': 'off' } },
})

/** The layer rule's messages for `code` as if it were the file at `path` (from the project root). */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: join(ROOT, path) })
  return result!.messages.filter((m) => m.ruleId === 'import-x/no-restricted-paths').map((m) => m.message)
}

describe('npm run lint keeps the layers of docs/architecture.md', () => {
  it.each([
    ['stub/x.ts', `import { CHECKS } from '../suites/index.js'`, 'stub/ and suites/ never import each other'],
    [
      'suites/checks/x.ts',
      `import { createStub } from '../../stub/index.js'`,
      'suites/ and stub/ never import each other',
    ],
    [
      'stub/x.ts',
      `export const load = () => import('../suites/index.js')`,
      'stub/ and suites/ never import each other',
    ],
    ['reporters/x.ts', `import { runAll } from '../suites/engine/index.js'`, "never import the suite's engine"],
    ['model/x.ts', `import type { Config } from '../command/conformance/config.js'`, 'model/ imports only spec/'],
    ['model/x.ts', `import { basisFor } from '../spec/basis.js'`, 'import spec/ only through its index.ts'],
    ['spec/x.ts', `import type { RunResult } from '../model/index.js'`, 'spec/ is the bottom layer'],
    ['command/x.ts', `import { App } from '../stub/app.js'`, 'import stub/ only through its index.ts'],
    [
      'bench/x.ts',
      `import { slow } from '../test-support/misbehaving.js'`,
      'no product code or tool imports test helpers',
    ],
    ['scripts/x.ts', `import { KEY } from '../stub/testing.js'`, 'no product code or tool imports test helpers'],
    ['command/library.ts', `import { main } from './conformance/cli.js'`, "not the command's CLI"],
    [
      'suites/x.ts',
      `import { signed } from './checks/test-support.js'`,
      'no product code or tool imports test helpers',
    ],
  ])('refuses %s: %s', async (path, code, message) => {
    // An import deep into another layer may break two rules at once (the layer and its index.ts).
    expect(await layerErrors(path, code)).toEqual(expect.arrayContaining([expect.stringContaining(message)]))
  })

  it.each([
    ['command/x.ts', `import { startStub } from '../stub/index.js'\nimport { CHECKS } from '../suites/index.js'`],
    ['command/x.ts', `export const prism = () => import('../suites/prism/index.js')`],
    ['model/x.ts', `import { basisFor } from '../spec/index.js'`],
    ['reporters/x.ts', `import { verdict } from '../model/index.js'`],
    [
      'suites/engine/x.ts',
      `import { CHECKS } from '../checks/index.js'\nimport { polite } from '../transport/polite.js'`,
    ],
    ['stub/x.test.ts', `import { CHECKS } from '../suites/index.js'\nimport { KEY } from './testing.js'`],
    [
      'command/library.ts',
      `import { NAME } from './conformance/tool.js'\nimport { catalogue } from '../suites/index.js'`,
    ],
    ['bench/x.ts', `import { tokenBucket } from './limiters.js'\nimport { createStub } from '../stub/index.js'`],
  ])('allows %s: %s', async (path, code) => {
    expect(await layerErrors(path, code)).toEqual([])
  })
})

describe('npm run lint keeps rooms one reader holds', () => {
  /** The rule ids ESLint reports for `code` as if it were the file at `path`. */
  const rules = async (path: string, code: string) => {
    const [result] = await eslint.lintText(`${code}\n`, { filePath: join(ROOT, path) })
    return result!.messages.map((m) => m.ruleId)
  }
  /** A function of `n` parameters that uses them all. */
  const fn = (n: number) => {
    const names = Array.from({ length: n }, (_, i) => `p${i}`)
    return `export const f = (${names.map((p) => `${p}: number`).join(', ')}) => ${names.join(' + ')}`
  }

  it('refuses a product function of 6 positional parameters and a product file over 500 lines', async () => {
    expect(await rules('stub/x.ts', fn(6))).toContain('@typescript-eslint/max-params')
    const long = Array.from({ length: 501 }, (_, i) => `export const v${i} = ${i}`).join('\n')
    expect(await rules('suites/x.ts', long)).toContain('max-lines')
  })

  it('allows 5 parameters, 500 lines, and either in a test', async () => {
    expect(await rules('stub/x.ts', fn(5))).toEqual([])
    const lines = Array.from({ length: 500 }, (_, i) => `export const v${i} = ${i}`).join('\n')
    expect(await rules('suites/x.ts', lines)).toEqual([])
    expect(await rules('stub/x.test.ts', fn(6))).toEqual([])
  })
})

describe('npm run lint keeps one door to the spec', () => {
  /** The messages of the one-door rule for `code` as if it were the file at `path`. */
  const doorErrors = async (path: string, code: string) => {
    const [result] = await eslint.lintText(`${code}\n`, { filePath: join(ROOT, path) })
    return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)
  }

  it.each([
    ['suites/checks/x.ts', `import { spec, operationPointer } from '../../spec/index.js'`],
    ['suites/checks/x.ts', `import { bundledSpec } from '../../spec/index.js'`],
    ['suites/checks/x.ts', `import * as specs from '../../spec/index.js'`],
    ['suites/checks/x.ts', `export { useSpec } from '../../spec/index.js'`],
    ['suites/scenarios/x.ts', `import { spec as inUse } from '../../spec/index.js'`],
    ['suites/values/x.ts', `import { loadSpec } from '../../spec/index.js'`],
  ])('refuses %s: %s', async (path, code) => {
    expect(await doorErrors(path, code)).toEqual([
      expect.stringContaining('reach the spec only through their arguments'),
    ])
  })

  it.each([
    ['suites/checks/x.ts', `import { operationPointer, type Spec } from '../../spec/index.js'`],
    ['suites/scenarios/x.ts', `import { stringifyJson } from '../../spec/index.js'`],
    ['suites/checks/x.test.ts', `import { spec } from '../../spec/index.js'`],
    ['suites/checks/test-support.ts', `import { spec } from '../../spec/index.js'`],
    ['suites/engine/x.ts', `import { spec } from '../../spec/index.js'`],
  ])('allows %s: %s', async (path, code) => {
    expect(await doorErrors(path, code)).toEqual([])
  })
})

describe('npm run lint keeps imports one way', () => {
  /** The rule ids ESLint reports for `code` as if it were the file at `path`. */
  const rules = async (path: string, code: string) => {
    const [result] = await withCycles.lintText(`${code}\n`, { filePath: join(ROOT, path) })
    return result!.messages.map((m) => m.ruleId)
  }

  it('refuses a product module importing one that imports it (the run and the selection)', async () => {
    expect(
      await rules('suites/engine/selection.ts', `import { Run } from './run.js'\nexport const made = Run`),
    ).toContain('import-x/no-cycle')
  })

  it('allows an import the other module does not return', async () => {
    expect(
      await rules('suites/engine/run.ts', `import { Selection } from './selection.js'\nexport const s = Selection`),
    ).toEqual([])
  })

  it("leaves no cycle among the engine's modules, type imports included (which the rule does not follow)", () => {
    const folder = join(ROOT, 'suites/engine')
    const modules = readdirSync(folder).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    const imports = new Map(
      modules.map((file) => [
        file,
        [...readFileSync(join(folder, file), 'utf8').matchAll(/from '\.\/([^']+)\.js'/g)].map((m) => `${m[1]}.ts`),
      ]),
    )
    // Depth first from each module: a module met again on the path it started is a cycle.
    const cycles: string[] = []
    const walk = (file: string, path: string[]) => {
      if (path.includes(file)) return void cycles.push([...path.slice(path.indexOf(file)), file].join(' > '))
      for (const next of imports.get(file) ?? []) walk(next, [...path, file])
    }
    for (const file of modules) walk(file, [])
    expect(imports.get('run.ts')).toEqual(expect.arrayContaining(['recorder.ts', 'judge.ts', 'selection.ts']))
    expect([...new Set(cycles)]).toEqual([])
  })
})

describe('npm run lint keeps one way to start a target and one way to run a process in tests', () => {
  /** The messages of the one-way rules for `code` as if it were the file at `path`. */
  const oneWay = async (path: string, code: string) => {
    const [result] = await eslint.lintText(`${code}\n`, { filePath: join(ROOT, path) })
    return result!.messages
      .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
      .map((m) => m.message)
  }

  it.each([
    ['tests/x.test.ts', `import { spawn } from 'node:child_process'`, 'test-support/run-command.ts'],
    ['tests/x.e2e.test.ts', `import { execFileSync } from 'child_process'`, 'test-support/run-command.ts'],
    ['tests/x.test.ts', `import { createServer } from 'node:http'`, 'test-support/targets.ts'],
    ['suites/x.test.ts', `import http from 'node:http'\nhttp.createServer(() => undefined)`, 'targets.ts'],
    ['tests/x.test.ts', `import { startStub } from '../stub/index.js'`, 'test-support/targets.ts'],
    ['tests/x.test.ts', `import { startStack } from '../test-support/stacks.js'`, 'test-support/targets.ts'],
    [
      'tests/x.test.ts',
      `import { startIndependent } from '../test-support/targets/server.js'`,
      'test-support/targets.ts',
    ],
    [
      'tests/x.test.ts',
      `import { FRAMEWORKS } from '../test-support/frameworks/index.js'\nawait FRAMEWORKS['Express 5'].start({})`,
      'test-support/targets.ts',
    ],
    [
      'tests/x.test.ts',
      `import * as target from '../test-support/misbehaving.js'\nawait target.serveFetch(fetch)`,
      'test-support/targets.ts',
    ],
  ])('refuses in %s: %s', async (path, code, message) => {
    expect(await oneWay(path, code)).toEqual([expect.stringContaining(message)])
  })

  it.each([
    ['tests/x.test.ts', `import type { ChildProcess } from 'node:child_process'`],
    ['tests/x.test.ts', `import { STACKS } from '../test-support/stacks.js'\nimport { request } from 'node:http'`],
    ['stub/x.test.ts', `import { startStub } from './index.js'`], // the stub's own tests test its server
    ['test-support/x.ts', `import { spawn } from 'node:child_process'\nimport { createServer } from 'node:http'`],
    ['bench/x.ts', `import { createServer } from 'node:http'`],
  ])('allows in %s: %s', async (path, code) => {
    expect(await oneWay(path, code)).toEqual([])
  })
})
