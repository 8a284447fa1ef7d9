/** The one flag style of both commands: `node:util` `parseArgs`, its errors turned into one-line `UsageError`s. */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError } from './usage-error.js'

type Options = NonNullable<ParseArgsConfig['options']>

/** Parses `argv` strictly with `options`; a bad flag is a `UsageError`. */
export function parseFlags<const O extends Options>(
  argv: readonly string[],
  options: O,
): ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: true }>>['values'] {
  try {
    const { values, positionals } = parseArgs({
      args: joinNegatives(argv, options),
      options,
      strict: true,
      allowPositionals: true,
    })
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`)
    return values
  } catch (error) {
    if (error instanceof UsageError) throw error
    // parseArgs' first line is one clear sentence; its advice on positionals is not for these commands, which take none: "Unknown option '--x'." is enough.
    const first = (error as Error).message.split('\n')[0]!
    throw new UsageError(first.replace(/\. To specify a positional argument .*$/, '.'))
  }
}

// `--seed -154020823` reads as two flags to parseArgs; a negative number after a valued flag is its value.
function joinNegatives(argv: readonly string[], options: Options): string[] {
  const args: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!.startsWith('--') ? argv[i]!.slice(2) : undefined
    const next = argv[i + 1]
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-\d+$/.test(next)) {
      args.push(`--${name}=${next}`)
      i++
    } else args.push(argv[i]!)
  }
  return args
}

/** An integer flag within bounds, or undefined when not given. */
export function integerFlag(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`${name} must be an integer, got "${text}"`)
  const value = Number(text)
  if (value < min || value > max) throw new UsageError(`${name} must be from ${min} to ${max}, got ${text}`)
  return value
}
