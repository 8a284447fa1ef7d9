import { describe, expect, it } from 'vitest'
import { LOG_BACKLOG_BYTES, logLine, streamLog } from './log.js'

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
})
