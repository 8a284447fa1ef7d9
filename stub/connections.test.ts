import { describe, expect, it } from 'vitest'
import { connect } from 'node:net'
import { once } from 'node:events'
import { descriptorLimit, sheddingBounds } from './connections.js'
import { serve } from './server.js'
import { createStub } from './stub.js'

describe('bounded connections', () => {
  it('closes a connection that sends nothing within the headers timeout', async () => {
    const running = await serve(createStub().handler, { port: 0, host: '127.0.0.1', headersTimeout: 300 })
    try {
      const silent = connect(running.port, '127.0.0.1')
      const started = performance.now()
      await once(silent, 'connect')
      await once(silent, 'close')
      const waited = performance.now() - started
      expect(waited).toBeGreaterThanOrEqual(250)
      expect(waited).toBeLessThan(5_000)
    } finally {
      await running.close()
    }
  })
})

describe('the file-descriptor bounds', () => {
  it('reads the soft limit where the platform tells it, and keeps room below it', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const file = join(mkdtempSync(join(tmpdir(), 'limits-')), 'limits')
    writeFileSync(
      file,
      'Limit  Soft Limit  Hard Limit  Units\nMax open files            1024                 524288               files\n',
    )
    expect(descriptorLimit(file)).toBe(1024)
    expect(descriptorLimit('/no/such/file')).toBeUndefined()
    expect(sheddingBounds(1024)).toEqual({ high: 960, low: 896 })
    expect(sheddingBounds(undefined)).toBeUndefined()
    expect(sheddingBounds(20)).toBeUndefined() // too few to bound anything
  })
})
