/** Parse bounds: whatever a target sends, reading its body takes little time and memory, and says why it was not parsed. */
import { describe, expect, it } from 'vitest'
import { hostileBody } from '../../test-support/misbehaving.js'
import { MAX_DEPTH, MAX_PARSED_CHARS, MAX_UNPARSED_TEXT, MAX_VALUES, parseBody, readBody, shapeOf } from './body.js'

const bytes = (text: string) => new TextEncoder().encode(text)

describe('parseBody', () => {
  it('parses a page of pets, int64 ids exact', () => {
    const parsed = parseBody('[{"id":9007199254740993,"name":"a","categoryId":1}]')
    expect(parsed).toEqual({ kind: 'json', value: [{ id: 9007199254740993n, name: 'a', categoryId: 1 }] })
  })

  it.each([
    [
      'deep',
      hostileBody('deep', 2 * (MAX_DEPTH + 1)),
      `it nests more than ${MAX_DEPTH} levels deep, more than the suite parses`,
    ],
    [
      'wide',
      hostileBody('wide', 12 * (MAX_VALUES + 10)),
      `it holds more than ${MAX_VALUES} values, more than the suite parses`,
    ],
    [
      'a long list',
      hostileBody('huge-list', 42 * (MAX_VALUES / 3 + 10)),
      `it holds more than ${MAX_VALUES} values, more than the suite parses`,
    ],
  ])('refuses, quickly, a body too %s to parse safely', (_name, text, error) => {
    const started = performance.now()
    expect(parseBody(text)).toEqual({ kind: 'invalid', error })
    // A bound against a super-linear parse (which takes minutes here), far from a linear one on a loaded machine.
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it('counts no commas inside strings, and stops scanning at the bound', () => {
    expect(shapeOf('["a,b,c", {"k,": [1, 2]}]')).toEqual({ depth: 3, values: 3 })
    expect(shapeOf(','.repeat(1000), 256, 10).values).toBe(11)
  })

  it('a 4 MB wide object or deep array is refused without a super-linear parse', () => {
    for (const shape of ['wide', 'deep'] as const) {
      const text = hostileBody(shape, 4_000_000)
      const started = performance.now()
      expect(parseBody(text).kind).toBe('invalid')
      expect(performance.now() - started).toBeLessThan(5000)
    }
  })
})

describe('readBody', () => {
  it('a body over the parse bound is neither decoded nor held whole: a head and a marker of its real size', () => {
    const big = bytes(`[${'"é",'.repeat(MAX_PARSED_CHARS / 4)}1]`)
    const { text, json } = readBody(big)
    expect(json).toEqual({
      kind: 'invalid',
      error: `it is ${big.byteLength} bytes long, more than the ${MAX_PARSED_CHARS} the suite parses`,
    })
    expect(text.endsWith(`… [truncated: ${big.byteLength} bytes in all]`)).toBe(true)
    expect(text.length).toBeLessThan(MAX_UNPARSED_TEXT + 64)
    expect(text).not.toContain('\uFFFD') // a character cut at the head's end is dropped, not garbled
  })

  it('a head kept by the transport is read with the size of the whole', () => {
    const { text, json } = readBody(bytes('[1,2,3'), 20 * 1024 * 1024)
    expect(json.kind).toBe('invalid')
    expect(text).toBe(`[1,2,3… [truncated: ${20 * 1024 * 1024} bytes in all]`)
  })

  it('says so of invalid UTF-8 and of a byte order mark', () => {
    expect(readBody(new Uint8Array([0x5b, 0xff, 0x5d])).json).toEqual({
      kind: 'invalid',
      error: 'it is not valid UTF-8',
    })
    expect(readBody(bytes('\uFEFF[]')).json).toEqual({
      kind: 'invalid',
      error: 'it starts with a byte order mark, which RFC 8259 §8.1 forbids',
    })
  })
})
