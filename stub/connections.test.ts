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

describe('shedding near the descriptor limit', () => {
  it('closes the oldest idle connections first, then the oldest requests still arriving, then held answers, never one under way', async () => {
    const lines: string[] = []
    // Small bounds in place of those of `ulimit -n` (which 11 connections never reach).
    const running = await serve(createStub().handler, {
      port: 0,
      host: '127.0.0.1',
      log: (line) => lines.push(line),
      connectionBounds: { high: 11, low: 3 },
    })
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
    const delayed = `GET /v1/pets HTTP/1.1\r\n${head}Prefer: delay=5000\r\n\r\n` // read whole, its answer held back
    const hung = `GET /v1/pets HTTP/1.1\r\n${head}Prefer: fault=hang\r\n\r\n` // never answered
    const stalled = `POST /v1/pets HTTP/1.1\r\n${head}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{`
    const sockets = [await open('held 1', hung), await open('held 2', delayed), await open('held 3', delayed)]
    for (let i = 1; i <= 4; i++) sockets.push(await open(`arriving ${i}`, stalled))
    await expect.poll(() => requests).toBe(7) // each one read by the server before the idle ones come
    for (let i = 1; i <= 3; i++) sockets.push(await open(`idle ${i}`))
    sockets.push(await open('newest'))
    try {
      await expect.poll(() => closed.size).toBe(8)
      expect([...closed].sort()).toEqual([
        'arriving 1',
        'arriving 2',
        'arriving 3',
        'arriving 4',
        'held 1',
        'idle 1',
        'idle 2',
        'idle 3',
      ])
      expect(lines).toContain(
        '- - 8 connections closed (idle, still sending a request, or waiting for an answer held back): 11 were open, near the file-descriptor limit',
      )
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
