import { describe, expect, it } from 'vitest'
import { DEFAULT_REPORTERS, DEFAULT_RUNS, DEFAULT_TIMEOUT_MS, recordAllowances, resolveConfig, UsageError } from './config.js'

const sum = (runs: number) => Object.values(recordAllowances(runs)).reduce((a, b) => a + b, 0)

describe('resolveConfig', () => {
  it('fills every default and freezes the result; no base URL means the embedded stub', () => {
    const config = resolveConfig({}, {})
    expect(config).toMatchObject({ baseUrl: undefined, runs: DEFAULT_RUNS, timeoutMs: DEFAULT_TIMEOUT_MS, strict: false, viaPrism: false, checks: [], operations: [] })
    expect(config.reporters).toEqual(DEFAULT_REPORTERS)
    expect(Number.isInteger(config.seed)).toBe(true)
    expect(config.runId).toMatch(/^[0-9a-z]{7}$/)
    expect(Object.isFrozen(config)).toBe(true)
  })
  it('lets flags win over the environment', () => {
    const env = { PETSTORE_BASE_URL: 'http://env.example/v1', PETSTORE_API_KEY: 'env-key' }
    expect(resolveConfig({}, env)).toMatchObject({ baseUrl: 'http://env.example/v1', apiKey: 'env-key' })
    expect(resolveConfig({ baseUrl: 'https://flag.example/v1/', apiKey: 'flag-key' }, env)).toMatchObject({ baseUrl: 'https://flag.example/v1', apiKey: 'flag-key' })
  })
  it('reads numbers, selections and reporters', () => {
    const config = resolveConfig({ seed: '-42', runs: '5', timeout: '250', check: ['listPets.limit', 'response.schema'], operation: ['getPet'], reporter: ['json,junit'] }, {})
    expect(config).toMatchObject({ seed: -42, runs: 5, timeoutMs: 250, operations: ['getPet'], reporters: ['json', 'junit'] })
    expect(config.checks).toEqual(expect.arrayContaining(['listPets.limit.max', 'listPets.limit.fills', 'listPets.limit.default', 'response.schema']))
    expect(config.checks).not.toContain('listPets.status.filter')
  })
  it.each([
    [{ baseUrl: 'ftp://x/v1', apiKey: 'k' }, /http or https/],
    [{ baseUrl: 'not a url', apiKey: 'k' }, /absolute http\(s\) URL/],
    [{ baseUrl: 'http://x/v1' }, /--api-key/],
    [{ apiKey: 'two words' }, /without spaces/],
    [{ runs: '0' }, /--runs must be from 1/],
    [{ runs: 'many' }, /--runs must be an integer/],
    [{ seed: '1.5' }, /--seed must be an integer/],
    [{ seed: String(2 ** 31) }, /--seed must be from/],
    [{ timeout: '10' }, /--timeout must be from 100/],
    [{ check: ['no.such'] }, /names no check/],
    [{ operation: ['deletePet'] }, /--operation "deletePet" is not one of/],
    [{ reporter: ['pdf'] }, /--reporter "pdf" is not one of/],
  ])('refuses %o with a UsageError', (flags, message) => {
    expect(() => resolveConfig(flags, {})).toThrow(UsageError)
    expect(() => resolveConfig(flags, {})).toThrow(message)
  })
  it('keeps a default run within 250 created pets', () => {
    expect(resolveConfig({}, {}).recordBudget).toBe(sum(DEFAULT_RUNS))
    expect(sum(DEFAULT_RUNS)).toBeLessThanOrEqual(250)
  })
})
