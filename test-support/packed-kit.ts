/**
 * The kit as a user's project gets it: `npm pack` (which builds dist/), and the tarball installed into a fresh
 * project from npm's cache. npm runs by this Node (its own entry points, no shell), with none of the variables of
 * the npm run that started the tests (`npm_config_local_prefix` would point the project's npm at this checkout).
 * For `*.e2e.test.ts` files only.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { ROOT, runProcess, type Finished, type RunOptions } from './run-command.js'

/** npm's and npx's entry points, run by this Node. */
export const NPM_CLI = process.env.npm_execpath?.endsWith('npm-cli.js')
  ? process.env.npm_execpath
  : join(dirname(process.execPath), process.platform === 'win32' ? '' : '../lib', 'node_modules/npm/bin/npm-cli.js')
export const NPX_CLI = join(dirname(NPM_CLI), 'npx-cli.js')

/** The user's environment: nothing of the npm or vitest run that started these tests. */
export const consumerEnv: Record<string, undefined> = Object.fromEntries(
  Object.keys(process.env)
    .filter((name) => name.startsWith('npm_') || name === 'INIT_CWD' || name.startsWith('VITEST') || name === 'TEST')
    .map((name) => [name, undefined]),
)

export const npm = (args: string[], options: RunOptions) =>
  runProcess(process.execPath, [NPM_CLI, ...args], { env: consumerEnv, timeoutMs: 300_000, ...options })

export function ok(run: Finished): Finished {
  if (run.code !== 0)
    throw new Error(`exit ${run.code ?? run.signal}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`)
  return run
}

/** Packs the kit into `work` and installs the tarball (and `extra` packages) into a new project there. */
export async function projectWithKit(
  work: string,
  extra: string[] = [],
): Promise<{ project: string; tarball: string }> {
  const pack = ok(await npm(['pack', '--json', '--pack-destination', work], { cwd: ROOT }))
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string }[]
  const tarball = join(work, packed!.filename)
  const project = join(work, 'project')
  await mkdir(project, { recursive: true })
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'project', version: '1.0.0', private: true, type: 'module' }, null, 2),
  )
  ok(
    await npm(['install', '--save-dev', tarball, ...extra, '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: project,
    }),
  )
  return { project, tarball }
}
