/**
 * Reads a JUnit file with Chromium's XML parser, so a test learns both whether it is well-formed XML and
 * what it counts, without a parser of our own.
 */
import type { Browser } from './chromium.js'

/** One `<testcase>` of a JUnit file. */
export interface JunitCase {
  classname: string
  name: string
  failure?: string
  skipped: boolean
}

/** What a JUnit file says, or the parser's complaint when it is not well-formed. */
export interface Junit {
  parseError?: string
  root: string
  totals: { tests: number; failures: number; errors: number }
  cases: JunitCase[]
}

/** Parses `xml` in a blank page of `browser`. */
export async function readJunit(browser: Browser, xml: string): Promise<Junit> {
  const page = await browser.context.newPage()
  try {
    // Runs in the page, where the DOM exists; the project's TypeScript settings have no DOM types.
    return await page.evaluate((text): Junit => {
      const doc = new (globalThis as any).DOMParser().parseFromString(text, 'application/xml')
      const error = doc.querySelector('parsererror')
      const root = doc.documentElement
      const number = (name: string) => Number(root.getAttribute(name))
      return {
        ...(error ? { parseError: error.textContent ?? 'parser error' } : {}),
        root: root.nodeName,
        totals: { tests: number('tests'), failures: number('failures'), errors: number('errors') },
        cases: [...doc.querySelectorAll('testcase')].map((c: any) => {
          const failure = c.querySelector('failure')
          return {
            classname: c.getAttribute('classname') ?? '',
            name: c.getAttribute('name') ?? '',
            ...(failure ? { failure: `${failure.getAttribute('message') ?? ''}\n${failure.textContent ?? ''}` } : {}),
            skipped: c.querySelector('skipped') !== null,
          }
        }),
      }
    }, xml)
  } finally {
    await page.close()
  }
}
