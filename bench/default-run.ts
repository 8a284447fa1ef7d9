/**
 * What a default run costs: `npx --no-install petstore-conformance` against the embedded stub, run N times one after
 * the other, with the median wall time and the peak resident memory summed over the command's whole process tree
 * (npx, the command and every process it starts), sampled from /proc every 20 ms, as RSS (the figure `ps` and `top`
 * show; node's own code counts once per process) and as PSS (shared pages counted once). Linux only: it reads /proc.
 *
 *   npx tsx bench/default-run.ts [--runs 7] [--interval 20]
 *
 * Needs the build (`npm ci` or `npm run build`): the command runs dist/. Its reports go to a temporary directory.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { conformanceAvailable } from './conformance-cost.js'
import { sampleTree } from './process-tree.js'
import { ROOT } from './targets.js'

/** One process's peak over a run. */
interface ProcessPeak {
  pid: number
  role: string
  rss: number
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

async function measure(interval: number): Promise<RunCost> {
  const outputDir = mkdtempSync(join(tmpdir(), 'default-run-'))
  const started = performance.now()
  const child = spawn('npx', ['--no-install', 'petstore-conformance', '--output-dir', outputDir], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
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
      const peak = peaks.get(p.pid) ?? { pid: p.pid, role: role(p.name, p.args), rss: 0, cpu: 0 }
      peak.rss = Math.max(peak.rss, p.rss)
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

async function main(): Promise<void> {
  if (process.platform !== 'linux') throw new Error('this benchmark reads /proc: Linux only')
  if (!conformanceAvailable()) throw new Error('the command is not built: run `npm run build` first')
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '7' }, interval: { type: 'string', default: '20' } },
  })
  const runs = Number(values.runs)
  const interval = Number(values.interval)
  const load = loadavg().map((n) => n.toFixed(2))
  console.log(`${new Date().toISOString()}  ${runs} runs, sampled every ${interval} ms; load average ${load.join(' ')}`)
  const costs: RunCost[] = []
  for (let i = 0; i < runs; i++) {
    const cost = await measure(interval)
    costs.push(cost)
    const largest = Math.max(...cost.processes.map((p) => p.rss))
    console.log(
      `run ${i + 1}: exit ${cost.exitCode}, wall ${s(cost.wallMs)}, peak tree RSS ${mb(cost.peakTreeRss)} ` +
        `(PSS ${mb(cost.peakTreePss)}) ` +
        `(largest process ${mb(largest)}), tree CPU ${cost.cpu.toFixed(2)} s`,
    )
  }
  const mid = costs.slice().sort((a, b) => a.wallMs - b.wallMs)[(costs.length - 1) >> 1]!
  console.log(`\nthe median run's processes (peak RSS, CPU):`)
  for (const p of mid.processes.sort((a, b) => b.rss - a.rss))
    console.log(`  ${p.role.padEnd(16)} ${mb(p.rss).padStart(7)}  ${p.cpu.toFixed(2)} s`)
  console.log(
    `\nmedian of ${runs}: wall ${s(median(costs.map((c) => c.wallMs)))} (best ${s(Math.min(...costs.map((c) => c.wallMs)))}), ` +
      `peak tree RSS ${mb(median(costs.map((c) => c.peakTreeRss)))} (PSS ${mb(median(costs.map((c) => c.peakTreePss)))}), tree CPU ${median(costs.map((c) => c.cpu)).toFixed(2)} s; ` +
      `load average now ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
  )
  if (costs.some((c) => c.exitCode !== 0)) {
    console.log('a run did not exit 0: the embedded stub should pass')
    process.exitCode = 1
  }
}

await main()
