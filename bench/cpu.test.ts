import { describe, expect, it } from 'vitest'
import { cpuSpent, machineBusy, processCpu, sampleCpu } from './cpu.js'

describe('CPU accounting from /proc', () => {
  it('reads utime + stime of a process, even when its name holds spaces and parentheses', () => {
    const stat = '4242 (node (x) y) S 1 4242 4242 0 -1 4194560 5000 0 0 0 250 130 0 0 20 0 11 0 100 0 0'
    expect(processCpu(stat)).toBeCloseTo(3.8) // (250 + 130) ticks at 100 per second
  })

  it('counts busy time as everything but idle and iowait', () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    expect(machineBusy('cpu  1000 10 300 9000 50 0 40 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10')).toBeCloseTo(13.5)
    expect(machineBusy('intr 1 2 3')).toBeUndefined()
  })

  it('attributes the rest of the machine to others, never below zero', () => {
    const before = { target: 1, bench: 2, machine: 10 }
    expect(cpuSpent(before, { target: 3, bench: 3, machine: 14 })).toEqual({ target: 2, bench: 1, others: 1 })
    expect(cpuSpent(before, { target: 3, bench: 3, machine: 12 }).others).toBe(0)
    expect(cpuSpent({ ...before, target: undefined }, { target: 3, bench: 3, machine: 14 }).others).toBeUndefined()
  })

  it('samples this process on Linux', () => {
    const sample = sampleCpu(process.pid)
    expect(sample.bench).toBeGreaterThan(0)
    if (process.platform === 'linux') expect(sample.target).toBeGreaterThan(0)
  })
})
