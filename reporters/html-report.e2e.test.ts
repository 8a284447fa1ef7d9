import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spec } from '../spec/index.js'
import { WRITERS } from './index.js'
import { launchChromium, type Browser } from './test-support/chromium.js'
import { sampleRun } from './test-support/results.js'

// The HTML report of the sample run (fixtures/reports/sample-run.json), opened as a user would: from disk, offline,
// in Chromium (CHROMIUM_PATH, or /usr/bin/chromium). Part of `npm run test:e2e`, not `npm test`.
let browser: Browser
let page: Page
let dir: string
const dialogs: string[] = []
const requests: string[] = []

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-html-report-'))
  const file = join(dir, 'report.html')
  await writeFile(file, WRITERS.html(sampleRun()))
  browser = await launchChromium()
  page = await browser.context.newPage()
  await page.setViewportSize({ width: 1280, height: 900 }) // a laptop's browser window
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  page.on('request', (r) => void requests.push(r.url()))
  await page.goto(pathToFileURL(file).href)
})

afterAll(async () => {
  await browser?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

const outcomeOf = (op: string, status: string) =>
  page.locator(`table.matrix [data-op="${op}"][data-status="${status}"]`).getAttribute('data-outcome')

describe('the HTML report in Chromium', () => {
  it('renders one matrix row per operation, in spec order, with a column per documented status', async () => {
    expect(
      await page.locator('table.matrix tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-op'))),
    ).toEqual(Object.keys(spec().operations))
    const documented = [...new Set(Object.values(spec().operations).flatMap((op) => op.statuses))].sort()
    const headers = await page.locator('table.matrix thead th').allTextContents()
    expect(headers.slice(1, 1 + documented.length)).toEqual(documented)
  })

  it('colours each documented response by what the run saw', async () => {
    const expected: [string, string, string][] = [
      ['listPets', '200', 'passed'],
      ['listPets', '201', 'not-applicable'],
      ['listPets', '400', 'not-provoked'],
      ['listPets', '401', 'passed'],
      ['createPet', '201', 'passed'],
      ['createPet', '400', 'passed'],
      ['createPet', '401', 'failed'], // Error.status 400 on a 401
      ['createPet', '500', 'failed'], // undocumented, in its own column
      ['getPet', '200', 'warned'], // advice: no Deprecation or Sunset header
      ['getPet', '401', 'passed'],
      ['getPet', '404', 'not-provoked'],
    ]
    const actual = await Promise.all(expected.map(async ([op, status]) => [op, status, await outcomeOf(op, status)]))
    expect(actual).toEqual(expected)
    expect(await page.locator('[data-op="listPets"][data-status="400"]').getAttribute('data-provokable')).toBe('false')
  })

  it('paints passed, failed and warned cells in different colours', async () => {
    const background = (op: string, status: string) =>
      page
        .locator(`td[data-op="${op}"][data-status="${status}"]`)
        .evaluate((td) => (globalThis as any).getComputedStyle(td).backgroundColor as string)
    const colours = new Set([
      await background('listPets', '200'),
      await background('createPet', '401'),
      await background('getPet', '200'),
    ])
    expect(colours.size).toBe(3)
  })

  it('lists the failing checks with their exchange and a curl line to copy', async () => {
    const failures = page.locator('#failures article')
    expect(await failures.evaluateAll((a) => a.map((e) => e.getAttribute('data-check')))).toEqual([
      'listPets.filter.status',
      'createPet.error.status-echoed',
      'createPet.status.201',
      'no-server-error',
      'transport.ok',
    ])
    // The finding with the shortest exchange first, open; the other behind a toggle, closed.
    const check = page.locator('#check-createPet\\.status\\.201')
    expect(await check.locator(':scope > .finding pre.curl').textContent()).toBe(
      `curl -sS -X POST 'http://127.0.0.1:4010/v1/pets' -H "Authorization: Bearer $PETSTORE_API_KEY" -H 'Content-Type: application/json' --data-raw '{"name":"Rex","categoryId":1}'`,
    )
    expect(await check.locator(':scope > .finding pre.exchange').isVisible()).toBe(true)
    const more = check.locator('details.more-findings')
    expect(await more.locator(':scope > summary').textContent()).toBe('1 more finding')
    expect(await more.locator('pre.curl').isVisible()).toBe(false)
    await more.locator(':scope > summary').click()
    expect(await more.locator('pre.curl').textContent()).toBe(
      `curl -sS -X POST 'http://127.0.0.1:4010/v1/pets' -H "Authorization: Bearer $PETSTORE_API_KEY" -H 'Content-Type: application/json' --data-raw '{"name":"","categoryId":0}' -H 'X-Token: [REDACTED]'`,
    )
    await more.locator('details').first().locator('summary').click() // the exchange of a folded finding is folded too
    expect(await more.locator('pre.exchange').textContent()).toContain('< 500 (12 ms)')
  })

  it('opens with an index of the failing checks, each a link to its evidence, and links to the matrix', async () => {
    const links = page.locator('nav#index ol.index a')
    const failing = await page.locator('#failures article').evaluateAll((a) => a.map((e) => e.id))
    const linked = await links.evaluateAll((a) => a.map((e) => e.getAttribute('href')!.slice(1)))
    expect(linked.slice(0, failing.length)).toEqual(failing)
    // The index is on the first screen, at 1280 px wide.
    const box = await page.locator('nav#index').boundingBox()
    expect(box!.y + box!.height).toBeLessThan(900)
    await page.locator('nav#index a[href="#matrix"]').click()
    const matrix = await page.locator('#matrix').boundingBox()
    expect(matrix!.y).toBeLessThan(100) // scrolled to it
    await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
  })

  it('keeps every basis line of a finding in the basis cell of its grid', async () => {
    const basis = page.locator('#check-createPet\\.status\\.201 > .finding dd.basis')
    expect(await basis.count()).toBe(1)
    expect(await basis.innerHTML()).toContain('<br>')
    const [dt, dd] = await Promise.all([
      page.locator('#check-createPet\\.status\\.201 > .finding dt', { hasText: 'Basis' }).boundingBox(),
      basis.boundingBox(),
    ])
    expect(dd!.x).toBeGreaterThan(dt!.x + dt!.width) // beside its term, not under it
  })

  it('shows the target’s HTML as text and runs no script', async () => {
    expect(dialogs).toEqual([])
    expect(await page.evaluate(() => (globalThis as any).document.scripts.length as number)).toBe(0)
    expect(
      await page.locator('#check-createPet\\.status\\.201 details.more-findings pre.exchange').textContent(),
    ).toContain('<script>alert("pwned")</script>')
  })

  it('loads nothing but itself', () => {
    expect(requests).toHaveLength(1)
    expect(requests[0]).toMatch(/^file:/)
  })

  it('states the verdict, the observations and the run facts', async () => {
    expect(await page.locator('[data-verdict]').getAttribute('data-verdict')).toBe('non-conformant')
    expect(await page.locator('table.observations tbody tr').count()).toBe(3)
    const facts = await page.locator('#run dl').textContent()
    for (const fact of [
      'k3x9q2a',
      '-154020823 (30 runs per property)',
      '7 of a budget of 20',
      '1.0.0',
      '10.4 s',
      '--seed=-154020823',
    ])
      expect(facts).toContain(fact)
  })

  it('takes a screenshot a person can read', async () => {
    await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
    const png = await page.screenshot({ fullPage: false })
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    expect(png.length).toBeGreaterThan(20_000) // a blank page compresses to a few kB
    // `PETSTORE_REPORT_SCREENSHOT=docs/report.png npx vitest run reporters/html-report.e2e.test.ts` refreshes the picture in docs/reports.md.
    const target = process.env.PETSTORE_REPORT_SCREENSHOT
    if (target) await writeFile(target, png)
  })
})
