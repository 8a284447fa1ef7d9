import { describe, expect, it } from 'vitest'
import { runProcessSync } from '../../test-support/run-command.js'
import { authorizationFor, curlLine, redactedAuthorization, shellQuote, type Credential } from './curl.js'

const KEY = 'sk-live-0123456789'

/** The words bash makes of a curl line, with the key in the environment: what curl would receive. */
function argvOf(line: string): string[] {
  const script = `set -- ${line.replace(/^curl /, '')}; for a in "$@"; do printf '%s\\0' "$a"; done`
  const done = runProcessSync('bash', ['--noprofile', '--norc', '-c', script], { env: { PETSTORE_API_KEY: KEY } })
  if (done.code !== 0) throw new Error(`bash: ${done.stderr}`)
  return done.stdout.split('\0').slice(0, -1)
}

// The curl lines are POSIX shell; the two tests that hand them to a shell need bash (Windows has it with Git).
const hasBash = runProcessSync('bash', ['--noprofile', '--norc', '-c', 'true']).code === 0

describe('curl lines', () => {
  it.runIf(hasBash)('quote any body so the shell hands it to curl unchanged', () => {
    const body = `{"name":"O'Brien \\"Bo\\" $HOME \`id\` \\n 🐈‍⬛","categoryId":9223372036854775807}`
    const argv = argvOf(
      curlLine({
        method: 'POST',
        url: 'http://127.0.0.1:1/v1/pets?a=1&b=2',
        credential: 'key',
        contentType: 'application/json',
        body,
      }),
    )
    expect(argv).toEqual([
      '-sS',
      '-i',
      '-g',
      '-X',
      'POST',
      'http://127.0.0.1:1/v1/pets?a=1&b=2',
      '-H',
      `Authorization: Bearer ${KEY}`,
      '-H',
      'Content-Type: application/json',
      '--data-binary',
      body,
    ])
  })
  it.runIf(hasBash)('write a large body made of one repeated character compactly, and the shell rebuilds it', () => {
    const body = `{"name":"pcs-1-large-v-${'x'.repeat(64 * 1024)}","categoryId":"it's \\ $HOME"}`
    const line = curlLine({
      method: 'POST',
      url: 'http://h/v1/pets',
      credential: 'key',
      contentType: 'application/json',
      body,
    })
    expect(line.length).toBeLessThan(400)
    expect(argvOf(line).at(-1)).toBe(body)
    const short = '{"name":"' + 'x'.repeat(100) + '"}'
    expect(curlLine({ method: 'POST', url: 'http://h/v1/pets', credential: 'key', body: short })).toContain(short)
  })
  it.runIf(hasBash)('rebuild every credential from $PETSTORE_API_KEY without writing the key', () => {
    for (const credential of [
      'key',
      'none',
      'empty',
      'wrong',
      'basic',
      'extended',
      'truncated',
      'lowercase-scheme',
      'case-changed',
    ] as Credential[]) {
      const line = curlLine({ method: 'GET', url: 'http://h/v1/pets', credential })
      expect(line).not.toContain(KEY)
      const sent = authorizationFor(credential, KEY)
      const header = argvOf(line).find((w) => w.startsWith('Authorization:'))
      expect(header).toBe(sent === undefined ? undefined : `Authorization: ${sent}`)
    }
  })
  it('redact every token but keep the scheme', () => {
    expect(redactedAuthorization('key')).toBe('Bearer [REDACTED]')
    expect(redactedAuthorization('basic')).toBe('Basic [REDACTED]')
    expect(redactedAuthorization('none')).toBeUndefined()
    expect(shellQuote("it's")).toBe(`'it'\\''s'`)
  })
})
