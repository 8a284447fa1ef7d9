/**
 * Headless Chromium for the report tests: Debian's package, a fresh profile per launch, nothing reaching
 * the network. Tests open pages with it and close it when done.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'

/** Chromium to launch: `CHROMIUM_PATH`, or where Debian installs it (`.ci/ensure-system.sh` puts it there in CI). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** A running browser and how to stop it (and remove its profile). */
export interface Browser {
  context: BrowserContext
  close(): Promise<void>
}

/** Starts headless Chromium with a fresh user-data dir; throws one clear line when it is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `${CHROMIUM_PATH} is missing: set CHROMIUM_PATH, or install Debian's chromium (apt-get install chromium) as .ci/ensure-system.sh does`,
    )
  }
  const profile = await mkdtemp(join(tmpdir(), 'petstore-report-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1200, height: 900 },
    offline: true, // a report must show without the network
  })
  return {
    context,
    async close() {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}
