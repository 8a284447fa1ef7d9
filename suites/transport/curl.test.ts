import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runProcessSync } from '../../test-support/run-command.js'
import { authorizationFor, curlLine, longRun, redactedAuthorization, shellQuote, type Credential } from './curl.js'

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
  it('find the longest run of one printable character, the first of equals, once it is 1024 long', () => {
    // Every run, one character at a time: what the probing search must agree with.
    const reference = (text: string) => {
      let best: { start: number; length: number } | undefined
      for (let start = 0, i = 1; i <= text.length; i++) {
        if (i < text.length && text[i] === text[start]) continue
        const code = text.charCodeAt(start)
        if (i - start >= 1024 && i - start > (best?.length ?? 0) && code >= 0x20 && code <= 0x7e)
          best = { start, length: i - start }
        start = i
      }
      return best
    }
    const segment = fc.tuple(fc.constantFrom('x', 'y', ' ', '\n', '\u00e9'), fc.integer({ min: 1, max: 9000 }))
    const text = fc.array(segment, { maxLength: 12 }).map((parts) => parts.map(([c, n]) => c.repeat(n)).join(''))
    fc.assert(
      fc.property(text, (t) => {
        expect(longRun(t)).toEqual(reference(t))
      }),
      { numRuns: 300 },
    )
    for (const [t, expected] of [
      ['x'.repeat(1023), undefined],
      ['x'.repeat(1024), { start: 0, length: 1024 }],
      ['a' + 'x'.repeat(1024) + 'y'.repeat(1024), { start: 1, length: 1024 }],
      ['\n'.repeat(5000), undefined],
    ] as const)
      expect(longRun(t)).toEqual(expected)
    // Runs ending on either side of the probes and of the 4096-character strides they are followed by.
    for (const before of [0, 1, 1023, 1024])
      for (const n of [1024, 4095, 4096, 4097, 5119, 5120, 5121, 8192, 8193, 9215, 9216, 9217]) {
        const t = 'a'.repeat(before) + 'x'.repeat(n) + 'y'
        expect([before, n, longRun(t)]).toEqual([before, n, reference(t)])
      }
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
