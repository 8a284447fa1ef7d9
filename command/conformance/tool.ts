/** What the command and the library share besides the engine: the tool's name and version, and Prism in front. */
import { readFileSync } from 'node:fs'
import { SPEC_PATH } from '../../spec/index.js'
import type { PrismProxy } from '../../suites/prism/index.js'
import { UsageError } from '../usage-error.js'

/** The command's name, as reports and messages give it. */
export const NAME = 'petstore-conformance'

/** The command's version, from package.json (two folders up from the sources, three from their build in dist/). */
export const VERSION: string = JSON.parse(
  readFileSync(new URL(`${import.meta.url.endsWith('.ts') ? '' : '../'}../../package.json`, import.meta.url), 'utf8'),
).version

/** Prism's validating proxy in front of `baseUrl`; a UsageError saying why when it cannot start. */
export async function prismInFront(baseUrl: string, specPath?: string): Promise<PrismProxy> {
  const { startPrismProxy } = await import('../../suites/prism/index.js')
  try {
    return await startPrismProxy({ upstream: baseUrl, specPath: specPath ?? SPEC_PATH })
  } catch (error) {
    throw new UsageError(`cannot start Prism's proxy: ${String((error as Error).message).split('\n')[0]}`)
  }
}
