import {
  cutText,
  findingBasis,
  standing,
  type CheckResult,
  type Finding,
  type RecordedExchange,
  type RunResult,
  type Standing,
} from '../model/index.js'

/** How many findings of one check the console and Markdown show in full; JSON and HTML show every one kept. */
export const FINDINGS_SHOWN = 3

/** How much of a body the console and Markdown reports show. */
export const BODY_LIMIT = { chars: 2000, lines: 40 }

/**
 * What documents the behaviour a finding breaks, one line per place beside it: the spec's words and the pointer
 * (an RFC line names its section first), e.g. `listPets documents 200 and 401 (#/paths/~1pets/get/responses)`.
 */
export function basisLines(check: CheckResult, finding: Finding): string[] {
  return findingBasis(check, finding).map((line) =>
    line.text.startsWith(line.ref) ? line.text : `${line.text} (${line.ref})`,
  )
}

/** Words for each standing, as every report says them. */
export const STANDING_LABEL: Record<Standing, string> = {
  passed: 'passed',
  failed: 'failed',
  warned: 'warning',
  skipped: 'not applicable',
  unjudged: 'not judged',
  errors: 'error',
}

// Control characters and bidirectional overrides in a target's bytes could rewrite a terminal or hide text.
const UNSAFE_CHARS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g

/** Text from a target made safe to print: line breaks kept, other control characters shown as `\u001b`. */
export function visible(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** The text cut to at most `chars` characters and `lines` lines, saying how much was left out and the whole size. */
export function limitText(text: string, limit: { chars: number; lines: number } = BODY_LIMIT): string {
  const lines = text.split('\n')
  let kept = lines.slice(0, limit.lines).join('\n')
  kept = cutText(kept, limit.chars)
  const omitted = text.length - kept.length
  if (omitted <= 0) return kept
  const size = /… \[truncated: (\d+) bytes in all\]$/.exec(text) // the run kept only part of it already
  const moreLines = lines.length - kept.split('\n').length
  const more = moreLines > 0 ? plural(moreLines, 'more line') : plural(omitted, 'more character')
  const bytes = size ? Number(size[1]) : Buffer.byteLength(text)
  return `${kept}\n… ${more}, ${byteSize(bytes)} in all (whole in the JSON and HTML reports; --verbose prints it)`
}

/** `512 bytes`, `4.2 KB`, `48 KB`, `1.5 MB`. */
export function byteSize(bytes: number): string {
  const unit = (value: number, name: string) => `${value < 10 ? value.toFixed(1) : Math.round(value)} ${name}`
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return unit(bytes / 1024, 'KB')
  return unit(bytes / (1024 * 1024), 'MB')
}

/** `GET http://host/v1/pets?limit=0` */
export function requestLine(exchange: RecordedExchange): string {
  return `${exchange.request.method} ${exchange.request.url}`
}

/** What came back, in one line: `500 (12 ms)` or `no response: timeout after 5000 ms`. */
export function responseSummary(exchange: RecordedExchange): string {
  if (!exchange.response)
    return `no response: ${exchange.error ?? 'unknown transport error'} (${exchange.durationMs} ms)`
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
  out.push(...headerLines('>', exchange.request.headers, brief ? BRIEF_HEADERS : Infinity))
  if (exchange.request.body !== undefined && exchange.request.body !== '') {
    out.push(
      '>',
      ...limitText(exchange.request.body, limit)
        .split('\n')
        .map((l) => `> ${l}`),
    )
  }
  if (!exchange.response) {
    out.push(`! no response: ${exchange.error ?? 'unknown transport error'} (after ${exchange.durationMs} ms)`)
    return visible(out.join('\n'))
  }
  out.push(`< ${exchange.response.status} (${exchange.durationMs} ms)`)
  const shown = Object.entries(exchange.response.headers).filter(
    ([name]) => !(brief && TRANSPORT_HEADERS.has(name.toLowerCase())),
  )
  out.push(...headerLines('<', Object.fromEntries(shown), brief ? BRIEF_HEADERS : Infinity))
  if (exchange.response.rawBody !== '') {
    out.push(
      '<',
      ...limitText(exchange.response.rawBody, limit)
        .split('\n')
        .map((l) => `< ${l}`),
    )
  } else {
    out.push('< (empty body)')
  }
  return visible(out.join('\n'))
}

// The brief reports (console, Markdown) show this many headers of each side; JSON and HTML show all the run kept.
const BRIEF_HEADERS = 12

function headerLines(mark: string, headers: Record<string, string>, max: number): string[] {
  const entries = Object.entries(headers)
  const lines = entries.slice(0, max).map(([name, value]) => `${mark} ${name}: ${value}`)
  if (entries.length > max) lines.push(`${mark} … (${entries.length - max} more headers in the JSON and HTML reports)`)
  return lines
}

/** The operation a finding is about, from the finding, its exchange or its check. */
export function findingOperation(check: CheckResult, finding: Finding): string | undefined {
  return (
    finding.operationId ??
    finding.exchange?.operationId ??
    (check.operationId === 'all' ? undefined : check.operationId)
  )
}

/** Checks in the given standings, in report order. */
export function checksIn(run: RunResult, ...wanted: Standing[]): CheckResult[] {
  return run.checks.filter((c) => wanted.includes(standing(c, run.strict)))
}

/** The command that replays the run as printed: same target, seed and effort; the key comes from the environment. */
export function replayCommand(run: RunResult): string {
  const target = run.target.embedded ? '' : ` --base-url ${shellWord(run.target.baseUrl)}`
  // `--seed=N`: a negative seed as a separate word would be read as an option.
  const flags = `${target} --seed=${run.seed} --runs ${run.runs}${run.strict ? ' --strict' : ''}${run.viaPrism ? ' --via-prism' : ''}`
  return `npx --no-install petstore-conformance${flags}`
}

/** What the replay command needs besides itself, or undefined: the embedded stub needs nothing. */
export function replayNote(run: RunResult): string | undefined {
  return run.target.embedded
    ? undefined
    : 'PETSTORE_API_KEY must be set: the key is read from the environment, never from the command line'
}

/** The text as one shell word: as it is when it is plain, single-quoted otherwise. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_\/:.,@%+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`
}

/** How many findings of a check there were in all, kept or left out. */
export function findingCount(check: CheckResult): number {
  return check.findings.length + (check.findingsLeftOut ?? 0)
}

/** `2 more findings` beyond the `shown` ones, saying where the rest are, or undefined when all were shown. */
export function moreFindingsLine(check: CheckResult, shown: number): string | undefined {
  const inReports = Math.max(0, check.findings.length - shown)
  const leftOut = check.findingsLeftOut ?? 0
  if (!inReports && !leftOut) return undefined
  const parts = [
    ...(inReports ? [`${moreFindings(inReports)} in the JSON and HTML reports`] : []),
    ...(leftOut ? [`${plural(leftOut, 'more distinct finding')} not kept (evidence is bounded)`] : []),
  ]
  return `… ${parts.join('; ')}`
}

/** `850 ms` or `10.4 s`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}

/** `17 checks: 8 passed, 5 failed, 1 warning, 2 not judged` in the totals' order; counts of 0 left out but failed. */
export function totalsLine(run: RunResult): string {
  const t = run.totals
  const parts = [
    `${t.passed} passed`,
    `${t.failed} failed`,
    ...(t.warned ? [plural(t.warned, 'warning')] : []),
    ...(t.skipped ? [`${t.skipped} not applicable`] : []),
    ...(t.unjudged ? [`${t.unjudged} not judged`] : []),
    ...(t.errors ? [plural(t.errors, 'error')] : []),
  ]
  return `${plural(t.checks, 'check')}: ${parts.join(', ')}`
}

/** `1 check`, `2 checks`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/**
 * The command that finds the counterexample again, as it can be pasted: the run's replay command with the
 * finding's seed (every property starts from it, and meets the same inputs again only beside the same checks, so
 * the command selects none). fast-check's path to the counterexample stays in report.json.
 */
export function replayOf(run: RunResult, finding: Finding): string | undefined {
  if (finding.seed === undefined) return undefined
  return replayCommand({ ...run, seed: finding.seed })
}

/** `1 more finding` / `4 more findings`. */
export function moreFindings(count: number): string {
  return `${plural(count, 'more finding')}`
}

/**
 * The rate limiting the run met, in one line: `429 answered 262 times, 503 never; waited 74.3 s in all, at most
 * 2.0 s at once`, or `none` when the target never asked the run to wait.
 */
export function throttlingText(run: Pick<RunResult, 'throttling'>): string {
  const t = run.throttling
  if (!t || (!t.status429 && !t.status503)) return 'none: the target never asked the run to wait'
  const times = (n: number) => (n === 0 ? 'never' : n === 1 ? 'once' : `${n} times`)
  return `429 answered ${times(t.status429)}, 503 with Retry-After ${times(t.status503)}; waited ${formatDuration(t.waitedMs)} in all, at most ${formatDuration(t.longestWaitMs)} at once`
}

/** True when the target throttled the run at least once. */
export function wasThrottled(run: Pick<RunResult, 'throttling'>): boolean {
  return Boolean(run.throttling && (run.throttling.status429 || run.throttling.status503))
}

/** `waiting 1 s: the target answered 429, 37 times so far`: the progress line of one wait for a throttling answer. */
export function waitingText(wait: { waitMs: number; status: number; times: number }): string {
  const ms = Math.max(0, wait.waitMs)
  const how = ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`
  const times = wait.times === 1 ? 'once so far' : `${wait.times} times so far`
  return `waiting ${how}: the target answered ${wait.status}, ${times}`
}

/** The finding whose exchange is shortest to read (request and response bodies, URL), or the first. */
export function shortest(findings: readonly Finding[]): Finding | undefined {
  const size = (f: Finding) =>
    f.exchange
      ? f.exchange.request.url.length +
        (f.exchange.request.body?.length ?? 0) +
        (f.exchange.response?.rawBody.length ?? 0)
      : Number.MAX_SAFE_INTEGER
  return findings.reduce<Finding | undefined>(
    (best, f) => (best === undefined || size(f) < size(best) ? f : best),
    undefined,
  )
}
