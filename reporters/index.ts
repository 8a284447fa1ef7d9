/**
 * The conformance reporter: vitest hands it the finished test cases, it builds the one `RunResult` of the
 * run and writes it as console text, JSON, HTML and Markdown. Writers only read the model; none re-judges.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import { spec } from '../spec/index.js'
import type { RunResult } from '../suites/model.js'
import { buildRunResult, compareText, type CaseResult, type RunOptions } from './build-run-result.js'
import { progressLine, runHeader, toConsole } from './console.js'
import { toHtml } from './html.js'
import { toJson } from './json.js'
import { toMarkdown } from './markdown.js'

export { buildRunResult, standing, breaksConformance } from './build-run-result.js'
export type { CaseResult, CaseState, RunFacts, RunOptions, Standing } from './build-run-result.js'
export { progressLine, runHeader, toConsole, type ConsoleOptions } from './console.js'
export { matrixOf, type CellOutcome, type Matrix, type MatrixCell, type MatrixRow } from './matrix.js'
export { scrubText, scrubHeaders, scrubExchange, scrubUrl, REDACTED } from './redact.js'
export { toHtml, toJson, toMarkdown }

/** A writer turns the run result into the text of one report format. Pure and byte-stable. */
export type Writer = (run: RunResult) => string

/** The file formats, each by the name `--reporter` uses. */
export const WRITERS = { json: toJson, html: toHtml, markdown: toMarkdown } satisfies Record<string, Writer>

/** File name of each file format inside the output directory. */
export const REPORT_FILES: Record<keyof typeof WRITERS, string> = { json: 'report.json', html: 'report.html', markdown: 'report.md' }

/** Every format the command may select; `junit` is vitest's own reporter, configured beside this one. */
export const FORMATS = ['console', 'junit', ...(Object.keys(WRITERS) as (keyof typeof WRITERS)[])] as const

/** A report format's name. */
export type Format = (typeof FORMATS)[number]

/** What the command passes to the reporter. */
export interface ReporterOptions {
  formats: readonly string[]
  /** Where report files go; created when missing. */
  outputDir: string
  run: RunOptions
  /** ANSI colours on the console; by default on for a terminal unless NO_COLOR is set. */
  color?: boolean
  /** Where console text goes; standard output by default. */
  out?: { write(text: string): unknown }
}

/** Where the reporter writes each file, by format. */
export type WrittenReports = Partial<Record<keyof typeof WRITERS, string>>

/** Writes the selected file formats of a run into `outputDir` and returns their paths. */
export async function writeReports(run: RunResult, formats: readonly string[], outputDir: string): Promise<WrittenReports> {
  const selected = (Object.keys(WRITERS) as (keyof typeof WRITERS)[]).filter((f) => formats.includes(f))
  const written: WrittenReports = {}
  if (!selected.length) return written
  await mkdir(outputDir, { recursive: true })
  for (const format of selected) {
    const path = join(outputDir, REPORT_FILES[format])
    await writeFile(path, WRITERS[format](run), 'utf8')
    written[format] = path
  }
  return written
}

/** A finished vitest test case as plain data. */
export function caseResultOf(testCase: TestCase): CaseResult {
  const result = testCase.result()
  const record = testCase.meta().conformance
  return {
    module: testCase.module.relativeModuleId,
    name: testCase.name,
    fullName: testCase.fullName,
    state: result.state,
    errors: (result.errors ?? []).map(errorText),
    ...(record ? { record } : {}),
  }
}

function errorText(error: { name?: string; message?: string }): string {
  const message = stripVTControlCharacters(error.message ?? '')
  return error.name && error.name !== 'Error' && error.name !== 'AssertionError' ? `${error.name}: ${message}` : message
}

/** Errors outside any test case: files that failed to load, failing hooks, unhandled errors. */
function runErrorsOf(testModules: readonly TestModule[], unhandled: readonly SerializedError[]): string[] {
  const errors: string[] = []
  for (const testModule of testModules) {
    const where = testModule.relativeModuleId
    for (const error of testModule.errors()) errors.push(`${where}: ${errorText(error)}`)
    for (const suite of testModule.children.allSuites()) {
      for (const error of suite.errors()) errors.push(`${where} > ${suite.fullName}: ${errorText(error)}`)
    }
  }
  for (const error of unhandled) errors.push(`unhandled: ${errorText(error)}`)
  return errors
}

function colorByDefault(): boolean {
  const env = process.env // read once, here: the reporter is the top of its own configuration
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true
  return process.stdout.isTTY === true
}

/** The vitest reporter of the conformance suite. */
export default class ConformanceReporter implements Reporter {
  readonly #options: ReporterOptions
  readonly #color: boolean
  readonly #out: { write(text: string): unknown }
  readonly #console: boolean
  #startedAt = new Date()
  #start = performance.now()

  constructor(options: ReporterOptions) {
    const unknown = (options.formats ?? []).filter((f) => !(FORMATS as readonly string[]).includes(f))
    if (unknown.length) throw new Error(`unknown report format ${unknown.join(', ')}; known: ${FORMATS.join(', ')}`)
    this.#options = options
    this.#color = options.color ?? colorByDefault()
    this.#out = options.out ?? process.stdout
    this.#console = options.formats.includes('console')
  }

  onInit(_vitest: Vitest): void {
    this.#startedAt = new Date()
    this.#start = performance.now()
  }

  onTestRunStart(): void {
    if (this.#console) this.#out.write(runHeader(this.#options.run, { color: this.#color }) + '\n')
  }

  onTestCaseResult(testCase: TestCase): void {
    if (this.#console) this.#out.write(progressLine(caseResultOf(testCase), this.#options.run.strict, { color: this.#color }))
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): Promise<void> {
    const modules = [...testModules].sort((a, b) => compareText(a.relativeModuleId, b.relativeModuleId))
    const cases = modules.flatMap((m) => [...m.children.allTests()].map(caseResultOf))
    const run = buildRunResult(spec(), cases, {
      options: this.#options.run,
      startedAt: this.#startedAt.toISOString(),
      durationMs: performance.now() - this.#start,
      runErrors: runErrorsOf(modules, unhandledErrors),
      interrupted: reason === 'interrupted',
    })
    if (this.#console) this.#out.write(toConsole(run, { color: this.#color }))
    const written = await writeReports(run, this.#options.formats, resolve(this.#options.outputDir))
    const paths = Object.values(written)
    if (paths.length) this.#out.write(`\nReports written:\n${paths.map((p) => `  ${p}`).join('\n')}\n`)
  }
}
