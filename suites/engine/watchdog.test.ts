import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { runProcess, type Finished } from '../../test-support/run-command.js'

const TSX = createRequire(import.meta.url).resolve('tsx')
const WATCHDOG = new URL('./watchdog.ts', import.meta.url).href

/** Runs `body` in a child Node process that first watches its event loop with a deadline of `staleMs`. */
function watched(staleMs: number, body: string): Promise<Finished> {
  const script = `
    const { watchEventLoop } = await import(${JSON.stringify(WATCHDOG)})
    watchEventLoop(${staleMs}, 'stopped: blocked')
    ${body}
  `
  return runProcess(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], { timeoutMs: 30_000 })
}

describe('the event-loop watchdog', () => {
  it('ends a process whose event loop stays blocked past the deadline, saying why on stderr', async () => {
    const ended = await watched(500, 'setTimeout(() => { for (;;) {} }, 50)')
    expect([ended.signal, ended.stderr.trim()]).toEqual(['SIGKILL', 'stopped: blocked'])
  })

  it('leaves alone a loop that is busy for less than the deadline, and never keeps the process alive', async () => {
    const body = `
      let busy = Date.now()
      while (Date.now() - busy < 200) {}
      setTimeout(() => { busy = Date.now(); while (Date.now() - busy < 200) {}; console.log('done') }, 300)
    `
    const ended = await watched(1_000, body)
    expect([ended.code, ended.signal, ended.stdout.trim(), ended.stderr]).toEqual([0, null, 'done', ''])
  })
})
