// `npm run bench`: the stub against Prism's mock and a bare node:http ceiling, its scaling with store
// size, and the conformance suite's cost. Every target runs as a child process on 127.0.0.1; the load
// generator (autocannon) runs in this process, on the same cores.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { conformanceAvailable, measureConformance, type ConformanceCost } from './conformance-cost.js'
import { burst, measure, type LoadConfig } from './load.js'
import { resolveBenchConfig, USAGE, UsageError, type BenchConfig } from './options.js'
import { benchPets } from './pets.js'
import {
  formatGoals,
  formatNumber,
  formatRatio,
  formatTable,
  ratio,
  mergeCells,
  perCpuSecond,
  type Cell,
  type Goal,
} from './report.js'
import { READY_LINE } from './ready-line.js'
import { ROOT, rssOf, startTarget, type RunningTarget, type TargetSpec } from './targets.js'
import { createPet, filteredList, workloads, type Workload } from './workloads.js'

const API_KEY = 'bench-key'
const SEEDED = 1000

const log = (line: string) => process.stderr.write(`${line}\n`)

/** The four targets of the comparison, each a child process. */
function matrixTargets(seedFile: string): TargetSpec[] {
  const prism = realpathSync(join(ROOT, 'node_modules', '.bin', 'prism'))
  const prismArgs = (port: number) => [
    prism,
    'mock',
    'spec/petstore.yaml',
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
  ]
  const stubArgs = (port: number) => [
    'bin/petstore-stub.js',
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--api-key',
    API_KEY,
    '--seed',
    seedFile,
  ]
  return [
    {
      id: 'stub',
      title: 'stub (defaults, log on)',
      args: stubArgs,
      base: (port) => `http://127.0.0.1:${port}/v1`,
    },
    {
      id: 'stub-data',
      title: 'stub --data (every create on disk before its 201)',
      args: (port) => [...stubArgs(port), '--data', join(seedFile ? dirname(seedFile) : tmpdir(), 'bench-data.json')],
      base: (port) => `http://127.0.0.1:${port}/v1`,
    },
    { id: 'prism', title: 'Prism mock (defaults)', args: prismArgs, base: (port) => `http://127.0.0.1:${port}` },
    {
      id: 'prism-silent',
      title: 'Prism mock (-v silent)',
      args: (port) => [...prismArgs(port), '-v', 'silent'],
      base: (port) => `http://127.0.0.1:${port}`,
    },
    {
      id: 'bare',
      title: 'bare node:http',
      args: (port) => ['--import', 'tsx', 'bench/bare-server.ts', '--port', String(port), '--pets', String(SEEDED)],
      base: (port) => `http://127.0.0.1:${port}/v1`,
    },
  ]
}

/** The stub seeded with `pets` generated pets through the bench-only entry, which reports its memory. */
function scaleStub(pets: number): TargetSpec {
  return {
    id: `stub-${pets}`,
    title: `stub with ${pets.toLocaleString('en-US')} pets`,
    nodeFlags: ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx'],
    args: (port) => ['bench/scale-stub.ts', '--port', String(port), '--pets', String(pets), '--api-key', API_KEY],
    base: (port) => `http://127.0.0.1:${port}/v1`,
    readyLine: READY_LINE,
  }
}

interface Memory {
  rss: number
  heapUsed: number
}

const memoryOf = (target: RunningTarget): Memory => JSON.parse(target.ready ?? '{}') as Memory

type Results = Map<string, Map<string, Cell>> // target id -> workload id -> cell

interface Matrix {
  results: Results
  logBytes: Map<string, number>
  failures: string[]
}

interface Scale {
  small: Cell
  big: Cell
  empty: Memory
  bigMemory: Memory
}

interface GrowthStep {
  stored: number
  cell: Cell
  rss: number | undefined
}

function startLogged(spec: TargetSpec, logDir: string, sink: BenchConfig['log']): Promise<RunningTarget> {
  log(`starting ${spec.title}`)
  return startTarget(spec, sink === 'null' ? '/dev/null' : join(logDir, `${spec.id}.log`))
}

async function withTarget<T>(
  spec: TargetSpec,
  logDir: string,
  sink: BenchConfig['log'],
  use: (t: RunningTarget) => Promise<T>,
): Promise<T> {
  const target = await startLogged(spec, logDir, sink)
  try {
    return await use(target)
  } finally {
    await target.stop()
  }
}

async function runMatrix(config: BenchConfig, load: LoadConfig, logDir: string): Promise<Matrix> {
  const seedFile = join(logDir, 'seed-pets.json')
  writeFileSync(seedFile, JSON.stringify(benchPets(SEEDED)))
  const results: Results = new Map()
  const logBytes = new Map<string, number>()
  const failures: string[] = []
  const running: RunningTarget[] = []
  try {
    for (const spec of matrixTargets(seedFile)) {
      // One target that cannot start must not cost the figures of the others.
      await startLogged(spec, logDir, config.log).then(
        (target) => running.push(target),
        (error: Error) => {
          failures.push(`${spec.title}: not measured, ${error.message}`)
          log(failures.at(-1)!)
        },
      )
    }
    // Workload by workload, the targets taking turns, round after round: load from other processes on
    // the machine then falls on all targets alike instead of on whichever ran while it lasted. Idle
    // targets use no CPU.
    const rounds = new Map<string, Cell[]>()
    const slice: LoadConfig = { ...load, duration: load.duration / config.rounds }
    for (const workload of workloads()) {
      for (let round = 0; round < config.rounds; round++) {
        for (const target of running) {
          const cell = await measure(
            target.url,
            workload,
            { ...slice, warmup: round === 0 ? load.warmup : 0 },
            target.pid,
          )
          log(
            `  ${target.spec.id.padEnd(12)} ${workload.id.padEnd(14)} ${formatNumber(cell.rps).padStart(8)} req/s  p50 ${formatNumber(cell.p50)} ms  p99 ${formatNumber(cell.p99)} ms  non-2xx ${cell.non2xx}  ${cpuNote(cell)}`,
          )
          const key = `${target.spec.id} ${workload.id}`
          rounds.set(key, [...(rounds.get(key) ?? []), cell])
        }
      }
      for (const target of running) {
        const cells = rounds.get(`${target.spec.id} ${workload.id}`)!
        results.set(target.spec.id, (results.get(target.spec.id) ?? new Map()).set(workload.id, mergeCells(cells)))
      }
    }
    for (const target of running) logBytes.set(target.spec.id, target.logBytes())
  } finally {
    await Promise.all(running.map((t) => t.stop()))
  }
  return { results, logBytes, failures }
}

async function runScale(config: BenchConfig, load: LoadConfig, logDir: string): Promise<Scale> {
  const list = filteredList()
  const empty = await withTarget(scaleStub(0), logDir, config.log, async (t) => memoryOf(t))
  const small = await startLogged(scaleStub(SEEDED), logDir, config.log)
  try {
    return await withTarget(scaleStub(config.bigStore), logDir, config.log, async (big) => {
      // The two store sizes take turns, as the comparison's targets do.
      const runs: Cell[][] = [[], []]
      const slice: LoadConfig = { ...load, duration: load.duration / config.rounds }
      for (let round = 0; round < config.rounds; round++) {
        for (const [i, target] of [small, big].entries()) {
          const cell = await measure(target.url, list, { ...slice, warmup: round === 0 ? load.warmup : 0 }, target.pid)
          log(
            `  ${target.spec.id.padEnd(14)} ${formatNumber(cell.rps).padStart(8)} req/s  p50 ${formatNumber(cell.p50)} ms  ${cpuNote(cell)}`,
          )
          runs[i]!.push(cell)
        }
      }
      return { small: mergeCells(runs[0]!), big: mergeCells(runs[1]!), empty, bigMemory: memoryOf(big) }
    })
  } finally {
    await small.stop()
  }
}

async function runGrowth(config: BenchConfig, load: LoadConfig, logDir: string): Promise<GrowthStep[]> {
  const steps: GrowthStep[] = []
  await withTarget(scaleStub(0), logDir, config.log, async (target) => {
    for (let stored = 0; stored < config.grow;) {
      const amount = Math.min(config.growStep, config.grow - stored)
      const cell = await burst(target.url, createPet(), amount, load, target.pid)
      stored += amount
      steps.push({ stored, cell, rss: rssOf(target.pid) })
      log(
        `  ${formatNumber(stored).padStart(10)} created  ${formatNumber(cell.rps).padStart(8)} req/s  ${cpuNote(cell)}`,
      )
    }
  })
  return steps
}

function machine(): string[] {
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(safeRead('/proc/cpuinfo'))?.[1] ?? cpus()[0]?.model ?? 'unknown'
  return [
    `date: ${new Date().toISOString()}`,
    `machine: ${availableParallelism()} cores (nproc), ${cpuModel}, node ${process.version}, ${process.platform}/${process.arch}`,
  ]
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

function matrixReport({ results, logBytes, failures }: Matrix, specs: TargetSpec[]): string {
  const rows: string[][] = []
  for (const spec of specs) {
    for (const workload of workloads()) {
      const cell = results.get(spec.id)?.get(workload.id)
      if (!cell) continue
      rows.push([
        spec.title,
        describe(workload),
        formatNumber(cell.rps),
        formatNumber(cell.p50),
        formatNumber(cell.p99),
        String(cell.non2xx),
        String(cell.errors),
        formatNumber(cpuPerRequest(cell)),
        formatNumber(othersBusy(cell)),
      ])
    }
  }
  const rps = (target: string, workload: string) => results.get(target)?.get(workload)?.rps
  const perCpu = (target: string, workload: string) => perCpuSecond(results.get(target)?.get(workload))
  const ratios = workloads().map((w) => [
    describe(w),
    formatRatio(ratio(rps('stub', w.id), rps('prism', w.id))),
    formatRatio(ratio(rps('stub', w.id), rps('prism-silent', w.id))),
    formatRatio(ratio(rps('stub', w.id), rps('bare', w.id))),
    formatRatio(ratio(rps('stub-data', w.id), rps('stub', w.id))),
    formatRatio(ratio(perCpu('stub', w.id), perCpu('prism', w.id))),
    formatRatio(ratio(perCpu('stub', w.id), perCpu('prism-silent', w.id))),
    formatRatio(ratio(perCpu('stub', w.id), perCpu('bare', w.id))),
  ])
  const logs = specs
    .filter((s) => logBytes.has(s.id))
    .map((s) => `${s.title} ${formatNumber(logBytes.get(s.id))} bytes`)
    .join('; ')
  return [
    formatTable(
      [
        'target',
        'workload',
        'req/s',
        'p50 ms',
        'p99 ms',
        'non-2xx',
        'errors',
        'target µs CPU/req',
        'others busy (cores)',
      ],
      rows,
    ),
    '',
    'Ratios of req/s, then of requests per CPU second of the target (the CPU set moves less when other processes take CPU):',
    formatTable(
      [
        'workload',
        'stub/Prism',
        'stub/Prism silent',
        'stub/bare',
        'stub --data/stub',
        'CPU: stub/Prism',
        'CPU: stub/Prism silent',
        'CPU: stub/bare',
      ],
      ratios,
    ),
    '',
    `output (request logs) written during the runs: ${logs}`,
    noiseNote([...results.values()].flatMap((cells) => [...cells.values()])),
    ...failures,
  ].join('\n')
}

const describe = (w: Workload) => `${w.method} ${w.path}`

/** Target CPU microseconds per request. */
const cpuPerRequest = (cell: Cell) =>
  cell.cpu.target === undefined || cell.requests === 0 ? undefined : (cell.cpu.target / cell.requests) * 1e6

/** Cores' worth of CPU that other processes on the machine used during a run: the noise in its figures. */
const othersBusy = (cell: Cell) =>
  cell.cpu.others === undefined || cell.seconds === 0 ? undefined : cell.cpu.others / cell.seconds

/** How busy other processes kept the machine during some runs: the noise in their figures. */
function noiseNote(cells: Cell[]): string {
  const others = cells.reduce((n, c) => n + (c.cpu.others ?? 0), 0)
  const seconds = cells.reduce((n, c) => n + c.seconds, 0)
  const busy = seconds > 0 ? others / seconds : 0
  const warning =
    busy > 0.2 ? '; the machine was not quiet: req/s and latency carry that noise, the CPU-based ratios less so' : ''
  return `other processes kept ${formatNumber(busy)} of ${availableParallelism()} cores busy on average during these runs${warning}`
}

const cpuNote = (cell: Cell) =>
  `target ${formatNumber(cpuPerRequest(cell))} µs CPU/req, others busy ${formatNumber(othersBusy(cell))} cores`

function scaleReport(scale: Scale, config: BenchConfig): string {
  const perPet = (scale.bigMemory.rss - scale.empty.rss) / config.bigStore
  const heapPerPet = (scale.bigMemory.heapUsed - scale.empty.heapUsed) / config.bigStore
  const row = (pets: number, cell: Cell) => [
    formatNumber(pets),
    formatNumber(cell.rps),
    formatNumber(cell.p50),
    formatNumber(cell.p99),
    String(cell.non2xx),
    formatNumber(cpuPerRequest(cell)),
    formatNumber(othersBusy(cell)),
  ]
  return [
    `${describe(filteredList())} by store size:`,
    formatTable(
      ['pets', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'target µs CPU/req', 'others busy (cores)'],
      [row(SEEDED, scale.small), row(config.bigStore, scale.big)],
    ),
    `scale ratio (${formatNumber(config.bigStore)} vs ${formatNumber(SEEDED)} pets): p50 ${formatRatio(ratio(scale.big.p50, scale.small.p50))}, p99 ${formatRatio(ratio(scale.big.p99, scale.small.p99))}, req/s ${formatRatio(ratio(scale.small.rps, scale.big.rps))} slower`,
    `memory after full GC: empty store RSS ${mib(scale.empty.rss)}, heap ${mib(scale.empty.heapUsed)}; ${formatNumber(config.bigStore)} pets RSS ${mib(scale.bigMemory.rss)}, heap ${mib(scale.bigMemory.heapUsed)}`,
    `per stored pet: ${formatNumber(perPet)} bytes RSS, ${formatNumber(heapPerPet)} bytes of heap`,
    noiseNote([scale.small, scale.big]),
  ].join('\n')
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`

function growthReport(steps: GrowthStep[]): string {
  const rows = steps.map((s) => [
    formatNumber(s.stored),
    formatNumber(s.cell.rps),
    formatNumber(s.cell.p50),
    formatNumber(s.cell.p99),
    String(s.cell.non2xx),
    formatNumber(cpuPerRequest(s.cell)),
    formatNumber(othersBusy(s.cell)),
    s.rss === undefined ? '-' : mib(s.rss),
  ])
  const header = [
    'stored after step',
    'req/s',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'target µs CPU/req',
    'others busy (cores)',
    'RSS (no GC)',
  ]
  return [
    'POST /v1/pets while the store grows from empty (req/s of each step):',
    formatTable(header, rows),
    noiseNote(steps.map((s) => s.cell)),
  ].join('\n')
}

function conformanceReport(cost: ConformanceCost | string): string {
  if (typeof cost === 'string') return cost
  const lines = [
    `npx --no-install petstore-conformance (embedded stub): wall ${(cost.wallMs / 1000).toFixed(1)} s, exit code ${cost.exitCode}`,
  ]
  if (cost.requestsSent !== undefined || cost.recordsCreated !== undefined) {
    lines.push(
      `from its report.json: requestsSent ${cost.requestsSent ?? '-'}, recordsCreated ${cost.recordsCreated ?? '-'}, durationMs ${cost.durationMs ?? '-'}`,
    )
  } else {
    lines.push(
      `no report.json figures; the command's last lines:`,
      ...cost.consoleTail.split('\n').map((l) => `  | ${l}`),
    )
  }
  return lines.join('\n')
}

function goals(
  results: Results | undefined,
  scale: Scale | undefined,
  config: BenchConfig,
  cost: ConformanceCost | string | undefined,
): Goal[] {
  const all: Goal[] = []
  const cell = (target: string, workload: string) => results?.get(target)?.get(workload)
  if (results) {
    for (const w of workloads()) {
      const stub = cell('stub', w.id)
      // The target is against Prism with its defaults; Prism -v silent is reported in the ratio table only.
      all.push({
        name: `stub/Prism req/s, ${describe(w)}`,
        value: ratio(stub?.rps, cell('prism', w.id)?.rps),
        relation: '>=',
        bound: 20,
        unit: 'x',
      })
      all.push({
        name: `stub/bare req/s, ${describe(w)}`,
        value: ratio(stub?.rps, cell('bare', w.id)?.rps),
        relation: '>=',
        // 0.9 on the plain list and on create, the two workloads the goal names; 0.85 on the other two reads.
        bound: w.id === 'list' || w.id === 'create' ? 0.9 : 0.85,
        unit: 'x',
      })
      if (w.kind === 'read')
        all.push({ name: `stub p99, ${describe(w)}`, value: stub?.p99, relation: '<', bound: 10, unit: 'ms' })
      if (w.id === 'create')
        all.push({
          name: `stub --data/stub req/s, ${describe(w)}`,
          value: ratio(cell('stub-data', w.id)?.rps, stub?.rps),
          relation: '>=',
          bound: 0.5,
          unit: 'x',
        })
    }
  }
  if (scale) {
    all.push({
      name: `scale ratio p50, filtered list, ${formatNumber(config.bigStore)} vs ${formatNumber(SEEDED)} pets`,
      value: ratio(scale.big.p50, scale.small.p50),
      relation: '<=',
      bound: 1.5,
      unit: 'x',
    })
    all.push({
      name: `RSS per stored pet at ${formatNumber(config.bigStore)} pets`,
      value: (scale.bigMemory.rss - scale.empty.rss) / config.bigStore,
      relation: '<',
      bound: 300,
      unit: 'B',
    })
  }
  if (cost !== undefined && typeof cost !== 'string') {
    all.push({
      name: 'full conformance run, wall time',
      value: cost.wallMs / 1000,
      relation: '<',
      bound: 15,
      unit: 's',
    })
    all.push({ name: 'full conformance run, records created', value: cost.recordsCreated, relation: '<=', bound: 250 })
  }
  return all
}

function warnings(results: Results | undefined): string[] {
  const lines: string[] = []
  for (const [target, cells] of results ?? []) {
    for (const [workload, cell] of cells) {
      if (cell.non2xx > 0 || cell.errors > 0) {
        lines.push(
          `warning: ${target} ${workload}: ${cell.non2xx} non-2xx (${JSON.stringify(cell.statuses)}), ${cell.errors} errors; its figures do not measure the success path`,
        )
      }
    }
  }
  return lines
}

async function main(argv: string[]): Promise<number> {
  let config: BenchConfig
  try {
    config = resolveBenchConfig(argv)
  } catch (error) {
    if (error instanceof UsageError) {
      log(`${error.message}\n\n${USAGE}`)
      return 2
    }
    throw error
  }
  if (argv.includes('--help')) {
    console.log(USAGE)
    return 0
  }
  const load: LoadConfig = {
    connections: config.connections,
    duration: config.duration,
    warmup: config.warmup,
    apiKey: API_KEY,
  }
  const logDir = mkdtempSync(join(tmpdir(), 'petstore-bench-'))
  const run = (s: BenchConfig['sections'][number]) => config.sections.includes(s)
  try {
    const matrix = run('matrix') ? await runMatrix(config, load, logDir) : undefined
    const scale = run('scale') ? await runScale(config, load, logDir) : undefined
    const growth = run('growth') ? await runGrowth(config, load, logDir) : undefined
    let cost: ConformanceCost | string | undefined
    if (run('conformance')) {
      log('running the conformance suite against the embedded stub')
      cost = conformanceAvailable()
        ? await measureConformance(join(logDir, 'conformance-reports'))
        : 'conformance cost: skipped, the petstore-conformance command (suites/cli.ts) is not in this checkout yet'
    }
    const out = [
      '# Pet Store stub benchmark',
      ...machine(),
      `load: autocannon in the bench process, ${config.connections} connections; per cell ${config.warmup} s warm-up, then ${config.duration} s measured ` +
        `(comparison: ${config.rounds} interleaved runs of ${formatNumber(config.duration / config.rounds)} s); ` +
        `every target a child process on 127.0.0.1; stub and bare seeded with ${SEEDED} pets`,
      `note: the ${availableParallelism()} cores are shared by autocannon and the target, the same way for every target`,
      `target output (request logs) went to ${config.log === 'null' ? '/dev/null' : 'a file per target'}`,
      '',
    ]
    const matrixSpecs = matrixTargets('')
    if (matrix) out.push('## Throughput and latency', matrixReport(matrix, matrixSpecs), '')
    if (scale) out.push('## Scaling and memory', scaleReport(scale, config), '')
    if (growth) out.push('## Creation while the store grows', growthReport(growth), '')
    if (cost !== undefined) out.push('## Cost of a conformance run', conformanceReport(cost), '')
    out.push('## Targets', formatGoals(goals(matrix?.results, scale, config, cost)), ...warnings(matrix?.results))
    console.log(out.join('\n'))
    return 0
  } finally {
    rmSync(logDir, { recursive: true, force: true })
  }
}

process.exitCode = await main(process.argv.slice(2))
