/**
 * The fenced code blocks of the README and docs/, with the marker each carries on the line before it:
 * `<!-- run: RUNNER ... -->` names how the snippet tests run the block, `<!-- not run: why -->` says why no test
 * can. tests/snippets.test.ts checks that every shell and TypeScript block has one of the two (and runs the cheap
 * checks); tests/snippets.e2e.test.ts runs every `run:` block in a scratch project that installs the packed kit.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/**
 * How a `run:` block is run, in a scratch project that installed the packed kit:
 * - `project-sh`: each line through bash, from the project; each must exit 0, or the code its comment names
 *   (`(exit 28)`);
 * - `project-sh-stub`: the same while the installed stub runs (default key) on a free port, which replaces 4010;
 * - `project-ts`: type-checked (strict, nodenext) and run with Node as an ES module;
 * - `project-tsc`: type-checked only (the marker says why it cannot run);
 * - `project-msw`: a vitest test file of the project, with MSW installed, plus a test that sends a request.
 */
export const RUNNERS = ['project-sh', 'project-sh-stub', 'project-ts', 'project-tsc', 'project-msw'] as const
export type Runner = (typeof RUNNERS)[number]

/** Languages whose blocks must be run or say why not. */
export const CODE_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console', 'ts', 'typescript', 'js', 'javascript', 'mjs'])

export interface Snippet {
  /** `README.md` or `docs/x.md`, and the fence's 1-based line. */
  file: string
  line: number
  language: string
  code: string
  /** The marker before the block: a runner, or why it is not run, or nothing. */
  marker: { run: string; note: string } | { notRun: string } | undefined
}

/** The Markdown files whose snippets a user pastes: the README and every page of docs/. */
export function snippetFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
  return ['README.md', ...docs.map((name) => `docs/${name}`)]
}

/** Every fenced block of `file` (a path from the project root). */
export function snippetsOf(file: string): Snippet[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
  const found: Snippet[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!)
    if (!open) continue
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line))
    if (end === -1) throw new Error(`${file}:${i + 1}: a code block that never closes`)
    let before = i - 1
    while (before >= 0 && lines[before]!.trim() === '') before--
    const comment = before >= 0 ? /^<!--\s*(not run|run):\s*(.*?)\s*-->$/.exec(lines[before]!.trim()) : null
    let marker: Snippet['marker']
    if (comment?.[1] === 'not run') marker = { notRun: comment[2]! }
    else if (comment) {
      const [run = '', ...rest] = comment[2]!.split(/\s+/)
      marker = { run, note: rest.join(' ') }
    }
    found.push({ file, line: i + 1, language: open[1]!, code: lines.slice(i + 1, end).join('\n'), marker })
    i = end
  }
  return found
}

/** Every snippet of the README and docs/. */
export function allSnippets(): Snippet[] {
  return snippetFiles().flatMap(snippetsOf)
}
