import { parseFlags } from '../command/flags.js'
import { UsageError } from '../command/usage-error.js'

/** The parts of the bench that can run on their own. */
export const SECTIONS = ['matrix', 'scale', 'growth', 'conformance'] as const

/** One part of the bench. */
export type Section = (typeof SECTIONS)[number]

/** The bench's settings, every default filled in. */
export interface BenchConfig {
  /** Measured seconds per target and workload. */
  duration: number
  /** Unmeasured seconds of load before each target's first run of a workload. */
  warmup: number
  /** The measured seconds of each comparison cell are split into this many interleaved runs. */
  rounds: number
  connections: number
  /** Pets in the large store of the scale and memory measurements. */
  bigStore: number
  /** Pets created through POST in the growth measurement, and the step between reports. */
  grow: number
  growStep: number
  /** Where targets write their request logs: a file (as `2>stub.log` would) or /dev/null. */
  log: 'file' | 'null'
  sections: readonly Section[]
}

/** Help text of `npm run bench`. */
export const USAGE = `Usage: npm run bench -- [options]

  --duration S      measured seconds per target and workload (default 10)
  --warmup S        unmeasured seconds before each target's first run of a workload (default 3, at most the duration)
  --rounds N        split each comparison cell into N runs, the targets taking turns (default 2)
  --connections N   concurrent connections (default 50)
  --big N           pets in the large store for the scale and memory figures (default 1000000)
  --grow N          pets created through POST in the growth figure (default 1000000)
  --step N          pets between growth reports (default 100000)
  --log file|null   where targets write their request logs (default file, in a temporary folder)
  --only LIST       comma-separated sections: ${SECTIONS.join(', ')} (default all)
  --help            this text`

export { UsageError }

function positive(name: string, text: string | undefined, integer: boolean): number {
  const value = Number(text)
  if (text === undefined || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${text ?? 'nothing'}`)
  }
  return value
}

/** Resolves the command line into a frozen config; throws `UsageError` on anything it does not know. */
export function resolveBenchConfig(argv: readonly string[]): BenchConfig {
  const values: Record<string, string | boolean | undefined> = parseFlags(argv, {
    duration: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string' },
    big: { type: 'string' },
    grow: { type: 'string' },
    step: { type: 'string' },
    log: { type: 'string' },
    only: { type: 'string' },
    help: { type: 'boolean' },
  })
  const flags = new Map(
    Object.entries(values).map(([name, value]) => [
      `--${name}`,
      value === true ? undefined : (value as string | undefined),
    ]),
  )
  const get = (name: string) => flags.get(name)
  const duration = get('--duration') === undefined ? 10 : positive('--duration', get('--duration'), false)
  const warmup = get('--warmup') === undefined ? Math.min(3, duration) : Number(get('--warmup'))
  if (!(warmup >= 0)) throw new UsageError(`--warmup must be zero or more seconds, got ${get('--warmup')}`)
  const log = get('--log') ?? 'file'
  if (log !== 'file' && log !== 'null') throw new UsageError(`--log must be file or null, got ${log}`)
  const sections = (get('--only') ?? SECTIONS.join(',')).split(',').map((s) => s.trim())
  for (const s of sections)
    if (!(SECTIONS as readonly string[]).includes(s))
      throw new UsageError(`unknown section ${s}; known: ${SECTIONS.join(', ')}`)
  const count = (name: string, fallback: number) =>
    get(name) === undefined ? fallback : positive(name, get(name), true)
  const grow = count('--grow', 1_000_000)
  return Object.freeze({
    duration,
    warmup,
    rounds: count('--rounds', 2),
    connections: count('--connections', 50),
    bigStore: count('--big', 1_000_000),
    grow,
    growStep: Math.min(grow, count('--step', 100_000)),
    log,
    sections: Object.freeze(sections as Section[]),
  })
}
