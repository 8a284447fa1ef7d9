import { describe, expect, it } from 'vitest'
import { descendants, parsePss, parseRss, parseStat, sampleTree } from './process-tree.js'

describe('a process tree from /proc', () => {
  it('reads pid, parent and name from a stat line, even when the name holds spaces and parentheses', () => {
    expect(parseStat('4242 (npm exec (x) y) S 17 4242 4242 0 -1 4194560 5000 0 0 0 250 130')).toEqual({
      pid: 4242,
      ppid: 17,
      name: 'npm exec (x) y',
    })
    expect(parseStat('not a stat line')).toBeUndefined()
  })

  it('reads VmRSS in bytes, and 0 for a process with no memory left', () => {
    expect(parseRss('Name:\tnode\nVmPeak:\t 999 kB\nVmRSS:\t  131476 kB\nThreads:\t11\n')).toBe(131476 * 1024)
    expect(parseRss('Name:\tnode\nState:\tZ (zombie)\n')).toBe(0)
  })

  it('reads Pss in bytes from smaps_rollup, and 0 without it', () => {
    expect(parsePss('55d0-7ffd ---p 00000000 00:00 0 [rollup]\nRss:  115632 kB\nPss:   79012 kB\n')).toBe(79012 * 1024)
    expect(parsePss('')).toBe(0)
  })

  it('finds every descendant, whatever order the processes are listed in, and nothing else', () => {
    const parents = new Map([
      [30, 20], // a grandchild listed before its parent, as when pids wrap
      [20, 10],
      [21, 10],
      [40, 1], // another tree
      [10, 1],
    ])
    expect([...descendants(10, parents)].sort()).toEqual([10, 20, 21, 30])
  })

  it.runIf(process.platform === 'linux')('samples this process on Linux', () => {
    const [self] = sampleTree(process.pid).filter((p) => p.pid === process.pid)
    expect(self?.rss).toBeGreaterThan(0)
    expect(self?.args).toContain('node')
  })
})
