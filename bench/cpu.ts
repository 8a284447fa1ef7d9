import { readFileSync } from 'node:fs'

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux everywhere Node runs). */
const TICKS_PER_SECOND = 100

/** CPU time counters at one instant, in seconds. */
export interface CpuSample {
  /** The target process, all threads; `undefined` when /proc cannot tell. */
  target: number | undefined
  /** This process (the load generator). */
  bench: number
  /** Busy time of the whole machine, all cores; `undefined` without /proc. */
  machine: number | undefined
}

/** CPU seconds spent between two samples, by whom. */
export interface CpuSpent {
  target: number | undefined
  bench: number
  /** Everything else on the machine: other users' processes, and kernel work charged to no process. */
  others: number | undefined
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** utime + stime of a process from `/proc/PID/stat`, in seconds. */
export function processCpu(stat: string): number | undefined {
  // The command name (field 2) may hold spaces and parentheses; the fields after its closing one are fixed.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(rest[11])
  const stime = Number(rest[12])
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / TICKS_PER_SECOND : undefined
}

/** Busy time of all cores from the first line of `/proc/stat` (everything but idle and iowait), in seconds. */
export function machineBusy(stat: string): number | undefined {
  const fields = /^cpu\s+(.+)$/m.exec(stat)?.[1]?.trim().split(/\s+/).map(Number)
  if (!fields || fields.length < 5 || fields.some((n) => !Number.isFinite(n))) return undefined
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0)
  return (total - fields[3]! - fields[4]!) / TICKS_PER_SECOND
}

/** The CPU counters now, for the target `pid` and this process. */
export function sampleCpu(pid: number | undefined): CpuSample {
  const own = process.cpuUsage()
  const stat = pid === undefined ? undefined : read(`/proc/${pid}/stat`)
  const machine = read('/proc/stat')
  return {
    target: stat === undefined ? undefined : processCpu(stat),
    bench: (own.user + own.system) / 1e6,
    machine: machine === undefined ? undefined : machineBusy(machine),
  }
}

/** Who spent how much CPU between `before` and `after`. */
export function cpuSpent(before: CpuSample, after: CpuSample): CpuSpent {
  const target = before.target === undefined || after.target === undefined ? undefined : after.target - before.target
  const bench = after.bench - before.bench
  const machine =
    before.machine === undefined || after.machine === undefined ? undefined : after.machine - before.machine
  const others = machine === undefined || target === undefined ? undefined : Math.max(0, machine - target - bench)
  return { target, bench, others }
}
