import { spawn } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './targets.js'

/** What one full default conformance run against the embedded stub cost. */
export interface ConformanceCost {
  /** Wall time of the whole command, start of npx to exit, in milliseconds. */
  wallMs: number
  exitCode: number | null
  /** From the run's `report.json`, when it wrote one. */
  requestsSent?: number
  recordsCreated?: number
  durationMs?: number
  /** The last lines the command printed, for when the report holds no figures. */
  consoleTail: string
}

/** Whether the conformance command is built in this checkout (`npm ci` or `npm run build`). */
export function conformanceAvailable(): boolean {
  return (
    existsSync(join(ROOT, 'dist', 'command', 'conformance', 'main.js')) &&
    existsSync(join(ROOT, 'bin', 'petstore-conformance.js'))
  )
}

/** The first numeric value of `key` anywhere in a parsed JSON document, depth first. */
export function findNumber(value: unknown, key: string): number | undefined {
  if (value === null || typeof value !== 'object') return undefined
  const own = (value as Record<string, unknown>)[key]
  if (!Array.isArray(value) && typeof own === 'number') return own
  for (const child of Object.values(value)) {
    const found = findNumber(child, key)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * Runs `npx --no-install petstore-conformance` with no --base-url (the embedded stub) and otherwise
 * default settings, its reports going to `outputDir` rather than the checkout's ./reports, and measures it.
 */
export async function measureConformance(outputDir: string, timeoutMs = 300_000): Promise<ConformanceCost> {
  const reportPath = join(outputDir, 'report.json')
  const started = Date.now()
  const child = spawn('npx', ['--no-install', 'petstore-conformance', '--output-dir', outputDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
  clearTimeout(timer)
  const wallMs = Date.now() - started
  const consoleTail = output.trim().split('\n').slice(-8).join('\n')
  // Only a report this run wrote counts; an older one would describe another run.
  if (!existsSync(reportPath) || statSync(reportPath).mtimeMs < started) return { wallMs, exitCode, consoleTail }
  let report: unknown
  try {
    report = JSON.parse(readFileSync(reportPath, 'utf8'))
  } catch {
    return { wallMs, exitCode, consoleTail }
  }
  return {
    wallMs,
    exitCode,
    requestsSent: findNumber(report, 'requestsSent'),
    recordsCreated: findNumber(report, 'recordsCreated'),
    durationMs: findNumber(report, 'durationMs'),
    consoleTail,
  }
}
