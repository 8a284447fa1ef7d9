/**
 * `petstore-conformance --replay report.json [--base-url URL]`: each failing finding of an earlier run is
 * sent again and judged again; the command says FIXED or STILL FAILING per finding, or CANNOT REPLAY with why when
 * the target no longer holds what the finding was judged on, and exits 0 only when every finding is fixed (1
 * otherwise, 2 when the report cannot be replayed at all).
 */
import { breaksConformance, type RunResult } from '../../model/index.js'
import { readTextFile, spec } from '../../spec/index.js'
import { replayFinding, transportFor } from '../../suites/index.js'
import { UsageError } from '../usage-error.js'
import type { Config } from './config.js'

function readReport(path: string): RunResult {
  try {
    const report = JSON.parse(readTextFile(path)) as RunResult
    if (!Array.isArray(report.checks) || typeof report.target?.baseUrl !== 'string')
      throw new Error('not a report.json of petstore-conformance')
    return report
  } catch (error) {
    throw new UsageError(`cannot replay ${path}: ${(error as Error).message.split('\n')[0]}`)
  }
}

/** Replays the failing findings of `config.replay`; resolves to the exit code. */
export async function replay(config: Config): Promise<number> {
  const report = readReport(config.replay!)
  const baseUrl = config.baseUrl ?? (report.target.embedded ? undefined : report.target.baseUrl)
  if (!baseUrl)
    throw new UsageError(
      'the report was made against the embedded stub, which is gone: give --base-url to replay it against a target',
    )
  if (!config.apiKey) throw new UsageError('--api-key (or PETSTORE_API_KEY) is required to replay')
  const findings = report.checks.filter((c) => breaksConformance(c, report.strict)).flatMap((c) => c.findings)
  if (!findings.length) {
    process.stdout.write(`${config.replay}: no failing finding to replay\n`)
    return 0
  }
  const transport = transportFor({
    baseUrl,
    apiKey: config.apiKey,
    seed: config.seed,
    runs: config.runs,
    timeoutMs: config.timeoutMs,
    concurrency: 1,
    checks: [],
    operations: [],
    strict: report.strict,
    viaPrism: false,
    runId: config.runId,
    allowances: config.allowances,
  })
  let stillFailing = 0
  let unknown = 0
  try {
    for (const finding of findings) {
      const {
        outcome,
        messages,
        exchange,
        notes = [],
      } = await replayFinding(finding, report.target.baseUrl, transport, spec())
      if (outcome === 'still failing') stillFailing++
      if (outcome === 'cannot replay') {
        // Neither fixed nor failing: the target no longer holds what the finding was judged on.
        unknown++
        process.stdout.write(
          `${outcome.toUpperCase().padEnd(15)} ${finding.checkId}  ${finding.message.split('\n')[0]}\n`,
        )
        for (const message of messages.slice(0, 3))
          process.stdout.write(`                cannot replay: ${message.split('\n')[0]}\n`)
        continue
      }
      const line = exchange
        ? `${exchange.request.method} ${exchange.request.url} -> ${exchange.response?.status ?? exchange.error}`
        : finding.message
      process.stdout.write(`${outcome.toUpperCase().padEnd(15)} ${finding.checkId}  ${line}\n`)
      for (const note of notes) process.stdout.write(`                (${note})\n`)
      for (const message of messages.slice(0, 3)) process.stdout.write(`                ${message.split('\n')[0]}\n`)
    }
  } finally {
    await transport.close()
  }
  const fixed = findings.length - stillFailing - unknown
  const cannot = unknown
    ? `; ${unknown} cannot be replayed on this target: only a full run of the suite can confirm ${unknown === 1 ? 'it' : 'them'}`
    : ''
  process.stdout.write(`\n${fixed} of ${findings.length} findings fixed${cannot}\n`)
  return stillFailing || unknown ? 1 : 0
}
