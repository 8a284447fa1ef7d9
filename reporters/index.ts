/**
 * The conformance reporter, handed to vitest as an instance: it shows progress while scenarios run, then
 * merges their records into the one `RunResult` (model/build.ts), writes every selected format and hands the
 * result to the command, which takes its exit code from it. Every text it writes passes the redactor once more.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import type { UserConsoleLog } from 'vitest'
import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason } from 'vitest/node'
import {
  buildRunResult,
  compareText,
  redactingSink,
  type Redactor,
  type RunFacts,
  type RunResult,
  type ScenarioRecord,
  type TextSink,
  type WaitNotice,
  breaksConformance,
  WAIT_LOG_PREFIX,
} from '../model/index.js'
import { toConsole, verdictOnly } from './console.js'
import { areaLine, liveLine, progressLine, runHeader, type ScenarioProgress } from './progress.js'
import { toHtml } from './html.js'
import { toJson } from './json.js'
import { toJunit } from './junit.js'
import { toMarkdown } from './markdown.js'
import { waitingText } from './text.js'

export { toConsole, verdictOnly } from './console.js'
export { type ConsoleOptions } from './palette.js'
export { areaLine, liveLine, progressLine, runHeader, type ScenarioProgress } from './progress.js'
export { cellLabel, matrixOf, type CellOutcome, type Matrix, type MatrixCell, type MatrixRow } from './matrix.js'
export { replayCommand, replayNote, waitingText } from './text.js'
export { toHtml, toJson, toJunit, toMarkdown }

/** A writer turns the run result into the text of one report format. Pure and byte-stable. */
export type Writer = (run: RunResult) => string

/** The file formats, each by the name `--reporter` uses. */
export const WRITERS = { json: toJson, html: toHtml, markdown: toMarkdown, junit: toJunit } satisfies Record<
  string,
  Writer
>

/** A file format's name. */
export type FileFormat = keyof typeof WRITERS

/** File name of each file format inside the output directory. */
export const REPORT_FILES: Record<FileFormat, string> = {
  json: 'report.json',
  html: 'report.html',
  markdown: 'report.md',
  junit: 'junit.xml',
}

/** Every format the command may select: the console and the files. */
export const FORMATS = ['console', ...(Object.keys(WRITERS) as FileFormat[])] as const

/** A report format's name. */
export type Format = (typeof FORMATS)[number]

/** How progress shows while scenarios run: one rewritten line (a terminal), a line per area (CI), or nothing. */
export type Progress = 'live' | 'lines' | 'none'

/** Where console text goes: a writable stream, or anything with `write`. */
export type Out = TextSink & { isTTY?: boolean; columns?: number }

/** What the command passes to the reporter (never the API key: the redactor knows it). */
export interface ReporterOptions {
  formats: readonly Format[]
  /** Where report files go; created when missing. */
  outputDir: string
  /** The run's facts; the reporter adds its timing, the errors outside scenarios and why the run stopped. */
  facts: Omit<RunFacts, 'startedAt' | 'durationMs' | 'runErrors' | 'stopped'>
  /** Redacts the run's result and, once more, every text written. */
  redactor: Redactor
  /** Standard output by default. */
  out?: Out
  /** ANSI colours on the console; by default when `out` is a terminal. */
  color?: boolean
  /** By default `live` when `out` is a terminal, `lines` otherwise. */
  progress?: Progress
  /** The console report shows bodies whole (`--verbose`). */
  verbose?: boolean
  /** Asked when the run ends: why the command stopped it early (e.g. `--max-time 30 s reached`), if it did. */
  stopped?: () => string | undefined
  /** Print the run's header when the run starts; off when the command printed it already. Default true. */
  header?: boolean
  /** Called with the result once every report is written; the command takes its exit code from it. */
  onResult?: (run: RunResult) => void
}

/** Where the reporter wrote each file, by format. */
export type WrittenReports = Partial<Record<FileFormat, string>>

/** What went wrong writing report files, by path. */
export interface WriteError {
  path: string
  message: string
}

/**
 * Writes the selected file formats of a run into `outputDir`, each text redacted once more. A file that cannot
 * be written does not stop the others: its error is returned.
 */
export async function writeReports(
  run: RunResult,
  formats: readonly string[],
  outputDir: string,
  redactor: Redactor,
): Promise<{ written: WrittenReports; errors: WriteError[] }> {
  const selected = (Object.keys(WRITERS) as FileFormat[]).filter((f) => formats.includes(f))
  const written: WrittenReports = {}
  const errors: WriteError[] = []
  if (!selected.length) return { written, errors }
  try {
    await mkdir(outputDir, { recursive: true })
  } catch (error) {
    return { written, errors: [{ path: outputDir, message: messageOf(error) }] }
  }
  for (const format of selected) {
    const path = join(outputDir, REPORT_FILES[format])
    try {
      await writeFile(path, redactor.text(WRITERS[format](run)), 'utf8')
      written[format] = path
    } catch (error) {
      errors.push({ path, message: messageOf(error) })
    }
  }
  return { written, errors }
}

const messageOf = (error: unknown) => stripVTControlCharacters(error instanceof Error ? error.message : String(error))

function errorText(error: { name?: string; message?: string }): string {
  const message = stripVTControlCharacters(error.message ?? '')
  return error.name && error.name !== 'Error' && error.name !== 'AssertionError' ? `${error.name}: ${message}` : message
}

/** What a test case recorded, if it is a scenario record (task meta crosses from the worker as plain data). */
export function recordOf(testCase: Pick<TestCase, 'meta'>): ScenarioRecord | undefined {
  const record = (testCase.meta() as { conformance?: unknown }).conformance
  return record !== null && typeof record === 'object' && Array.isArray((record as ScenarioRecord).checks)
    ? (record as ScenarioRecord)
    : undefined
}

/** The area of the run a test case belongs to (its `area` meta), or its own name when it has none. */
export function areaOf(testCase: Pick<TestCase, 'meta' | 'name'>): string {
  const area = (testCase.meta() as { area?: unknown }).area
  return typeof area === 'string' && area ? area : testCase.name
}

/** The operations a test case's scenario exercises (its `operations` meta), none when it has none. */
export function operationsOf(testCase: Pick<TestCase, 'meta'>): string[] {
  const operations = (testCase.meta() as { operations?: unknown }).operations
  return Array.isArray(operations) ? operations.filter((o): o is string => typeof o === 'string') : []
}

/** A finished test case as its progress line sees it. */
export function scenarioOf(testCase: Pick<TestCase, 'meta' | 'name' | 'result'>): ScenarioProgress {
  const record = recordOf(testCase)
  const result = testCase.result()
  const error = result.errors?.[0]
  return {
    name: record?.scenario ?? testCase.name,
    ...(record ? { record } : {}),
    state: result.state,
    ...(error ? { error: errorText(error) } : {}),
  }
}

/** Errors outside any scenario: files that failed to load, failing hooks, unhandled errors, scenarios that broke. */
export function runErrorsOf(testModules: readonly TestModule[], unhandled: readonly SerializedError[]): string[] {
  const errors: string[] = []
  for (const testModule of testModules) {
    const where = testModule.relativeModuleId
    for (const error of testModule.errors()) errors.push(`${where}: ${errorText(error)}`)
    for (const suite of testModule.children.allSuites()) {
      for (const error of suite.errors()) errors.push(`${where} > ${suite.fullName}: ${errorText(error)}`)
    }
    for (const testCase of testModule.children.allTests()) {
      const result = testCase.result()
      if (result.state !== 'failed' || recordOf(testCase)) continue
      const first = result.errors?.[0]
      errors.push(`scenario "${testCase.fullName}" did not finish: ${first ? errorText(first) : 'no error message'}`)
    }
  }
  for (const error of unhandled) errors.push(`unhandled: ${errorText(error)}`)
  return errors
}

const CLEAR_LINE = '\r\u001b[2K'

/** Without a terminal, a line about waiting for a throttling target at most this often (or for a wait this long). */
const WAIT_LINE_EVERY_MS = 5000

// An area whose scenarios judged nothing, found nothing and did not break (a run narrowed to other checks) gets no line.
function ran(scenarios: readonly ScenarioProgress[]): boolean {
  return scenarios.some(
    (s) =>
      (!s.record && s.state === 'failed') ||
      s.record?.stopped !== undefined ||
      (s.record?.checks ?? []).some((c) => c.outcome === 'passed' || c.outcome === 'failed' || c.outcome === 'error'),
  )
}

/** The vitest reporter of the conformance suite. */
export default class ConformanceReporter implements Reporter {
  /** The run's result, once the run has ended. */
  result: RunResult | undefined
  /** Report files that could not be written: the command should not call such a run finished. */
  writeErrors: WriteError[] = []

  readonly #options: ReporterOptions
  readonly #out: TextSink
  readonly #color: boolean
  readonly #progress: Progress
  readonly #columns: number
  #startedAt = new Date()
  #lastWaitLine = -Infinity
  #start = performance.now()
  #drawn = false
  /** Scenarios of each area, for the line an area gets once all of them are done. */
  readonly #areas = new Map<string, { total: number; done: ScenarioProgress[] }>()
  /** For each operation, how many scenarios of each area exercise it. */
  readonly #exercising = new Map<string, Map<string, number>>()
  #live: {
    timer?: ReturnType<typeof setInterval>
    scenario: string
    requests: number
    /** Ids of the checks judged so far, and of those failing. */
    judged: Set<string>
    failing: Set<string>
    /** The wait under way for a throttling answer, and when it ends (performance.now()). */
    waiting?: { text: string; until: number }
  } = {
    scenario: '',
    requests: 0,
    judged: new Set(),
    failing: new Set(),
  }

  constructor(options: ReporterOptions) {
    const unknown = (options.formats ?? []).filter((f) => !(FORMATS as readonly string[]).includes(f))
    if (unknown.length) throw new Error(`unknown report format ${unknown.join(', ')}; known: ${FORMATS.join(', ')}`)
    this.#options = options
    const out = options.out ?? process.stdout
    this.#out = redactingSink(out, options.redactor)
    this.#color = options.color ?? out.isTTY === true
    this.#progress = options.progress ?? (out.isTTY === true ? 'live' : 'lines')
    // 80 columns at most, the terminal's width when smaller (less one, so the cursor never wraps the line).
    this.#columns = Math.max(1, Math.min(80, (out.columns ?? 80) - 1))
  }

  onInit(): void {
    this.#startedAt = new Date()
    this.#start = performance.now()
  }

  onTestRunStart(): void {
    if ((this.#options.formats.includes('console') || this.#progress !== 'none') && this.#options.header !== false) {
      this.#out.write(runHeader(this.#options.facts, { color: this.#color }) + '\n')
    }
    if (this.#progress === 'live') {
      this.#live.timer = setInterval(() => this.#drawLive(), 1000)
      this.#live.timer.unref?.()
    }
  }

  onTestModuleCollected(testModule: TestModule): void {
    for (const testCase of testModule.children.allTests()) {
      const name = areaOf(testCase)
      const area = this.#areas.get(name) ?? { total: 0, done: [] }
      area.total += 1
      this.#areas.set(name, area)
      for (const operation of operationsOf(testCase)) {
        const areas = this.#exercising.get(operation) ?? new Map<string, number>()
        areas.set(name, (areas.get(name) ?? 0) + 1)
        this.#exercising.set(operation, areas)
      }
    }
  }

  /**
   * The area an operation's checks belong to: the one with the most scenarios that exercise the operation (the list
   * area for listPets), so a failing listPets check is not blamed on auth, whose scenarios list pets to find an id.
   */
  #homeOf(operationId: string): string | undefined {
    const areas = this.#exercising.get(operationId)
    if (!areas) return undefined
    return [...areas].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))[0]?.[0]
  }

  /** The run's worker tells of each wait for a throttling answer as a console line: shown as progress, never printed. */
  onUserConsoleLog(log: UserConsoleLog): void {
    const at = log.content.indexOf(WAIT_LOG_PREFIX)
    if (at === -1) return
    let wait: WaitNotice
    try {
      wait = JSON.parse(log.content.slice(at + WAIT_LOG_PREFIX.length)) as WaitNotice
    } catch {
      return
    }
    const now = performance.now()
    const text = waitingText(wait)
    if (this.#progress === 'live') {
      this.#live.waiting = { text, until: now + wait.waitMs }
      this.#drawLive()
    } else if (
      this.#progress === 'lines' &&
      (now - this.#lastWaitLine >= WAIT_LINE_EVERY_MS || wait.waitMs >= WAIT_LINE_EVERY_MS)
    ) {
      // A log without a terminal: a line now and then, not one per throttled request.
      this.#lastWaitLine = now
      this.#out.write(`${text}\n`)
    }
  }

  onTestCaseReady(testCase: TestCase): void {
    if (this.#progress !== 'live') return
    this.#live.scenario = testCase.name
    this.#drawLive()
  }

  onTestCaseResult(testCase: TestCase): void {
    const scenario = scenarioOf(testCase)
    this.#live.requests += Number(scenario.record?.requestsSent) || 0
    for (const check of scenario.record?.checks ?? []) {
      if (check.outcome === 'passed' || check.outcome === 'failed') this.#live.judged.add(check.id)
      if (breaksConformance(check, this.#options.facts.strict)) this.#live.failing.add(check.id)
    }
    if (this.#progress === 'lines') this.#lineFor(testCase, scenario)
    else if (this.#progress === 'live') this.#drawLive()
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): Promise<void> {
    this.#stopLive()
    const modules = [...testModules].sort((a, b) => compareText(a.relativeModuleId, b.relativeModuleId))
    const records = modules.flatMap((m) => [...m.children.allTests()].flatMap((t) => recordOf(t) ?? []))
    const stopped =
      this.#options.stopped?.() ??
      (reason === 'interrupted' ? 'the run was interrupted before every scenario finished' : undefined)
    const facts: RunFacts = {
      ...this.#options.facts,
      startedAt: this.#startedAt.toISOString(),
      durationMs: performance.now() - this.#start,
      runErrors: runErrorsOf(modules, unhandledErrors),
      ...(stopped !== undefined ? { stopped } : {}),
    }
    const run = buildRunResult(records, facts, this.#options.redactor)
    this.result = run
    const { written, errors } = await writeReports(
      run,
      this.#options.formats,
      resolve(this.#options.outputDir),
      this.#options.redactor,
    )
    this.writeErrors = errors
    for (const error of errors) this.#out.write(`Could not write ${error.path}: ${error.message}\n`)
    // The verdict is always printed: in the console's report, or alone when the report is not asked for.
    const shown = { color: this.#color, written: Object.values(written), verbose: this.#options.verbose ?? false }
    this.#out.write(this.#options.formats.includes('console') ? toConsole(run, shown) : verdictOnly(run, shown))
    this.#options.onResult?.(run)
  }

  // Without a terminal: a scenario that broke at once, with its error; each area once all its scenarios are done.
  #lineFor(testCase: TestCase, scenario: ScenarioProgress): void {
    const options = { color: this.#color }
    const strict = this.#options.facts.strict
    if (!scenario.record && scenario.state === 'failed') this.#out.write(progressLine(scenario, strict, options))
    const name = areaOf(testCase)
    const area = this.#areas.get(name) ?? { total: 1, done: [] }
    area.done.push(scenario)
    this.#areas.set(name, area)
    if (area.done.length === area.total && ran(area.done)) {
      // A check of one operation fails in the area of that operation; a cross-cutting one wherever it was found.
      const owns = (check: { operationId: string }) => {
        const home = check.operationId === 'all' ? undefined : this.#homeOf(check.operationId)
        return home === undefined || home === name
      }
      this.#out.write(areaLine(name, area.done, { elapsedMs: performance.now() - this.#start, strict, owns }, options))
    }
  }

  #drawLive(): void {
    const { scenario, requests, judged, failing } = this.#live
    const waiting =
      this.#live.waiting && this.#live.waiting.until > performance.now() ? this.#live.waiting.text : undefined
    // Scenarios run side by side: the line names the one that started last.
    const line = liveLine(
      {
        scenario,
        requests,
        judged: judged.size,
        total: this.#options.facts.catalogue.length,
        failing: failing.size,
        elapsedS: Math.round((performance.now() - this.#start) / 1000),
        ...(waiting ? { waiting } : {}),
      },
      this.#columns,
    )
    this.#drawn = true
    this.#out.write(`${CLEAR_LINE}${line}`)
  }

  #stopLive(): void {
    if (this.#live.timer !== undefined) clearInterval(this.#live.timer)
    this.#live.timer = undefined
    if (this.#drawn) this.#out.write(CLEAR_LINE)
    this.#drawn = false
  }
}
