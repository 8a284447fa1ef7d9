import { describe, expect, it } from 'vitest'
import { credentialsShown, LOG_BACKLOG_BYTES, logLine, streamLog, withoutSecrets } from './log.js'

/** A stream that holds what it is given until `drain()`, as a pipe nobody reads does. */
function heldStream() {
  const held: string[] = []
  const written: string[] = []
  return {
    held,
    written,
    get writableLength() {
      return held.reduce((n, text) => n + text.length, 0)
    },
    write(text: string) {
      held.push(text)
    },
    drain() {
      written.push(...held.splice(0))
    },
  }
}

describe('streamLog', () => {
  it('writes every text while the stream keeps up', () => {
    const stream = heldStream()
    const write = streamLog(stream)
    for (let i = 0; i < 1000; i++) {
      write(`GET /v1/pets/${i} 200 0.1ms\n`)
      stream.drain()
    }
    expect(stream.written).toHaveLength(1000)
    expect(stream.written[999]).toBe('GET /v1/pets/999 200 0.1ms\n')
  })

  it('drops what comes while the stream holds more than its bound, and says how many lines once it takes text again', () => {
    const stream = heldStream()
    const write = streamLog(stream)
    const batch = 'GET /v1/pets 200 0.1ms\n'.repeat(1000) // 23,000 bytes, 1,000 lines
    // Written while what is held stays within the bound: up to it, and the one batch that passes it.
    const kept = Math.floor(LOG_BACKLOG_BYTES / batch.length) + 1
    for (let i = 0; i < kept + 5; i++) write(batch)
    expect(stream.writableLength).toBe(kept * batch.length) // the 5 batches after were dropped, not held
    stream.drain()
    write('POST /v1/pets 201 0.2ms\n')
    expect(stream.held).toEqual([
      '- - 5000 log lines dropped: the log was not being read\n',
      'POST /v1/pets 201 0.2ms\n',
    ])
    stream.drain()
    write('GET /v1/pets/1 200 0.1ms\n')
    expect(stream.held).toEqual(['GET /v1/pets/1 200 0.1ms\n'])
  })
})

describe('logLine', () => {
  it('shows a key sent in the target as [redacted], and a target with control characters quoted', () => {
    const answer = { status: 401, headers: [], body: '', code: 'missing_credentials' }
    expect(logLine({ method: 'GET', url: '/v1/pets?api_key=k-1&k=k-1' }, answer, 1.25, ['k-1', 'adm'])).toBe(
      'GET /v1/pets?api_key=[redacted]&k=[redacted] 401 missing_credentials 1.3ms',
    )
    expect(logLine({ method: 'GET', url: '/v1/pets/k-1\n' }, undefined, 0, ['k-1'])).toBe(
      'GET "/v1/pets/[redacted]\\n" aborted 0.0ms',
    )
  })

  it('shows a key percent-encoded in the target, or one that begins another, as [redacted] whole', () => {
    const answer = { status: 401, headers: [], body: '', code: 'missing_credentials' }
    const keys = ['k+y/z=', 'dev', 'dev-secret-key-42', 'ADMINsecret9']
    expect(logLine({ method: 'GET', url: '/v1/pets?api_key=k%2By%2Fz%3D' }, answer, 1, keys)).toBe(
      'GET /v1/pets?api_key=[redacted] 401 missing_credentials 1.0ms',
    )
    expect(logLine({ method: 'GET', url: '/v1/pets?api_key=dev-secret-key-42' }, answer, 1, keys)).toBe(
      'GET /v1/pets?api_key=[redacted] 401 missing_credentials 1.0ms',
    )
    // The header names a preflight asked for are the client's text too, lower-cased.
    const preflight = { status: 204, headers: [], body: '', allowedHeaders: 'adminsecret9, prefer' }
    expect(logLine({ method: 'OPTIONS', url: '/v1/pets' }, preflight, 1, keys)).toBe(
      'OPTIONS /v1/pets 204 allow-headers="[redacted], prefer" 1.0ms',
    )
  })
})

/** A tester's keys: one with characters a URL encodes, one the start of another, the admin key. */
const KEYS = ['k+y/z=', 'dev', 'dev-secret-key-42', 'ADMINsecret9']

describe('withoutSecrets', () => {
  it('finds a key however its characters are percent-encoded, in either case of hex digit', () => {
    for (const target of [
      '/v1/pets?api_key=k%2By%2Fz%3D', // what URLSearchParams and axios send for k+y/z=
      '/v1/pets?api_key=k%2by%2fz%3d',
      '/v1/pets?api_key=%6B+y/z%3D',
      '/v1/pets?api_key=d%65v-secret-key-42',
      '/v1/pets?api_key=%64%65%76%2D%73%65%63%72%65%74%2D%6B%65%79%2D%34%32',
      '/v1/pets?api_key=ADMIN%73ecret9',
    ])
      expect(withoutSecrets(target, KEYS)).toBe('/v1/pets?api_key=[redacted]')
    expect(withoutSecrets('/v1/pets/cl%C3%A9?k=cl%c3%A9&j=clé', ['clé'])).toBe(
      '/v1/pets/[redacted]?k=[redacted]&j=[redacted]',
    )
    // Other escapes, and text that only looks like one, are left as they are.
    expect(withoutSecrets('/v1/pets?name=Rex%20II&x=%zz%4', KEYS)).toBe('/v1/pets?name=Rex%20II&x=%zz%4')
  })

  it("finds a key written with JSON's escapes in a body, mixed with plain characters or percent-encoding", () => {
    for (const body of [
      '{"api_key":"\\u0064ev-secret-key-42"}',
      '{"api_key":"\\u0064\\u0065\\u0076-secret-key-42"}',
      '{"api_key":"\\u0041DMIN\\u0073ecret9"}',
      '{"api_key":"k+y\\/z="}', // JSON may escape a slash
      '{"api_key":"k+y\\u002fz%3D"}',
      '{"api_key":"\\dev-secret-\\key-42"}', // as a quoted-pair in a header's quoted string reads
    ])
      expect(withoutSecrets(body, KEYS)).toBe('{"api_key":"[redacted]"}')
    expect(withoutSecrets('{"a":"\\"q\\\\","b":"cl\\u00e9"}', ['"q\\', 'clé'])).toBe(
      '{"a":"[redacted]","b":"[redacted]"}',
    )
    // Other escapes, and text that only looks like one, are left as they are; a cut keeps the escaped key whole.
    expect(withoutSecrets('{"name":"Rex\\n\\u00e9\\uZZ","x":"\\"}', KEYS)).toBe(
      '{"name":"Rex\\n\\u00e9\\uZZ","x":"\\"}',
    )
    expect(withoutSecrets('{"k":"\\u0064\\u0065\\u0076-secret-key-42"}', KEYS, 8)).toBe('{"k":"[redacted]')
  })

  it('finds a key in a body sent in UTF-16, little- or big-endian, with or without a BOM', () => {
    for (const encoding of ['utf16le', 'utf16be'] as const) {
      const bytes = Buffer.from('\ufeff{"name":"dev-secret-key-42"}', 'utf16le')
      if (encoding === 'utf16be') bytes.swap16()
      const text = bytes.toString('latin1') // as the journal keeps a body it cannot read as UTF-8
      const shown = withoutSecrets(text, KEYS)
      expect(shown).toContain('[redacted]')
      expect(shown.replaceAll('\u0000', '')).not.toContain('secret')
    }
  })

  it('finds a key with `%XX` in it written with backslash escapes, its `%XX` left as it is', () => {
    const keys = ['a%2Fb+c.*', 'Z%41z-adm']
    for (const text of [
      '{"extra":"\\u0061%2Fb+c.*"}',
      '{"name":"a%2Fb+c\\u002e*"}',
      'return="a%2Fb+c\\.*"',
      'wait="Z%41z\\-adm"',
      '{"x":"a\\u00252Fb+c.*"}', // its `%` escaped too
      '/v1/pets?k=a%252Fb%2Bc.*', // percent-encoded whole, as a query carries it
    ])
      expect(withoutSecrets(text, keys), text).not.toMatch(/a%2Fb|Z%41z|\\u0061%2F|\\u005A%41/)
    expect(withoutSecrets('{"extra":"\\u0061%2Fb+c.*"}', keys)).toBe('{"extra":"[redacted]"}')
  })

  it('redacts a key that begins another whole, and each run of keys once', () => {
    expect(withoutSecrets('/v1/pets?api_key=dev-secret-key-42', KEYS)).toBe('/v1/pets?api_key=[redacted]')
    expect(withoutSecrets('/v1/pets?a=dev&b=dev-secret-key-42dev&c=d%65v-secret-key-42', KEYS)).toBe(
      '/v1/pets?a=[redacted]&b=[redacted]&c=[redacted]',
    )
  })

  it('with `keep`, shows that much of the text and a key the cut runs through redacted whole', () => {
    expect(withoutSecrets('/v1/pets?k=dev-secret-key-42&more', KEYS, 14)).toBe('/v1/pets?k=[redacted]')
    expect(withoutSecrets('/v1/pets?k=d%65v-secret-key-42', KEYS, 14)).toBe('/v1/pets?k=[redacted]')
    expect(withoutSecrets('/v1/pets?k=1&more', KEYS, 12)).toBe('/v1/pets?k=1')
  })
})

describe('credentialsShown', () => {
  it("shows a known scheme, never credentials, a key in the scheme's place, nor a bare token", () => {
    expect(credentialsShown('Bearer dev-secret-key-42', KEYS)).toBe('Bearer [redacted]')
    expect(credentialsShown('bearer x', KEYS)).toBe('bearer [redacted]')
    expect(credentialsShown(['Basic a', 'Digest b'], KEYS)).toBe('Basic [redacted], Digest [redacted]')
    expect(credentialsShown('dev-secret-key-42 Bearer', KEYS)).toBe('[redacted]')
    expect(credentialsShown('petstore-dev-key Bearer', ['petstore-dev-key'])).toBe('[redacted]')
    expect(credentialsShown('sk_live_0123 x', KEYS)).toBe('[redacted]') // no scheme, though no key the stub knows
    expect(credentialsShown('dev-secret-key-42', KEYS)).toBe('[redacted]')
    expect(credentialsShown('Bearer', KEYS, '[REDACTED]')).toBe('[REDACTED]')
    expect(credentialsShown('Bearer x', ['Bearer'])).toBe('[redacted]')
  })
})
