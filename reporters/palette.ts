/** The console's options and colours, shared by the console report and the progress lines. */
import type { Standing } from '../model/index.js'

/** Options of the console writer. */
export interface ConsoleOptions {
  /** ANSI colours; off for NO_COLOR and for output that is not a terminal. */
  color: boolean
  /** Report files written before the console report, listed in its run facts. */
  written?: readonly string[]
  /** Bodies of exchanges whole (`--verbose`), rather than cut to a few lines with their size. */
  verbose?: boolean
}

/** Paints text in one colour (or leaves it plain). */
export type Paint = (text: string) => string
/** The colours the console uses. */
export interface Palette {
  red: Paint
  green: Paint
  yellow: Paint
  dim: Paint
  bold: Paint
}

const ansi =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`
/** Leaves text as it is (no colour). */
export const plain: Paint = (text) => text

/** The console's colours: ANSI when `color`, else plain text. */
export function palette(color: boolean): Palette {
  if (!color) return { red: plain, green: plain, yellow: plain, dim: plain, bold: plain }
  return { red: ansi(31, 39), green: ansi(32, 39), yellow: ansi(33, 39), dim: ansi(2, 22), bold: ansi(1, 22) }
}

/** The mark of each standing. */
const MARK: Record<Standing, string> = {
  passed: '✓',
  failed: '✗',
  warned: '!',
  skipped: '-',
  unjudged: '?',
  errors: '✗',
}

/** A standing's mark, in its colour. */
export function markOf(s: Standing, p: Palette): string {
  if (s === 'passed') return p.green(MARK[s])
  if (s === 'failed' || s === 'errors') return p.red(MARK[s])
  if (s === 'warned' || s === 'unjudged') return p.yellow(MARK[s])
  return p.dim(MARK[s])
}
