/** How `--reporter` and `--quiet` add up: the default formats always, `--reporter` adding, `--quiet` dropping the console's report. */
import { describe, expect, it } from 'vitest'
import { UsageError } from '../usage-error.js'
import { DEFAULT_REPORTERS, reportersOf, resolveConfig } from './config.js'

const reporters = (...argv: string[]) => resolveConfig(argv, { PETSTORE_API_KEY: 'config-key-1' }).reporters

describe('--reporter and --quiet', () => {
  it('the default formats: console, junit, json, html', () => {
    expect(reporters()).toEqual([...DEFAULT_REPORTERS])
    expect(DEFAULT_REPORTERS).toEqual(['console', 'junit', 'json', 'html'])
  })

  it('--reporter adds to the defaults, each format once', () => {
    expect(reporters('--reporter', 'markdown')).toEqual(['console', 'junit', 'json', 'html', 'markdown'])
    expect(reporters('--reporter', 'markdown,json', '--reporter', 'console')).toEqual([
      'console',
      'junit',
      'json',
      'html',
      'markdown',
    ])
  })

  it('--quiet leaves out the console report, even when --reporter console asks for it', () => {
    expect(reporters('--quiet')).toEqual(['junit', 'json', 'html'])
    expect(reporters('-q', '--reporter', 'console', '--reporter', 'markdown')).toEqual([
      'junit',
      'json',
      'html',
      'markdown',
    ])
  })

  it('refuses a format it does not know', () => {
    expect(() => reportersOf(['pdf'], false)).toThrow(UsageError)
  })
})

describe('the first line of a run', () => {
  it('says how many checks run against what, before anything starts', async () => {
    const { startingLine } = await import('./cli.js')
    const config = resolveConfig(['--check', 'listPets.limit'], { PETSTORE_API_KEY: 'config-key-1' })
    expect(startingLine(config)).toMatch(/^running \d+ checks against the embedded stub …$/)
    const one = resolveConfig(['--base-url', 'https://staging.example/v1', '--check', 'listPets.limit.max'], {
      PETSTORE_API_KEY: 'config-key-1',
    })
    expect(startingLine(one)).toBe('running 1 check against https://staging.example/v1 …')
  })
})
