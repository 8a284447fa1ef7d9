import type { CheckResult, Finding, RecordedExchange, RunResult } from '../suites/model.js'
import { standing, type Standing } from './build-run-result.js'

/** How many findings of one check a report shows in full; the JSON report keeps them all. */
export const FINDINGS_SHOWN = 3

/** How much of a body the console and Markdown reports show. */
export const BODY_LIMIT = { chars: 2000, lines: 40 }

/** Words for each standing, as every report says them. */
export const STANDING_LABEL: Record<Standing, string> = {
  passed: 'passed',
  failed: 'failed',
  warned: 'warning',
  skipped: 'not applicable',
  errors: 'error',
}

// Control characters and bidirectional overrides in a target's bytes could rewrite a terminal or hide text.
const UNSAFE_CHARS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g

/** Text from a target made safe to print: line breaks kept, other control characters shown as `\u001b`. */
export function visible(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(UNSAFE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** The text cut to at most `chars` characters and `lines` lines, saying how much was left out. */
export function limitText(text: string, limit: { chars: number; lines: number } = BODY_LIMIT): string {
  const lines = text.split('\n')
  let kept = lines.slice(0, limit.lines).join('\n')
  if (kept.length > limit.chars) kept = kept.slice(0, limit.chars)
  const omitted = text.length - kept.length
  return omitted > 0 ? `${kept}\n… (${omitted} more characters)` : kept
}

/** `GET http://host/v1/pets?limit=0` */
export function requestLine(exchange: RecordedExchange): string {
  return `${exchange.request.method} ${exchange.request.url}`
}

/** What came back, in one line: `500 (12 ms)` or `no response: timeout after 5000 ms`. */
export function responseSummary(exchange: RecordedExchange): string {
  if (!exchange.response) return `no response: ${exchange.error ?? 'unknown transport error'} (${exchange.durationMs} ms)`
  return `${exchange.response.status} (${exchange.durationMs} ms)`
}

// Connection bookkeeping that says nothing about conformance; the brief reports leave it out, HTML and JSON keep it.
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive'])

/**
 * The exchange as `curl -v` prints it: `>` request lines, `<` response lines, bodies cut to `limit`.
 * `brief` leaves out response headers about the connection rather than the interface.
 */
export function exchangeText(exchange: RecordedExchange, limit = BODY_LIMIT, { brief = false } = {}): string {
  const out = [`> ${requestLine(exchange)}`]
  for (const [name, value] of Object.entries(exchange.request.headers)) out.push(`> ${name}: ${value}`)
  if (exchange.request.body !== undefined && exchange.request.body !== '') {
    out.push('>', ...limitText(exchange.request.body, limit).split('\n').map((l) => `> ${l}`))
  }
  if (!exchange.response) {
    out.push(`! no response: ${exchange.error ?? 'unknown transport error'} (after ${exchange.durationMs} ms)`)
    return visible(out.join('\n'))
  }
  out.push(`< ${exchange.response.status} (${exchange.durationMs} ms)`)
  for (const [name, value] of Object.entries(exchange.response.headers)) {
    if (!(brief && TRANSPORT_HEADERS.has(name.toLowerCase()))) out.push(`< ${name}: ${value}`)
  }
  if (exchange.response.rawBody !== '') {
    out.push('<', ...limitText(exchange.response.rawBody, limit).split('\n').map((l) => `< ${l}`))
  } else {
    out.push('< (empty body)')
  }
  return visible(out.join('\n'))
}

/** The operation a finding is about, from the finding, its exchange or its check. */
export function findingOperation(check: CheckResult, finding: Finding): string | undefined {
  return finding.operationId ?? finding.exchange?.operationId ?? (check.operationId === 'all' ? undefined : check.operationId)
}

/** Checks in the given standings, in report order. */
export function checksIn(run: RunResult, ...wanted: Standing[]): CheckResult[] {
  return run.checks.filter((c) => wanted.includes(standing(c, run.strict)))
}

/** The command that replays the run: same target, seed and effort; the key comes from the environment. */
export function replayCommand(run: RunResult): string {
  const target = run.target.embedded ? '' : ` --base-url ${run.target.baseUrl}`
  return `npx petstore-conformance${target} --seed ${run.seed} --runs ${run.runs}${run.strict ? ' --strict' : ''}`
}

/** `850 ms` or `10.4 s`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}

/** `3 passed, 1 failed, ...` in the totals' order. */
export function totalsLine(run: RunResult): string {
  const t = run.totals
  return `${plural(t.checks, 'check')}: ${t.passed} passed, ${t.failed} failed, ${plural(t.warned, 'warning')}, ${t.skipped} not applicable, ${plural(t.errors, 'error')}`
}

/** `1 check`, `2 checks`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/** One sentence on how the counterexample replays. */
export function replayOf(finding: Finding): string | undefined {
  if (finding.seed === undefined) return undefined
  return finding.path === undefined ? `seed ${finding.seed}` : `seed ${finding.seed}, path ${finding.path}`
}

/** `1 more finding` / `4 more findings`. */
export function moreFindings(count: number): string {
  return `${plural(count, 'more finding')}`
}
