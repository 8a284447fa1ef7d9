/**
 * The client types are the spec's: spec/client-types.ts (written by the build, exported by the package) is what
 * scripts/client-types.mjs generates from spec/petstore.yaml today, and names every schema the spec has. That a
 * client type-checks against them, and misuse does not, is tests/fixtures/typed-client.ts, checked by `tsc`.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
// @ts-expect-error plain JavaScript run by the build, without declarations
import { clientTypes } from '../scripts/client-types.mjs'
import { packageFile } from '../spec/index.js'

const SPEC = packageFile('spec/petstore.yaml')

describe('the client types', () => {
  it('are what the spec generates today (else run npm run build)', async () => {
    const generated = (await clientTypes(SPEC)) as string
    expect(readFileSync(packageFile('spec/client-types.ts'), 'utf8')).toBe(generated)
  })

  it('name every schema of the spec, with its required properties and enum', async () => {
    const generated = (await clientTypes(SPEC)) as string
    const schemas = (parse(readFileSync(SPEC, 'utf8')) as { components: { schemas: Record<string, unknown> } })
      .components.schemas
    for (const name of Object.keys(schemas)) expect(generated).toMatch(new RegExp(`export (type|interface) ${name}\\b`))
    expect(generated).toContain(`export type PetStatus = 'available' | 'pending' | 'sold'`)
    expect(generated).toMatch(/id: number\n/)
    expect(generated).toMatch(/categoryId: number\n/)
    expect(generated).toMatch(/status\?: PetStatus\n/)
  })
})
