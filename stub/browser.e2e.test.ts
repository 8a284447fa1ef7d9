// A real browser client on another origin: fetch with Prefer and custom headers (CORS preflight), read the
// controls' headers, read the journal and reset the stub. Headless Chromium through playwright-core.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { serveNode } from '../test-support/misbehaving.js'
import { targets, type Served, type StubTarget } from '../test-support/targets.js'

/** Chromium to launch: `CHROMIUM_PATH`, or where Debian installs it. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const KEY = 'browser-key'
/** The name of a site the developer visits while the stub runs. */
const FOREIGN = 'news.example'
const start = targets(afterAll)

describe('a browser page on another origin', () => {
  let stub: StubTarget
  let site: Served
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    if (!existsSync(CHROMIUM_PATH))
      throw new Error(
        `${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
      )
    // The page's own origin: another port of 127.0.0.1, so every call to the stub is cross-origin.
    site = await start({
      serve: () =>
        serveNode((_, res) =>
          res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title>'),
        ),
    })
    const pageOrigin = site.origin
    stub = await start({ stub: { apiKeys: [KEY], adminOrigins: [pageOrigin] } }) // this page may use the admin API
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      // A site of the wide web, served here: its pages are of another site than the stub's.
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', `--host-resolver-rules=MAP ${FOREIGN} 127.0.0.1`],
    })
    page = await browser.newPage()
    await page.goto(`${pageOrigin}/`)
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
  })

  it('forces answers with Prefer and reads Preference-Applied, Retry-After and the deprecation headers', async () => {
    const seen = await page.evaluate(
      async ({ base, key }) => {
        const headers = { authorization: `Bearer ${key}`, prefer: 'code=404', 'x-request-id': 'page-1' }
        const notFound = await fetch(`${base}/pets/1`, { headers })
        const limited = await fetch(`${base}/pets`, { headers: { authorization: `Bearer ${key}`, prefer: 'code=429' } })
        const reset = await fetch(`${base}/pets`, {
          headers: { authorization: `Bearer ${key}`, prefer: 'fault=reset' },
        }).then(
          () => 'answered',
          (error: Error) => error.name,
        )
        return {
          status: notFound.status,
          applied: notFound.headers.get('preference-applied'),
          sunset: notFound.headers.get('sunset'),
          body: await notFound.json(),
          limited: [limited.status, limited.headers.get('retry-after')],
          reset,
        }
      },
      { base: stub.url, key: KEY },
    )
    expect(seen).toMatchObject({ status: 404, applied: 'code=404', limited: [429, '1'], reset: 'TypeError' })
    expect(seen.sunset).toMatch(/GMT$/)
    expect(seen.body).toMatchObject({ status: 404 })
  })

  it('creates a pet, finds it in the journal (key redacted), and resets the stub to its seed', async () => {
    const origin = stub.url.replace(/\/v1$/, '')
    const result = await page.evaluate(
      async ({ base, origin, key }) => {
        const auth = { authorization: `Bearer ${key}` }
        const count = async () =>
          ((await (await fetch(`${base}/pets?limit=100`, { headers: auth })).json()) as unknown[]).length
        const before = await count()
        const created = await fetch(`${base}/pets`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: '{"name":"FromPage","categoryId":1}',
        })
        const afterCreate = await count()
        const journal = await (await fetch(`${origin}/__stub/requests?method=POST&limit=1`)).json()
        const reset = await fetch(`${origin}/__stub/reset`, { method: 'POST' })
        return { before, created: created.status, afterCreate, journal, reset: reset.status, afterReset: await count() }
      },
      { base: stub.url, origin, key: KEY },
    )
    expect(result).toMatchObject({ created: 201, reset: 200 })
    expect(result.afterCreate).toBe(result.before + 1)
    expect(result.afterReset).toBe(result.before)
    const [entry] = (result.journal as { entries: { body: string; headers: Record<string, string> }[] }).entries
    expect(entry).toMatchObject({
      body: '{"name":"FromPage","categoryId":1}',
      headers: { authorization: 'Bearer [redacted]' },
    })
  })

  it('sends cookies to /v1 (credentials: include) and reads the answers', async () => {
    const seen = await page.evaluate(
      async ({ base, key }) => {
        const listed = await fetch(`${base}/pets?limit=1`, {
          credentials: 'include',
          headers: { authorization: `Bearer ${key}` },
        })
        return { status: listed.status, pets: ((await listed.json()) as unknown[]).length }
      },
      { base: stub.url, key: KEY },
    )
    expect(seen).toEqual({ status: 200, pets: 1 })
  })

  it('gets nothing from the admin API on a page of an origin not allowed, and cannot reset the stub', async () => {
    const other = await browser.newPage()
    try {
      await other.goto(`http://localhost:${site.port}/`) // another origin
      const origin = stub.url.replace(/\/v1$/, '')
      const before = stub.store.size
      await fetch(`${stub.url}/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: '{"name":"Kept","categoryId":1}',
      })
      const result = await other.evaluate(async (origin) => {
        const tried = async (run: () => Promise<Response>) =>
          run().then(
            (response) => `read ${response.status}`,
            (error: Error) => error.name,
          )
        return {
          journal: await tried(() => fetch(`${origin}/__stub/requests`)),
          // A simple request (no preflight): the page cannot read the answer, and the stub must not act on it.
          reset: await tried(() =>
            fetch(`${origin}/__stub/reset`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }),
          ),
          noCors: await fetch(`${origin}/__stub/reset`, { method: 'POST', mode: 'no-cors' }).then((r) => r.type),
        }
      }, origin)
      expect(result).toEqual({ journal: 'TypeError', reset: 'TypeError', noCors: 'opaque' })
      expect(stub.store.size).toBe(before + 1) // not reset
    } finally {
      await other.close()
    }
  })
  it('gives a page of another site no pet to read and no way to create one, unless its origin is allowed', async () => {
    const other = await browser.newPage()
    const foreign = `http://${FOREIGN}:${site.port}`
    const allowing = await start({ stub: { apiKeys: [KEY], allowOrigins: [foreign] } })
    try {
      await other.goto(`${foreign}/`)
      const before = stub.store.size
      const lastSeen = stub.stub.requests({ limit: 1 })[0]?.seq ?? 0
      const tried = (base: string) =>
        other.evaluate(
          async ({ base, key }) => {
            const auth = { authorization: `Bearer ${key}` }
            const outcome = (run: () => Promise<Response>) =>
              run().then(
                (response) => `read ${response.status}`,
                (error: Error) => error.name,
              )
            return {
              list: await outcome(() => fetch(`${base}/pets?limit=100`, { headers: auth })),
              create: await outcome(() =>
                fetch(`${base}/pets`, {
                  method: 'POST',
                  headers: { ...auth, 'content-type': 'application/json' },
                  body: '{"name":"FromNews","categoryId":1}',
                }),
              ),
            }
          },
          { base, key: KEY },
        )
      // The public default key would do as well: the page is refused for its origin, not its key.
      expect(await tried(stub.url)).toEqual({ list: 'TypeError', create: 'TypeError' })
      expect(stub.store.size).toBe(before)
      // Its refused preflights are kept out of the journal (and the client report): another site's page could fill them.
      expect(stub.stub.requests().filter((entry) => entry.seq > lastSeen)).toEqual([])
      expect(await tried(allowing.url)).toEqual({ list: 'read 200', create: 'read 201' })
    } finally {
      await other.close()
    }
  })
})
