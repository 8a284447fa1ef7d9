/** The console's lines while a run is under way: the run's header, a line per scenario or area, the live line. */
import { breaksConformance, standing, type CheckResult, type RunFacts, type ScenarioRecord } from '../model/index.js'
import { palette, type ConsoleOptions, type Palette } from './palette.js'
import { plural, visible } from './text.js'

/** The first lines of a run: what is tested, with which seed. */
export function runHeader(
  facts: Pick<RunFacts, 'target' | 'viaPrism' | 'runId' | 'seed' | 'runs'>,
  { color }: ConsoleOptions,
): string {
  const p = palette(color)
  const target = facts.target.embedded ? `${facts.target.baseUrl} (the embedded stub)` : facts.target.baseUrl
  const prism = facts.viaPrism ? ', through Prism' : ''
  const line = `run ${facts.runId} · seed ${facts.seed} · ${facts.runs} runs per property`
  return `${p.bold('Pet Store conformance')} against ${visible(target)}${prism}\n${p.dim(line)}\n`
}

/** A finished scenario as the progress line sees it. */
export interface ScenarioProgress {
  /** The scenario's name (its record's, or the test's). */
  name: string
  /** What it recorded; undefined when it did not finish. */
  record?: ScenarioRecord
  /** The test's own state: a scenario that did not record is `failed` (it broke) or `skipped`. */
  state: 'passed' | 'failed' | 'skipped' | 'pending'
  /** Its first error, when it broke. */
  error?: string
}

interface Counts {
  judged: number
  failing: number
  warned: number
  broke: number
}

// Each check once, however many scenarios judged it; a failing check counts only where `owns` says it belongs.
function countChecks(
  records: readonly ScenarioRecord[],
  strict: boolean,
  owns: (check: CheckResult) => boolean = () => true,
): Counts {
  const judged = new Set<string>()
  const failing = new Set<string>()
  const warned = new Set<string>()
  const broke = new Set<string>()
  for (const check of records.flatMap((r) => r.checks ?? [])) {
    if (check.outcome === 'passed' || check.outcome === 'failed') judged.add(check.id)
    if (breaksConformance(check, strict)) {
      if (owns(check)) failing.add(check.id)
    } else if (standing(check, strict) === 'warned' && owns(check)) warned.add(check.id)
    if (check.outcome === 'error') broke.add(check.id)
  }
  return { judged: judged.size, failing: failing.size, warned: warned.size, broke: broke.size }
}

// `✓` all judged checks hold, `•` some fail or warn, `!` stopped early.
function summary(counts: Counts, stopped: string | undefined, p: Palette): { mark: string; parts: string[] } {
  const parts = [plural(counts.judged, 'check') + ' judged']
  if (counts.failing) parts.push(p.red(`${counts.failing} failing`))
  if (counts.warned) parts.push(p.yellow(plural(counts.warned, 'warning')))
  if (counts.broke) parts.push(p.red(`${counts.broke} broke`))
  const mark = stopped
    ? p.yellow('!')
    : counts.failing || counts.broke
      ? p.red('•')
      : counts.warned
        ? p.yellow('•')
        : p.green('✓')
  return { mark, parts }
}

/**
 * One line per finished scenario: how many checks it judged and how many of them fail. A scenario never
 * "fails" because a check failed; only one that broke or stopped says so.
 */
export function progressLine(scenario: ScenarioProgress, strict: boolean, { color }: ConsoleOptions): string {
  const p = palette(color)
  const name = visible(scenario.name)
  const record = scenario.record
  if (!record) {
    if (scenario.state === 'failed')
      return `${p.red('✗')} ${name}  ${p.red(`did not finish: ${visible(firstLine(scenario.error ?? 'no record'))}`)}\n`
    return `${p.dim('-')} ${name}  ${p.dim('skipped')}\n`
  }
  const { mark, parts } = summary(countChecks([record], strict), record.stopped, p)
  const stopped = record.stopped ? ` ${p.yellow(`stopped: ${visible(firstLine(record.stopped))}`)}` : ''
  return `${mark} ${name}  ${p.dim(`${parts.join(', ')} · ${plural(record.requestsSent ?? 0, 'request')}`)}${stopped}\n`
}

/**
 * One line per finished area of the run (list, create, get, auth, ...), for logs without a terminal: its
 * scenarios, the checks they judged and how many fail, its requests, and the run's time when it finished. A failing
 * check counts in the area `owns` gives it (listPets' checks in the list area, though auth's scenarios list pets
 * too); by default in every area that found it.
 */
export function areaLine(
  area: string,
  scenarios: readonly ScenarioProgress[],
  { elapsedMs, strict, owns }: { elapsedMs: number; strict: boolean; owns?: (check: CheckResult) => boolean },
  { color }: ConsoleOptions,
): string {
  const p = palette(color)
  const records = scenarios.flatMap((s) => (s.record ? [s.record] : []))
  const counts = countChecks(records, strict, owns)
  counts.broke += scenarios.filter((s) => !s.record && s.state === 'failed').length
  const stopped = records.find((r) => r.stopped)?.stopped
  const { mark, parts } = summary(counts, stopped, p)
  const requests = records.reduce((n, r) => n + (Number(r.requestsSent) || 0), 0)
  const what = `${plural(scenarios.length, 'scenario')} · ${parts.join(', ')} · ${plural(requests, 'request')} · ${Math.round(elapsedMs / 1000)} s`
  const stop = stopped ? ` ${p.yellow(`stopped: ${visible(firstLine(stopped))}`)}` : ''
  return `${mark} ${visible(area)}  ${p.dim(what)}${stop}\n`
}

const firstLine = (text: string) => text.split('\n')[0] ?? ''

/** What the live progress line shows: the run's counters, and the scenario that started last. */
export interface LiveProgress {
  scenario: string
  requests: number
  /** Checks of the catalogue judged (passed or failed) so far, and how many the run selected. */
  judged: number
  total: number
  /** Checks of the catalogue failing so far. */
  failing: number
  elapsedS: number
  /** The wait under way for a throttling answer, e.g. `waiting 1 s: the target answered 429, 37 times so far`. */
  waiting?: string
}

/**
 * The live progress line within `width` columns: the counters first, always whole (requests, checks judged of
 * the total, failing checks, elapsed time), then the scenario's title shortened to what is left.
 */
export function liveLine(live: LiveProgress, width: number): string {
  if (live.waiting) {
    const line = `› ${live.waiting} · ${live.requests} requests · ${live.elapsedS} s`
    return line.length > width ? line.slice(0, width) : line
  }
  const counters = `› ${live.requests} requests · ${live.judged}/${live.total} checks judged · ${live.failing} failing · ${live.elapsedS} s`
  if (counters.length >= width) return counters.slice(0, width)
  const room = width - counters.length - 3
  const title = visible(live.scenario || 'starting')
  if (room < 6) return counters
  return `${counters} · ${title.length > room ? `${title.slice(0, room - 1)}…` : title}`
}
