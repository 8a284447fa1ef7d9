/** What the stub command prints when it listens: where, with which keys, what is on, and three lines to try. */
import { ADMIN_PREFIX, likenessLines, withoutSecrets, type Chaos } from '../../stub/index.js'
import type { StubConfig } from './config.js'

/** Keys printed one by one up to this many; beyond, only how many and where they came from. */
const KEYS_SHOWN = 5

/**
 * The startup message, one line per fact; `url` ends in `/v1`, `pets` is what the store holds, `dataFile` the file kept
 * for `--data` (its links followed).
 */
export function banner(
  config: StubConfig,
  url: string,
  pets: number,
  petsFrom: string,
  dataFile = config.data,
): string {
  // Keys given in the environment are kept there to stay out of command lines and logs (a CI job's secrets): the
  // banner, which such a job logs, names them by count only, and its curl lines show where a key goes.
  const secret = config.keySource === 'PETSTORE_API_KEYS'
  const key = secret ? '<your key>' : config.apiKeys[0]!
  const origin = url.slice(0, url.lastIndexOf('/'))
  const count = config.apiKeys.length
  const keys = secret
    ? `API ${count === 1 ? 'key' : `keys: ${count}`} from PETSTORE_API_KEYS (not shown); send Authorization: Bearer <your key>`
    : count === 1
      ? `API key: ${key} (${config.keySource}); send Authorization: Bearer ${key}`
      : count <= KEYS_SHOWN
        ? `API keys (${count}, from ${config.keySource}): ${config.apiKeys.join(', ')}`
        : `API keys: ${count} from ${config.keySource} (not shown); the first is ${key}`
  const lines = [
    `Pet Store stub listening on ${url} (${pets} ${pets === 1 ? 'pet' : 'pets'} from ${petsFrom})`,
    keys,
    `Admin API: ${origin}${ADMIN_PREFIX}/ (${config.adminKey === undefined ? 'no key needed on loopback' : 'send Authorization: Bearer <admin key>'}); journal ${config.journal === 0 ? 'off' : `of the last ${config.journal} requests`}`,
  ]
  for (const reading of config.spec?.readings ?? []) lines.push(`Spec: ${reading.text}`)
  const chaos = describeChaos(config.chaos)
  if (chaos) lines.push(`Chaos: ${chaos}`)
  if (config.data) {
    const linked = dataFile !== config.data ? `, a link to ${dataFile}` : ''
    lines.push(
      `Data file: ${config.data}${linked} (every change on disk before its answer; changes logged in ${dataFile}.log)`,
    )
  }
  if (config.like) {
    // A report is a file anyone may have written: what it says is shown without the keys this message never shows.
    const hidden = [...(secret ? config.apiKeys : []), ...(config.adminKey === undefined ? [] : [config.adminKey])]
    for (const line of likenessLines(config.like)) lines.push(withoutSecrets(line, hidden))
    lines.push(`  (the same at ${origin}${ADMIN_PREFIX}/like)`)
  }
  // Double quotes only: these lines work as printed in sh, cmd.exe and PowerShell alike.
  const auth = `-H "Authorization: Bearer ${key}"`
  lines.push(
    'Try:',
    `  curl ${auth} "${url}/pets?limit=3"`,
    `  curl ${auth} -H "Content-Type: application/json" -d "{\\"name\\":\\"Rex\\",\\"categoryId\\":1}" ${url}/pets`,
    `  curl ${auth} -H "Prefer: code=404" ${url}/pets/1`,
  )
  return lines.join('\n') + '\n'
}

function describeChaos(chaos: Chaos | undefined): string | undefined {
  if (!chaos) return undefined
  const parts: string[] = []
  if (chaos.latencyMs)
    parts.push(
      `latency ${chaos.latencyMs[0] === chaos.latencyMs[1] ? chaos.latencyMs[0] : chaos.latencyMs.join('-')} ms`,
    )
  if (chaos.failRate)
    parts.push(`${+(chaos.failRate * 100).toFixed(2)}% of requests answered ${chaos.failStatus ?? 503}`)
  return parts.join(', ')
}
