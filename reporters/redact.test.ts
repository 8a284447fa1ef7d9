import { describe, expect, it } from 'vitest'
import { REDACTED, scrubExchange, scrubHeaders, scrubText, scrubUrl } from './redact.js'

const KEY = 'sk-live-SECRET-4f9a1c'

describe('scrubText', () => {
  it('hides bearer credentials and raw Authorization values wherever they appear', () => {
    expect(scrubText(`echo: Bearer ${KEY}, again`)).toBe(`echo: Bearer ${REDACTED}, again`)
    expect(scrubText(`{"seen":"Bearer ${KEY}"}`)).toBe(`{"seen":"Bearer ${REDACTED}"}`)
    expect(scrubText(`Bearer ${KEY}`)).toBe(`Bearer ${REDACTED}`)
    expect(scrubText(`curl -H 'Authorization: Bearer ${KEY}' http://x`)).toBe(`curl -H 'Authorization: Bearer ${REDACTED}' http://x`)
    expect(scrubText(`{"authorization": "Token ${KEY}"}`)).not.toContain(KEY)
    expect(scrubText(`Authorization: ${KEY}`)).toBe(`Authorization: ${REDACTED}`)
  })

  it('leaves placeholders, auth parameters and prose alone', () => {
    const curl = `curl -H "Authorization: Bearer $PETSTORE_API_KEY" http://x`
    expect(scrubText(curl)).toBe(curl)
    expect(scrubText('WWW-Authenticate: Bearer realm="petstore"')).toBe('WWW-Authenticate: Bearer realm="petstore"')
    expect(scrubText('Bearer realm=petstore, error="invalid_token"')).toBe('Bearer realm=petstore, error="invalid_token"')
    expect(scrubText('send a Bearer token in the Authorization header')).toBe('send a Bearer token in the Authorization header')
    expect(scrubText(`Authorization: Bearer ${REDACTED}`)).toBe(`Authorization: Bearer ${REDACTED}`)
  })
})

describe('scrubHeaders and scrubExchange', () => {
  it('redacts Authorization whatever its case, keeping the scheme', () => {
    expect(scrubHeaders({ AUTHORIZATION: `Bearer ${KEY}`, authorization: KEY, accept: 'application/json' })).toEqual({
      AUTHORIZATION: `Bearer ${REDACTED}`,
      authorization: REDACTED,
      accept: 'application/json',
    })
    expect(scrubHeaders({ Authorization: `Basic ${KEY}` })).toEqual({ Authorization: `Basic ${REDACTED}` })
  })

  it('keeps values the client already hid, and a scheme sent without a token', () => {
    for (const value of ['Bearer [REDACTED]', 'bearer [REDACTED]', 'Bearer ', 'Bearer']) {
      expect(scrubHeaders({ authorization: value })).toEqual({ authorization: value })
    }
  })

  it('scrubs a key echoed back in a response header or body', () => {
    const scrubbed = scrubExchange({
      request: { method: 'GET', url: 'http://x/v1/pets', headers: { authorization: `Bearer ${KEY}` } },
      response: { status: 200, headers: { 'x-echo': `Bearer ${KEY}` }, rawBody: `{"seen":"Bearer ${KEY}"}` },
      durationMs: 1,
    })
    expect(JSON.stringify(scrubbed)).not.toContain(KEY)
    expect(scrubbed.response!.rawBody).toBe(`{"seen":"Bearer ${REDACTED}"}`)
  })
})

describe('scrubUrl', () => {
  it('drops user info and credential-like query values but keeps an ordinary URL byte for byte', () => {
    expect(scrubUrl(`https://ci:${KEY}@staging.example/v1`)).toBe('https://staging.example/v1')
    expect(scrubUrl(`https://staging.example/v1/pets?api_key=${KEY}&limit=5`)).toBe(`https://staging.example/v1/pets?api_key=${REDACTED}&limit=5`)
    expect(scrubUrl('http://127.0.0.1:4010/v1/pets?name=%7Bx%7D&limit=0')).toBe('http://127.0.0.1:4010/v1/pets?name=%7Bx%7D&limit=0')
  })
})
