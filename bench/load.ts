import autocannon from 'autocannon'
import { cpuSpent, sampleCpu } from './cpu.js'
import { percentile, type Cell } from './report.js'
import type { Workload } from './workloads.js'

/** How hard and how long to drive a target. */
export interface LoadConfig {
  connections: number
  /** Measured seconds per run. */
  duration: number
  /** Seconds of unmeasured load before each measured run. */
  warmup: number
  apiKey: string
}

/** One autocannon run: either for a time or for a number of requests. */
interface Shot {
  url: string
  /** The target's process, for its CPU time. */
  pid?: number
  workload: Workload
  connections: number
  apiKey: string
  duration?: number
  amount?: number
}

function fire(shot: Shot): Promise<Cell> {
  const headers: Record<string, string> = { authorization: `Bearer ${shot.apiKey}` }
  if (shot.workload.body !== undefined) headers['content-type'] = 'application/json'
  // Our own latency record: autocannon's histogram keeps whole milliseconds, too coarse for sub-ms answers.
  const latencies: number[] = []
  // Timed here: autocannon notices the end of a run only at its next sample tick, up to `sampleInt` late.
  let last = 0
  const cpuBefore = sampleCpu(shot.pid)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: shot.url + shot.workload.path,
        method: shot.workload.method,
        headers,
        body: shot.workload.body,
        connections: shot.connections,
        pipelining: 1,
        timeout: 10,
        sampleInt: 100, // autocannon checks for the end of a run once per sample
        ...(shot.amount !== undefined ? { amount: shot.amount } : { duration: shot.duration ?? 1 }),
      },
      (error, result) => {
        if (error) return reject(error)
        const cpu = cpuSpent(cpuBefore, sampleCpu(shot.pid))
        const seconds = ((last || performance.now()) - started) / 1000
        const sorted = Float64Array.from(latencies).sort()
        const statuses = Object.fromEntries(
          Object.entries(result.statusCodeStats ?? {}).map(([status, stat]) => [status, stat.count ?? 0]),
        )
        const requests = sorted.length
        resolve({
          requests,
          seconds,
          rps: seconds > 0 ? requests / seconds : 0,
          p50: percentile(sorted, 0.5),
          p99: percentile(sorted, 0.99),
          non2xx: result.non2xx,
          errors: result.errors,
          statuses,
          cpu,
          latencies: sorted,
        })
      },
    )
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      latencies.push(responseTime)
      last = performance.now()
    })
  })
}

/** Warms the target up with the workload, then measures it for `config.duration` seconds. */
export async function measure(url: string, workload: Workload, config: LoadConfig, pid?: number): Promise<Cell> {
  const base = { url, pid, workload, connections: config.connections, apiKey: config.apiKey }
  if (config.warmup > 0) await fire({ ...base, duration: config.warmup })
  return fire({ ...base, duration: config.duration })
}

/** Sends exactly `amount` requests of the workload, as fast as the target answers. */
export function burst(
  url: string,
  workload: Workload,
  amount: number,
  config: LoadConfig,
  pid?: number,
): Promise<Cell> {
  return fire({ url, pid, workload, connections: config.connections, apiKey: config.apiKey, amount })
}
