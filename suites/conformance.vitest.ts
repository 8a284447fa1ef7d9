/**
 * The conformance run under vitest, as the command starts it: one test per scenario, in order, each carrying
 * its record in `task.meta.conformance`, then the run as a whole. A test fails only when the suite itself
 * breaks; the target's failures are findings in the records, which the reporter turns into the verdict.
 */
import { afterAll, describe, inject, test } from 'vitest'
import { WAIT_LOG_PREFIX, type ScenarioRecord } from '../model/index.js'
import type { RunConfig } from './engine/index.js'
import { STALLED_MS } from './engine/config.js'
import { watchEventLoop } from './engine/watchdog.js'
import { PHASES, RUN_LEVEL, runScenario, startRun } from './index.js'

declare module 'vitest' {
  interface ProvidedContext {
    conformance: RunConfig
  }
  interface TaskMeta {
    /** What a conformance scenario recorded. */
    conformance?: ScenarioRecord
    /** The area of the run it belongs to (list, create, get, auth, ...): progress without a terminal is a line per area. */
    area?: string
    /** The operations its scenario exercises: progress blames a failing check on the area of its operation. */
    operations?: readonly string[]
  }
}

const run = startRun(inject('conformance'))
// Each wait for a throttling answer reaches the reporter at once, as a console line it reads and does not print.
run.transport.onWait = (wait) => console.log(`${WAIT_LOG_PREFIX}${JSON.stringify(wait)}`)
// Every record carries the transport's rate-limiting counts so far: the reporter keeps the largest.
const withThrottling = (record: ScenarioRecord): ScenarioRecord => {
  const throttling = run.transport.throttling?.()
  return throttling ? { ...record, throttling } : record
}
// A loop of the suite's own that never ends would hang the command where no timeout reaches: stop the run instead.
const unwatch = watchEventLoop(
  STALLED_MS,
  `petstore-conformance: the run is stopped: the suite's own code blocked for ${STALLED_MS / 1000} s (a bug of the kit, not of the target)`,
)

afterAll(() => {
  unwatch()
  return run.transport.close()
})

// The scenarios of a phase run side by side (vitest's `maxConcurrency` is set to let them); phases in order.
for (const [i, phase] of PHASES.entries()) {
  // A plain describe per phase keeps the phases in order; `test.concurrent` lets a phase's scenarios overlap.
  describe(`phase ${i + 1}`, () => {
    for (const spec of phase) {
      test.concurrent(
        spec.name,
        { meta: { area: spec.area, operations: spec.operations } },
        async ({ task, signal }) => {
          // Cancelled (the command was interrupted): what the scenario judged so far is its record, kept at once.
          task.meta.conformance = withThrottling(
            await runScenario(run, spec, {
              signal,
              record: (record) => (task.meta.conformance = withThrottling(record)),
            }),
          )
        },
      )
    }
  })
}

test(RUN_LEVEL, ({ task }) => {
  task.meta.conformance = withThrottling(run.finish())
})
