/**
 * The GitHub Action as a runner gets it at a release tag: this commit cloned, released there by
 * scripts/release.mjs (its build, dist/, committed into the release and tagged v<version> and v<major>), and the
 * `v<major>` tag checked out as the action's folder. Then the action's own steps, run as a runner runs a
 * composite action's `run` steps: each script through `bash --noprofile --norc -eo pipefail`, with the step's
 * `env` and `working-directory`, `${{ inputs.* }}` and `${{ github.action_path }}` filled in, and `GITHUB_OUTPUT` /
 * `GITHUB_STEP_SUMMARY` as files. The install step runs for real (the release's runtime dependencies, from npm's
 * cache here) and its time is printed as `[figures]`; `actions/upload-artifact` is not run. Skipped where there is
 * no bash or git (GitHub's Windows runners have both).
 */
import { cpSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT, runProcess, runProcessSync, startCommand, type Finished } from '../test-support/run-command.js'

interface Step {
  id?: string
  if?: string
  run?: string
  uses?: string
  env?: Record<string, string>
  'working-directory'?: string
}
const action = parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>
  runs: { steps: Step[] }
}
const hasBash = runProcessSync('bash', ['-c', 'true']).code === 0 && runProcessSync('git', ['--version']).code === 0

/** The action's folder: the release tag `v<major>` of this commit, checked out (set in beforeAll). */
let actionPath = ROOT

interface ActionRun {
  /** The run step's outcome (the conformance command's). */
  run: Finished
  outputs: Record<string, string>
  summary: string
  /** The files of the output directory. */
  reports: string[]
  workspace: string
}

const workspaces: string[] = []
afterAll(async () => {
  for (const dir of workspaces) await rm(dir, { recursive: true, force: true })
})

/** Runs the action's `run` steps with `inputs` over the defaults, in a fresh workspace. */
async function runAction(inputs: Record<string, string>): Promise<ActionRun> {
  const workspace = await mkdtemp(join(tmpdir(), 'petstore-action-'))
  workspaces.push(workspace)
  const values = {
    ...Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? ''])),
    ...inputs,
  }
  const files = { GITHUB_OUTPUT: join(workspace, '.output'), GITHUB_STEP_SUMMARY: join(workspace, '.summary') }
  for (const file of Object.values(files)) await writeFile(file, '')
  const expand = (text: string) =>
    text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, name: string) => {
      if (name === 'github.action_path') return actionPath
      if (name.startsWith('inputs.')) return values[name.slice('inputs.'.length)] ?? ''
      throw new Error(`the test does not know ${name}`)
    })
  let failed = false
  let run: Finished | undefined
  for (const step of action.runs.steps) {
    if (!step.run || step.id === 'install') continue // installed once in beforeAll; `uses` steps are not run
    if (failed && step.if !== 'always()') continue
    const script = join(workspace, '.step.sh')
    await writeFile(script, step.run)
    const env = {
      ...files,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(value)])),
    }
    const cwd = step['working-directory'] ? expand(step['working-directory']) : workspace
    const done = await runProcess('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd,
      env,
      timeoutMs: 180_000,
    })
    if (step.id === 'run') run = done
    if (done.code !== 0) failed = true
  }
  const outputs = Object.fromEntries(
    (await readFile(files.GITHUB_OUTPUT, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  )
  const reports = await readdir(join(workspace, values['output-dir']!)).catch(() => [])
  return { run: run!, outputs, summary: await readFile(files.GITHUB_STEP_SUMMARY, 'utf8'), reports, workspace }
}

describe.runIf(hasBash)("the action's steps", () => {
  beforeAll(async () => {
    const build = await runProcess(process.execPath, [join(ROOT, 'scripts/build.mjs')], { timeoutMs: 300_000 })
    if (build.code !== 0) throw new Error(`build failed: ${build.stderr}`)
    const work = await mkdtemp(join(tmpdir(), 'petstore-action-release-'))
    workspaces.push(work)
    const git = async (cwd: string, ...args: string[]) => {
      const done = await runProcess('git', args, { cwd, timeoutMs: 120_000 })
      if (done.code !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr}`)
      return done.stdout.trim()
    }
    // The maintainer's clone, released with this checkout's build (the same sources, already built above).
    const clone = join(work, 'kit')
    await git(work, 'clone', '--quiet', '--no-local', ROOT, clone)
    await git(clone, 'config', 'user.email', 'release@petstore.test')
    await git(clone, 'config', 'user.name', 'Release')
    const { release } = (await import(join(ROOT, 'scripts/release.mjs'))) as {
      release: (o: { cwd: string; build: (cwd: string) => void }) => { majorTag: string }
    }
    const { majorTag } = release({
      cwd: clone,
      build: (cwd) => cpSync(join(ROOT, 'dist'), join(cwd, 'dist'), { recursive: true }),
    })
    // What `uses: owner/repo@v1` fetches: the tag, checked out alone.
    actionPath = join(work, 'action')
    await git(work, 'clone', '--quiet', '--depth', '1', '--branch', majorTag, `file://${clone}`, actionPath)
    const install = action.runs.steps.find((step) => step.id === 'install')!
    const script = join(work, '.install.sh')
    await writeFile(script, install.run!)
    const started = performance.now()
    const installed = await runProcess('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: actionPath,
      timeoutMs: 300_000,
    })
    const seconds = (performance.now() - started) / 1000
    if (installed.code !== 0) throw new Error(`the install step failed: ${installed.stdout}${installed.stderr}`)
    const packages = (await readdir(join(actionPath, 'node_modules'))).length
    console.info(
      `[figures] the action's install step at ${majorTag}: ${seconds.toFixed(1)} s, ${packages} node_modules entries`,
    )
  })

  it('at a release tag, installs the build with its runtime dependencies only: no dev tree, no build', async () => {
    await expect(readdir(join(actionPath, 'node_modules', 'typescript'))).rejects.toThrow()
    await expect(readdir(join(actionPath, 'node_modules', '@stoplight'))).rejects.toThrow()
    expect(await readdir(join(actionPath, 'dist', 'command'))).toContain('index.js')
  })

  it('with the defaults, judge the embedded stub: exit 0, every report, the Markdown one in the job summary', async () => {
    const { run, outputs, summary, reports, workspace } = await runAction({})
    expect(run.code, run.stdout.slice(-3000) + run.stderr).toBe(0)
    expect(outputs['exit-code']).toBe('0')
    expect(reports.sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
    expect(summary).toBe(await readFile(join(workspace, 'conformance-reports/report.md'), 'utf8'))
  })

  it('against a service with its key: the key reaches the command from the environment and appears nowhere', async () => {
    const key = 'action-secret-9d2e'
    const stub = startCommand('stub', ['--port', '0', '--api-key', key, '--quiet'], { timeoutMs: 180_000 })
    try {
      const [, url] = await stub.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/)
      const { run, outputs, summary, workspace } = await runAction({
        'base-url': url!,
        'api-key': key,
        strict: 'true',
        reporters: 'console,json,markdown',
        args: '--runs 5 --seed 7',
        'output-dir': 'out/reports',
      })
      expect(run.code, run.stdout.slice(-3000) + run.stderr).toBe(0)
      expect(outputs['exit-code']).toBe('0')
      const report = JSON.parse(await readFile(join(workspace, 'out/reports/report.json'), 'utf8'))
      expect(report).toMatchObject({ target: { baseUrl: url, embedded: false }, seed: 7, runs: 5, strict: true })
      for (const text of [run.stdout, run.stderr, summary, JSON.stringify(report)]) expect(text).not.toContain(key)
    } finally {
      stub.stop()
    }
  })

  it('against a service that breaks the interface: the step fails with exit 1, and the summary is still written', async () => {
    const stub = startCommand('stub', ['--port', '0', '--api-key', 'k', '--fault', 'limit-ignored', '--quiet'], {
      timeoutMs: 180_000,
    })
    try {
      const [, url] = await stub.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/)
      const { run, outputs, summary } = await runAction({ 'base-url': url!, 'api-key': 'k', args: '--runs 5' })
      expect(run.code).toBe(1)
      expect(outputs['exit-code']).toBe('1')
      expect(summary).toMatch(/listPets\.limit/)
    } finally {
      stub.stop()
    }
  })

  it('with a key the service refuses: exit 2, and the summary says why, what was tried and what to do', async () => {
    const stub = startCommand('stub', ['--port', '0', '--api-key', 'the-right-key', '--quiet'], { timeoutMs: 180_000 })
    try {
      const [, url] = await stub.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/)
      const { run, outputs, summary, reports } = await runAction({ 'base-url': url!, 'api-key': 'a-rotated-key' })
      expect(run.code).toBe(2)
      expect(outputs['exit-code']).toBe('2')
      expect(reports.sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md'])
      expect(summary).toMatch(/^## ⚠️ Pet Store conformance: COULD NOT RUN/)
      expect(summary).toContain('the target refused the API key')
      expect(summary).toMatch(/\*\*Tried:\*\*[\s\S]*-> 401/)
      expect(summary).toContain('**What to do:** Check the key')
      expect(summary).not.toContain('a-rotated-key')
    } finally {
      stub.stop()
    }
  })
})
