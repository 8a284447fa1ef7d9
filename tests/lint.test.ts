import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: join(ROOT, 'eslint.config.js') })

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
    ['bench/x.ts', `import { tokenBucket } from './limiters.js'\nimport { createStub } from '../stub/index.js'`],
  ])('allows %s: %s', async (path, code) => {
    expect(await layerErrors(path, code)).toEqual([])
  })
})
