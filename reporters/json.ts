import type { RunResult } from '../model/index.js'

/** The JSON report: the run result itself, two-space indented, as `reporters/result.schema.json` describes it. */
export function toJson(run: RunResult): string {
  return `${JSON.stringify(run, null, 2)}\n`
}
