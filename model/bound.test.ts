import { describe, expect, it } from 'vitest'
import { LIMITS, MORE_HEADERS, boundExchange, boundHeaders, boundText, cutText, truncationMarker } from './bound.js'
import { REDACTED, Redactor, withoutUserinfo } from './redact.js'

const KEY = 'sk-live-SECRET-4f9a1c'
const redactor = new Redactor([KEY])

describe('cutText', () => {
  it('cuts by UTF-16 units, one fewer rather than half a surrogate pair', () => {
    expect(cutText('abcdef', 3)).toBe('abc')
    expect(cutText('ab😀cd', 3)).toBe('ab') // 😀 is two units: the cut at 3 would split it
    expect(cutText('ab😀cd', 4)).toBe('ab😀')
    expect(cutText('short', 10)).toBe('short')
  })
})

describe('boundText', () => {
  it('leaves a short text whole, and ends a long one with a marker giving its size in UTF-8 bytes', () => {
    expect(boundText('abc', 5)).toBe('abc')
    expect(boundText('é'.repeat(10), 4)).toBe(`éééé${truncationMarker(20)}`)
  })

  it('is idempotent: a text already cut keeps its marker and original size', () => {
    const once = boundText('x'.repeat(10_000), 100)
    expect(boundText(once, 100)).toBe(once)
    expect(boundText(once, 100, redactor)).toBe(once)
    expect(once).toContain('[truncated: 10000 bytes in all]')
  })

  it('redacts before cutting, so no part of a key that straddles the cut survives', () => {
    const text = `${'x'.repeat(95)}${KEY}${'y'.repeat(100)}`
    const bounded = boundText(text, 100, redactor)
    expect(bounded).not.toContain('sk-l')
    expect(bounded.startsWith(`${'x'.repeat(95)}[REDA`)).toBe(true)
    expect(bounded.endsWith(truncationMarker(text.length))).toBe(true)
  })

  it('redacts the beginning of a key left at the end of a text that was cut before redaction', () => {
    const cutEarlier = `${'x'.repeat(50)}${KEY.slice(0, 9)}${truncationMarker(9000)}`
    expect(boundText(cutEarlier, 100, redactor)).toBe(`${'x'.repeat(50)}${REDACTED}${truncationMarker(9000)}`)
    const escaped = `${'x'.repeat(50)}\\u0073\\u006b-li${truncationMarker(9000)}`
    expect(boundText(escaped, 100, redactor)).toBe(`${'x'.repeat(50)}${REDACTED}${truncationMarker(9000)}`)
  })

  it('takes a 16 MiB text to a few kilobytes in milliseconds', () => {
    const huge = `${'a'.repeat(16 * 2 ** 20 - KEY.length)}${KEY}`
    const started = performance.now()
    const bounded = boundText(huge, LIMITS.body, redactor)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(bounded.length).toBeLessThan(LIMITS.body + 50)
    expect(bounded).toContain(`[truncated: ${16 * 2 ** 20} bytes in all]`)
  })
})

describe('boundHeaders', () => {
  it('keeps at most LIMITS.headers headers and says how many there were, once', () => {
    const flood = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x-h${i}`, 'v']))
    const bounded = boundHeaders(flood)
    expect(Object.keys(bounded)).toHaveLength(LIMITS.headers + 1)
    expect(bounded[MORE_HEADERS]).toBe('[truncated: 10000 headers in all]')
    expect(boundHeaders(bounded)).toEqual(bounded)
  })

  it('bounds and redacts names and values, and keeps `__proto__` as an ordinary header', () => {
    const bounded = boundHeaders(
      { [`x-${KEY}`]: 'v'.repeat(5000), __proto__: 'x' } as unknown as Record<string, string>,
      redactor,
    )
    expect(Object.keys(bounded)).toContain(`x-${REDACTED}`)
    expect(bounded[`x-${REDACTED}`]).toContain('[truncated: 5000 bytes in all]')
    const proto = JSON.parse('{"__proto__":"x"}') as Record<string, string>
    expect(JSON.stringify(boundHeaders(proto))).toBe('{"__proto__":"x"}')
  })
})

describe('boundExchange', () => {
  it('keeps known fields only, every text bounded', () => {
    const exchange = {
      operationId: 'listPets' as const,
      request: { method: 'GET', url: 'http://x/v1/pets', headers: {}, extra: 'dropped' },
      response: { status: 200, headers: {}, rawBody: '['.repeat(3_000_000), parsed: { deep: true } },
      durationMs: 5,
      json: { kind: 'empty' },
    }
    const bounded = boundExchange(exchange as never)
    expect(Object.keys(bounded)).toEqual(['operationId', 'request', 'response', 'durationMs'])
    expect(Object.keys(bounded.response!)).toEqual(['status', 'headers', 'rawBody'])
    expect(bounded.response!.rawBody.length).toBeLessThan(LIMITS.body + 50)
  })
})

describe('withoutUserinfo', () => {
  it('removes user and password from every URL in a text', () => {
    expect(withoutUserinfo('curl https://ci:hunter2@staging.example/v1/pets and http://u@h/x')).toBe(
      'curl https://staging.example/v1/pets and http://h/x',
    )
    expect(withoutUserinfo('http://127.0.0.1:4010/v1/pets?x=a@b')).toBe('http://127.0.0.1:4010/v1/pets?x=a@b')
  })
})
