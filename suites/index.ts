/**
 * The conformance suite's public face: build a run over a transport, and run every scenario in-process
 * (tests, the library) or under vitest (the command, `suites/conformance.vitest.ts`).
 */
import type { ScenarioRecord } from '../model/index.js'
import { useSpec, type Spec } from '../spec/index.js'
import { Run, runScenario, type RunConfig } from './engine/index.js'
import { PrismOpinion } from './prism/opinion.js'
import { PHASES } from './scenarios/index.js'
import { HttpTransport } from './transport/http.js'
import { MountedTransport, type FetchHandler } from './transport/mounted.js'
import { PoliteTransport } from './transport/polite.js'
import type { Transport } from './transport/transport.js'

export { bySpec, catalogueFor, CHECKS, listedOperation, onOperation, type CheckId } from './checks/index.js'
export * from './engine/index.js'
export { PHASES, SCENARIOS } from './scenarios/index.js'
export type { FetchHandler } from './transport/mounted.js'
export type { Transport } from './transport/transport.js'

/** The transport a run uses: live HTTP (through Prism when asked), or a Fetch handler in-process; always polite. */
export function transportFor(config: RunConfig, handler?: FetchHandler): PoliteTransport {
  const options = {
    baseUrl: config.baseUrl,
    sendBaseUrl: config.sendBaseUrl,
    apiKey: config.apiKey,
    timeoutMs: config.timeoutMs,
  }
  let transport: Transport = handler ? new MountedTransport(handler, options) : new HttpTransport(options)
  if (config.viaPrism) transport = new PrismOpinion(transport)
  return new PoliteTransport(transport, {
    concurrency: config.concurrency,
    ...(config.deadline !== undefined ? { deadline: config.deadline } : {}),
  })
}

/**
 * A new run over a target, judged by `spec` (a loaded revision), else by the file `config.specPath`, else by the
 * bundled spec; that spec becomes the one in use, so code reading `spec()` follows the run.
 */
export function startRun(config: RunConfig, handler?: FetchHandler, spec?: Spec): Run {
  const judgedBy = useSpec(spec ?? config.specPath)
  return new Run(config, transportFor(config, handler), judgedBy)
}

/** Runs every scenario, phase by phase, and the run-level checks; resolves to every record (the last is the run's). */
export async function runAll(run: Run, onRecord?: (record: ScenarioRecord) => void): Promise<ScenarioRecord[]> {
  const records: ScenarioRecord[] = []
  try {
    for (const phase of PHASES) {
      await Promise.all(
        phase.map(async (spec) => {
          const record = await runScenario(run, spec)
          records.push(record)
          onRecord?.(record)
        }),
      )
    }
    const last = run.finish()
    records.push(last)
    onRecord?.(last)
  } finally {
    await run.transport.close()
  }
  return records
}
export { replayFinding, requestOf, type Replayed } from './engine/replay.js'
