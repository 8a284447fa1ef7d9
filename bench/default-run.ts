/**
 * What a default run costs: `petstore-conformance` against the embedded stub, run N times one after the other, with
 * the median wall time and the peak resident memory summed over the command's whole process tree (the launcher, the
 * command and every process it starts), sampled from /proc every 20 ms, as RSS (the figure `ps` and `top` show;
 * node's own code counts once per process) and as PSS (shared pages counted once). Linux only: it reads /proc.
 * The command is launched as a user launches it: `npx --no-install petstore-conformance` (launcher `npx`), or
 * `node bin/petstore-conformance.js` (launcher `node`: what an installed bin or an npm script runs); `both` takes turns.
 *
 *   npx tsx bench/default-run.ts [--runs 7] [--launcher npx|node|both] [--interval 20] [--root DIR]...
 *
 * Needs the build (`npm ci` or `npm run build`): the command runs dist/. `--root` runs another checkout's build
 * (installed with `npm ci`: npx reads the checkout's own install); given more than once, the builds take
 * turns. Its reports go to a temporary directory.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { conformanceAvailable } from './conformance-cost.js'
import { sampleTree } from './process-tree.js'
import { ROOT } from './targets.js'

/** How the command is started: through npx, or its bin run by node directly. */
type Launcher = 'npx' | 'node'

/** One process's peak over a run. */
interface ProcessPeak {
  pid: number
  role: string
  rss: number
  pss: number
  cpu: number
}

/** What one run cost. */
interface RunCost {
  exitCode: number | null
  wallMs: number
  /** The highest sum of RSS over the tree at one sample. */
  peakTreeRss: number
  /** The highest sum of PSS over the tree at one sample: the memory the tree takes, shared pages counted once. */
  peakTreePss: number
  /** CPU seconds of every process of the tree, as last sampled. */
  cpu: number
  processes: ProcessPeak[]
}

/** What a process of the tree is, from its command line. */
function role(name: string, args: string): string {
  if (/vitest[\\/]dist[\\/]workers/.test(args)) return 'vitest worker'
  if (name === 'node' && /petstore-conformance(\.js)?( |$)/.test(args)) return 'command'
  if (name.startsWith('npm') || /npm(-cli\.js)? exec|npx-cli/.test(args)) return 'npx'
  if (/esbuild|rolldown/.test(args)) return 'bundler service'
  if (name === 'sh' || name === 'bash' || name === 'dash') return 'shell'
  return `${name}: ${args.slice(0, 60)}`
}

/** The command line that starts the command with `launcher` in the checkout at `root`. */
function commandLine(launcher: Launcher, root: string, outputDir: string): [string, string[]] {
  return launcher === 'npx'
    ? ['npx', ['--no-install', 'petstore-conformance', '--output-dir', outputDir]]
    : [process.execPath, [join(root, 'bin', 'petstore-conformance.js'), '--output-dir', outputDir]]
}

async function measure(launcher: Launcher, root: string, interval: number): Promise<RunCost> {
  const outputDir = mkdtempSync(join(tmpdir(), 'default-run-'))
  const started = performance.now()
  const [file, args] = commandLine(launcher, root, outputDir)
  const child = spawn(file, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  const peaks = new Map<number, ProcessPeak>()
  let peakTreeRss = 0
  let peakTreePss = 0
  const sample = () => {
    if (child.pid === undefined) return
    let sum = 0
    let proportional = 0
    for (const p of sampleTree(child.pid)) {
      sum += p.rss
      proportional += p.pss
      const peak = peaks.get(p.pid) ?? { pid: p.pid, role: role(p.name, p.args), rss: 0, pss: 0, cpu: 0 }
      peak.rss = Math.max(peak.rss, p.rss)
      peak.pss = Math.max(peak.pss, p.pss)
      peak.cpu = Math.max(peak.cpu, p.cpu)
      if (p.args) peak.role = role(p.name, p.args) // a fork's command line is its own once it has exec'd; a zombie's is empty
      peaks.set(p.pid, peak)
    }
    peakTreeRss = Math.max(peakTreeRss, sum)
    peakTreePss = Math.max(peakTreePss, proportional)
  }
  const timer = setInterval(sample, interval)
  sample()
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', resolve))
  const wallMs = performance.now() - started
  clearInterval(timer)
  rmSync(outputDir, { recursive: true, force: true })
  const processes = [...peaks.values()].filter((p) => p.rss > 0)
  return { exitCode, wallMs, peakTreeRss, peakTreePss, cpu: processes.reduce((a, p) => a + p.cpu, 0), processes }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const loads = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')

/** The medians of one way of running (a build and a launcher), and its median run's processes. */
function summarize(label: string, costs: RunCost[]): void {
  const mid = costs.slice().sort((a, b) => a.wallMs - b.wallMs)[(costs.length - 1) >> 1]!
  console.log(`\n${label}: the median run's processes (peak RSS, peak PSS, CPU):`)
  for (const p of mid.processes.sort((a, b) => b.rss - a.rss))
    console.log(`  ${p.role.padEnd(16)} ${mb(p.rss).padStart(7)} ${mb(p.pss).padStart(7)}  ${p.cpu.toFixed(2)} s`)
  console.log(
    `${label}: median of ${costs.length}: wall ${s(median(costs.map((c) => c.wallMs)))} ` +
      `(best ${s(Math.min(...costs.map((c) => c.wallMs)))}), ` +
      `peak tree RSS ${mb(median(costs.map((c) => c.peakTreeRss)))} ` +
      `(range ${mb(Math.min(...costs.map((c) => c.peakTreeRss)))} to ${mb(Math.max(...costs.map((c) => c.peakTreeRss)))}), ` +
      `peak tree PSS ${mb(median(costs.map((c) => c.peakTreePss)))}, ` +
      `tree CPU ${median(costs.map((c) => c.cpu)).toFixed(2)} s`,
  )
}

async function main(): Promise<void> {
  if (process.platform !== 'linux') throw new Error('this benchmark reads /proc: Linux only')
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '7' },
      interval: { type: 'string', default: '20' },
      launcher: { type: 'string', default: 'npx' },
      root: { type: 'string', multiple: true },
    },
  })
  const runs = Number(values.runs)
  const interval = Number(values.interval)
  if (!['npx', 'node', 'both'].includes(values.launcher)) throw new Error('--launcher is npx, node or both')
  const launchers: Launcher[] = values.launcher === 'both' ? ['npx', 'node'] : [values.launcher as Launcher]
  const roots = (values.root ?? [ROOT]).map((root) => resolve(root))
  if (!conformanceAvailable()) throw new Error('the command is not built: run `npm run build` first')
  for (const root of roots)
    if (!existsSync(join(root, 'dist', 'command', 'conformance', 'main.js')))
      throw new Error(`${root}: not built (no dist/command/conformance/main.js)`)
  // Each way of running takes its turn in every round, so a change in the machine's load touches all alike.
  const ways = roots.flatMap((root) => launchers.map((launcher) => ({ root, launcher })))
  const label = (way: (typeof ways)[number]) =>
    roots.length > 1 ? `${way.launcher} ${way.root}` : way.launcher === 'npx' ? 'npx' : 'node bin'
  console.log(`${new Date().toISOString()}  ${runs} rounds, sampled every ${interval} ms; load average ${loads()}`)
  const costs = ways.map(() => [] as RunCost[])
  for (let i = 0; i < runs; i++)
    for (const [w, way] of ways.entries()) {
      const cost = await measure(way.launcher, way.root, interval)
      costs[w]!.push(cost)
      const largest = Math.max(...cost.processes.map((p) => p.rss))
      console.log(
        `run ${i + 1} (${label(way)}): exit ${cost.exitCode}, wall ${s(cost.wallMs)}, ` +
          `peak tree RSS ${mb(cost.peakTreeRss)} (PSS ${mb(cost.peakTreePss)}) ` +
          `(largest process ${mb(largest)}), tree CPU ${cost.cpu.toFixed(2)} s`,
      )
    }
  for (const [w, way] of ways.entries()) summarize(label(way), costs[w]!)
  console.log(`\nload average now ${loads()}`)
  if (costs.flat().some((c) => c.exitCode !== 0)) {
    console.log('a run did not exit 0: the embedded stub should pass')
    process.exitCode = 1
  }
}

await main()
