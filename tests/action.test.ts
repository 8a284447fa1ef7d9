/**
 * The GitHub Action (`action.yml`) is valid action metadata, by the published schema (SchemaStore's
 * `github-action.json`, vendored in fixtures/schemastore/ since tests run offline), and agrees with the kit:
 * every input it uses is declared, the command it runs exists, its reporters are the command's, and the key
 * reaches the command only through the environment. `action.e2e.test.ts` runs its steps.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { REPORTERS } from '../command/conformance/config.js'

const ROOT = new URL('..', import.meta.url)
const text = readFileSync(new URL('action.yml', ROOT), 'utf8')
const action = parse(text) as {
  inputs: Record<string, { description: string; default?: string; required?: boolean }>
  outputs: Record<string, { value: string }>
  runs: {
    using: string
    steps: {
      id?: string
      run?: string
      uses?: string
      env?: Record<string, string>
      if?: string
      with?: Record<string, string>
    }[]
  }
}
const schema = JSON.parse(readFileSync(new URL('fixtures/schemastore/github-action.json', ROOT), 'utf8'))

function validate(metadata: unknown) {
  const ajv = new Ajv({ allErrors: true, strict: false }) // Ajv's strict mode refuses the published schema (`properties` in an `if` without `type`)
  const check = ajv.compile(schema)
  return check(metadata) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
}

describe('action.yml', () => {
  it('validates against the published schema for GitHub Action metadata', () => {
    expect(validate(action)).toEqual([])
  })

  it('is checked for real: the schema refuses an action without runs, or with an unknown input field', () => {
    const { runs: _runs, ...noRuns } = action
    expect(validate(noRuns)).not.toEqual([])
    expect(validate({ ...action, inputs: { ...action.inputs, x: { description: 'x', type: 'string' } } })).not.toEqual(
      [],
    )
  })

  it('is a composite action (no container) that installs the kit from its own ref and runs its command', () => {
    expect(action.runs.using).toBe('composite')
    const install = action.runs.steps.find((s) => s.id === 'install')
    expect(install).toMatchObject({ 'working-directory': '${{ github.action_path }}' })
    // a release's build (dist/, committed by scripts/release.mjs) gets the runtime dependencies only, no scripts
    expect(install?.run).toContain('if [ -f dist/command/conformance/main.js ]')
    expect(install?.run).toContain('npm ci --omit=dev --ignore-scripts')
    expect(readFileSync(new URL('scripts/release.mjs', ROOT), 'utf8')).toContain("'add', '--force', '--', 'dist'")
    const run = action.runs.steps.find((s) => s.id === 'run')!
    expect(run.run).toContain('"$KIT/bin/petstore-conformance.js"')
    expect(run.env?.KIT).toBe('${{ github.action_path }}')
    expect(existsSync(fileURLToPath(new URL('bin/petstore-conformance.js', ROOT)))).toBe(true)
  })

  it('declares every input it uses, and documents each', () => {
    const used = new Set([...text.matchAll(/inputs\.([\w-]+)/g)].map((m) => m[1]!))
    expect([...used].sort()).toEqual(Object.keys(action.inputs).sort())
    for (const [name, input] of Object.entries(action.inputs)) expect(input.description, name).toMatch(/\w{3}/)
  })

  it('passes the key only through the environment, never on a command line', () => {
    for (const step of action.runs.steps) expect(step.run ?? '').not.toContain('inputs.')
    expect(action.runs.steps.find((s) => s.id === 'run')!.env?.PETSTORE_API_KEY).toBe('${{ inputs.api-key }}')
  })

  it('defaults to reporters the command knows, the Markdown one included for the job summary', () => {
    const reporters = action.inputs.reporters!.default!.split(/[\s,]+/)
    expect(reporters.every((r) => (REPORTERS as readonly string[]).includes(r))).toBe(true)
    expect(reporters).toContain('markdown')
  })

  it('adds the Markdown report to the job summary and uploads the reports, also when the run fails', () => {
    const summary = action.runs.steps.find((s) => s.run?.includes('$GITHUB_STEP_SUMMARY'))!
    expect(summary.if).toBe('always()')
    expect(summary.run).toContain('report.md')
    const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!
    expect(upload.if).toMatch(/^always\(\)/)
    expect(upload.with?.path).toBe('${{ inputs.output-dir }}')
  })
})
