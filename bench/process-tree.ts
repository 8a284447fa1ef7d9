import { readdirSync, readFileSync } from 'node:fs'
import { processCpu } from './cpu.js'

/** One process of a tree at one instant, read from `/proc` (Linux only). */
export interface ProcessSample {
  pid: number
  ppid: number
  /** The command name of `/proc/PID/stat` (at most 15 characters: `node`, `npm exec`, `sh`). */
  name: string
  /** Its command line, for telling one `node` from another. */
  args: string
  /** Resident set size in bytes (`VmRSS`): pages shared with other processes (node's own code) count in each. */
  rss: number
  /** Proportional set size in bytes (`Pss` of smaps_rollup): a page shared by n processes counts 1/n in each. */
  pss: number
  /** utime + stime in seconds, all threads. */
  cpu: number
}

/** Pid, parent pid and command name from a `/proc/PID/stat` line; the name may hold spaces and parentheses. */
export function parseStat(stat: string): { pid: number; ppid: number; name: string } | undefined {
  const open = stat.indexOf('(')
  const close = stat.lastIndexOf(')')
  if (open < 0 || close < open) return undefined
  const ppid = Number(stat.slice(close + 2).split(' ')[1])
  const pid = Number(stat.slice(0, open).trim())
  return Number.isInteger(pid) && Number.isInteger(ppid) ? { pid, ppid, name: stat.slice(open + 1, close) } : undefined
}

/** `VmRSS` of a `/proc/PID/status` text, in bytes; 0 for a process with no memory left (a zombie). */
export function parseRss(status: string): number {
  const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1]
  return kib === undefined ? 0 : Number(kib) * 1024
}

/** `Pss` of a `/proc/PID/smaps_rollup` text, in bytes; 0 when the kernel does not give it. */
export function parsePss(rollup: string): number {
  const kib = /^Pss:\s+(\d+)\s+kB$/m.exec(rollup)?.[1]
  return kib === undefined ? 0 : Number(kib) * 1024
}

/** `root` and every process descending from it, given each process's parent. */
export function descendants(root: number, parents: ReadonlyMap<number, number>): Set<number> {
  const tree = new Set([root])
  // A child is listed before its parent when pids wrap, so sweep until nothing is added.
  for (let grew = true; grew;) {
    grew = false
    for (const [pid, ppid] of parents)
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid)
        grew = true
      }
  }
  return tree
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined // the process ended between listing and reading
  }
}

/** Every live process of the tree rooted at `root`, now. */
export function sampleTree(root: number): ProcessSample[] {
  const parents = new Map<number, number>()
  const stats = new Map<number, string>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = read(`/proc/${entry}/stat`)
    const parsed = stat === undefined ? undefined : parseStat(stat)
    if (!parsed) continue
    parents.set(parsed.pid, parsed.ppid)
    stats.set(parsed.pid, stat!)
  }
  const samples: ProcessSample[] = []
  for (const pid of descendants(root, parents)) {
    const stat = stats.get(pid)
    const status = read(`/proc/${pid}/status`)
    if (stat === undefined || status === undefined) continue
    samples.push({
      pid,
      ppid: parents.get(pid)!,
      name: parseStat(stat)!.name,
      args: (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim(),
      rss: parseRss(status),
      pss: parsePss(read(`/proc/${pid}/smaps_rollup`) ?? ''),
      cpu: processCpu(stat) ?? 0,
    })
  }
  return samples
}
