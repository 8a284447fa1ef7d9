/** The stub command's flags and environment, resolved once into a frozen config. */
import { DEFAULT_MAX_BODY } from './app.js'
import { FAULTS, isFaultName, type FaultName } from './faults.js'
import { DEFAULT_SEED_PATH } from './seed.js'

/** The key accepted when none is configured. */
export const DEFAULT_API_KEY = 'petstore-dev-key'

/** The port the command listens on by default (the spec's local server). */
export const DEFAULT_PORT = 4010

/** Bad flags: the command prints the message on one line and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** Everything the command needs, every default filled in. */
export interface StubConfig {
  help: boolean
  port: number
  host: string
  apiKeys: string[]
  /** A seed file, or `false` for none. */
  seed: string | false
  maxBody: number
  quiet: boolean
  fault?: FaultName
}

/** The `--help` text. */
export const USAGE = `Usage: petstore-stub [options]

Serves the Pet Store interface (listPets, createPet, getPet) in memory under /v1, as documented.

Options:
  --port N          TCP port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host ADDRESS    address to bind (default 127.0.0.1)
  --api-key KEY     an accepted API key; repeat for several. Default: PETSTORE_API_KEYS
                    (comma-separated), else ${DEFAULT_API_KEY}
  --seed FILE       JSON array of pets to start with (default fixtures/seed-pets.json)
  --no-seed         start with no pets
  --max-body BYTES  largest request body accepted (default ${DEFAULT_MAX_BODY})
  --quiet           no request log on stderr
  --fault NAME      inject one deliberate fault, to prove a test suite catches it
  -h, --help        show this help

Faults:
${Object.entries(FAULTS)
  .map(([name, what]) => `  ${name.padEnd(23)} ${what}`)
  .join('\n')}
`

const VALUED = new Set(['--port', '--host', '--api-key', '--seed', '--max-body', '--fault'])
const SWITCHES = new Set(['--no-seed', '--quiet', '--help', '-h'])

/** Splits the arguments into flags and values (`--flag value` or `--flag=value`); throws UsageError on anything else. */
export function parseFlags(argv: readonly string[]): Map<string, string[]> {
  const flags = new Map<string, string[]>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1
    const name = equals > 0 ? arg.slice(0, equals) : arg
    let value: string
    if (SWITCHES.has(name) && equals < 0) value = ''
    else if (VALUED.has(name)) {
      const next = equals > 0 ? arg.slice(equals + 1) : argv[++i]
      if (next === undefined) throw new UsageError(`${name} needs a value`)
      value = next
    } else if (name.startsWith('-')) throw new UsageError(`unknown option ${SWITCHES.has(name) ? arg : name}`)
    else throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`)
    flags.set(name, [...(flags.get(name) ?? []), value])
  }
  return flags
}

function single(flags: Map<string, string[]>, name: string): string | undefined {
  const values = flags.get(name)
  if (values && values.length > 1) throw new UsageError(`${name} given more than once`)
  return values?.[0]
}

function wholeNumber(text: string, name: string, min: number, max: number): number {
  const value = /^[0-9]+$/.test(text) ? Number(text) : NaN
  if (!(value >= min && value <= max)) throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`)
  return value
}

function checkKey(key: string, source: string): string {
  // A key travels as a Bearer token, so it must be visible ASCII with no spaces.
  if (!/^[\x21-\x7e]+$/.test(key)) throw new UsageError(`${source}: an API key must be visible ASCII characters with no spaces`)
  return key
}

/** Flags over environment (flags win), every default filled in. Throws UsageError on bad input. */
export function resolveConfig(argv: readonly string[], env: Record<string, string | undefined>): Readonly<StubConfig> {
  const flags = parseFlags(argv)
  const port = wholeNumber(single(flags, '--port') ?? String(DEFAULT_PORT), '--port', 0, 65535)
  const host = single(flags, '--host') ?? '127.0.0.1'
  if (host === '') throw new UsageError('--host must not be empty')
  const flagKeys = flags.get('--api-key') ?? []
  const envKeys = (env.PETSTORE_API_KEYS ?? '').split(',').map((key) => key.trim()).filter((key) => key !== '')
  const apiKeys =
    flagKeys.length > 0 ? flagKeys.map((key) => checkKey(key, '--api-key'))
    : envKeys.length > 0 ? envKeys.map((key) => checkKey(key, 'PETSTORE_API_KEYS'))
    : [DEFAULT_API_KEY]
  const seedFile = single(flags, '--seed')
  if (seedFile !== undefined && flags.has('--no-seed')) throw new UsageError('--seed and --no-seed exclude each other')
  if (seedFile === '') throw new UsageError('--seed needs a file name')
  const maxBodyText = single(flags, '--max-body')
  const maxBody = maxBodyText === undefined ? DEFAULT_MAX_BODY : wholeNumber(maxBodyText, '--max-body', 1, 2 ** 30)
  const faultName = single(flags, '--fault')
  if (faultName !== undefined && !isFaultName(faultName)) throw new UsageError(`--fault must name one of the faults listed by --help, got ${JSON.stringify(faultName)}`)
  return Object.freeze({
    help: flags.has('--help') || flags.has('-h'),
    port,
    host,
    apiKeys,
    seed: flags.has('--no-seed') ? false : (seedFile ?? DEFAULT_SEED_PATH),
    maxBody,
    quiet: flags.has('--quiet'),
    fault: faultName,
  })
}
