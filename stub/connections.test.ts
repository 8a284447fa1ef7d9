import { describe, expect, it } from 'vitest'
import { connect } from 'node:net'
import { once } from 'node:events'
import { boundConnections, descriptorLimit, sheddingBounds } from './connections.js'
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

describe('shedding near the descriptor limit', () => {
  it('closes the oldest idle connections first, then the oldest requests still arriving, never an answer under way', async () => {
    const running = await serve(createStub().handler, { port: 0, host: '127.0.0.1' })
    const lines: string[] = []
    // Small bounds beside the stub's own (which 14 connections never reach).
    boundConnections(running.server, 10_000, (line) => lines.push(line), { high: 13, low: 6 })
    let requests = 0
    running.server.on('request', () => requests++)
    const closed = new Set<string>()
    const open = async (name: string, sent?: string) => {
      const socket = connect(running.port, '127.0.0.1')
      socket.on('error', () => undefined)
      socket.on('close', () => closed.add(name))
      await once(socket, 'connect')
      if (sent) socket.write(sent)
      return socket
    }
    const head = 'Host: 127.0.0.1\r\nAuthorization: Bearer petstore-dev-key\r\n'
    const delayed = `GET /v1/pets HTTP/1.1\r\n${head}Prefer: delay=5000\r\n\r\n` // read whole, its answer waiting
    const stalled = `POST /v1/pets HTTP/1.1\r\n${head}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{`
    const sockets = [await open('under way', delayed)]
    for (let i = 1; i <= 8; i++) sockets.push(await open(`arriving ${i}`, stalled))
    await expect.poll(() => requests).toBe(9) // each one read by the server before the idle ones come
    for (let i = 1; i <= 3; i++) sockets.push(await open(`idle ${i}`))
    sockets.push(await open('newest'))
    try {
      await expect.poll(() => closed.size).toBe(7)
      expect([...closed].sort()).toEqual([
        'arriving 1',
        'arriving 2',
        'arriving 3',
        'arriving 4',
        'idle 1',
        'idle 2',
        'idle 3',
      ])
      expect(lines).toEqual([
        '- - 7 connections closed (idle, or still sending a request): 13 were open, near the file-descriptor limit',
      ])
    } finally {
      sockets.forEach((socket) => socket.destroy())
      await running.close(0)
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
