/** The stub command's flags and environment, resolved once into a frozen config. */
import { DEFAULT_API_KEY, DEFAULT_MAX_BODY, DEFAULT_SEED_PATH, FAULTS, isFaultName, type FaultName } from '../../stub/index.js'
import { integerFlag, parseFlags } from '../flags.js'
import { UsageError } from '../usage-error.js'

/** The port the command listens on by default (the spec's local server). */
export const DEFAULT_PORT = 4010

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
  .map(([name, fault]) => `  ${name.padEnd(23)} ${fault.description}`)
  .join('\n')}
`

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  seed: { type: 'string' },
  'no-seed': { type: 'boolean' },
  'max-body': { type: 'string' },
  quiet: { type: 'boolean' },
  fault: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

function checkKey(key: string, source: string): string {
  // A key travels as a Bearer token, so it must be visible ASCII with no spaces.
  if (!/^[\x21-\x7e]+$/.test(key)) throw new UsageError(`${source}: an API key must be visible ASCII characters with no spaces`)
  return key
}

/** Flags over environment (flags win), every default filled in. Throws UsageError on bad input. */
export function resolveConfig(argv: readonly string[], env: Record<string, string | undefined>): Readonly<StubConfig> {
  const flags = parseFlags(argv, OPTIONS)
  const port = integerFlag('--port', flags.port, 0, 65535) ?? DEFAULT_PORT
  const host = flags.host ?? '127.0.0.1'
  if (host === '') throw new UsageError('--host must not be empty')
  const flagKeys = flags['api-key'] ?? []
  const envKeys = (env.PETSTORE_API_KEYS ?? '').split(',').map((key) => key.trim()).filter((key) => key !== '')
  const apiKeys =
    flagKeys.length > 0 ? flagKeys.map((key) => checkKey(key, '--api-key'))
    : envKeys.length > 0 ? envKeys.map((key) => checkKey(key, 'PETSTORE_API_KEYS'))
    : [DEFAULT_API_KEY]
  if (flags.seed !== undefined && flags['no-seed']) throw new UsageError('--seed and --no-seed exclude each other')
  if (flags.seed === '') throw new UsageError('--seed needs a file name')
  const maxBody = integerFlag('--max-body', flags['max-body'], 1, 2 ** 30) ?? DEFAULT_MAX_BODY
  const fault = flags.fault
  if (fault !== undefined && !isFaultName(fault)) throw new UsageError(`--fault must name one of the faults listed by --help, got ${JSON.stringify(fault)}`)
  return Object.freeze({
    help: flags.help === true,
    port,
    host,
    apiKeys,
    seed: flags['no-seed'] ? false : (flags.seed ?? DEFAULT_SEED_PATH),
    maxBody,
    quiet: flags.quiet === true,
    fault,
  })
}
