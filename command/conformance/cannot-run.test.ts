/** What the reports of a run that could not be done say, and where they go when the command line did not resolve. */
import { describe, expect, it } from 'vitest'
import type { Exchange } from '../../model/index.js'
import { adviceFor, placeOf, triedLines } from './cannot-run.js'

describe('adviceFor', () => {
  it.each([
    [
      'the target refused the API key: GET http://h/v1/pets and GET http://h/v1/pets/1 both answered 401',
      /--api-key or PETSTORE_API_KEY/,
    ],
    [
      'cannot reach the target at http://h/v1: connection refused; check --base-url (or PETSTORE_BASE_URL)',
      /scheme, host and port/,
    ],
    ['the base URL does not serve the interface: GET http://h/pets answered 404', /version prefix included/],
    [
      'every request answered 502 Bad Gateway (...): the service behind the proxy or gateway seems down',
      /Start the service/,
    ],
    ['rate-limited throughout: the target answered 429 ...', /lower --concurrency/],
    ["--runs must be an integer, got 'lots'", /--help lists every flag/],
  ])('says what to do about "%s"', (reason, advice) => {
    expect(adviceFor(reason)).toMatch(advice)
  })
})

describe('triedLines', () => {
  it('says each request and what came back, or that nothing did', () => {
    const sent = (url: string, answer: Partial<Exchange>): Exchange =>
      ({ request: { method: 'GET', url, headers: {} }, durationMs: 12.4, ...answer }) as Exchange
    expect(
      triedLines([
        sent('http://h/v1/pets?limit=1', {
          response: { status: 401, headers: { 'content-type': 'application/json' } },
        } as unknown as Partial<Exchange>),
        sent('http://h/v1/pets/1', { error: 'connection refused' }),
      ]),
    ).toEqual([
      'GET http://h/v1/pets?limit=1 -> 401 application/json (12 ms)',
      'GET http://h/v1/pets/1 -> no answer: connection refused (12 ms)',
    ])
  })
})

describe('placeOf', () => {
  it('reads where the reports go from a command line that did not resolve, only when --output-dir names it', () => {
    const place = placeOf(['--runs', 'lots', '--output-dir', 'out', '--reporter', 'markdown', '--bogus'], {
      PETSTORE_BASE_URL: 'https://staging.example/v1',
    })
    expect(place).toMatchObject({ baseUrl: 'https://staging.example/v1', embedded: false })
    expect(place!.outputDir).toMatch(/out$/)
    expect(place!.reporters).toContain('markdown')
    expect(placeOf(['--runs', 'lots'], {})).toBeUndefined() // a typo in a terminal leaves no files behind
    expect(placeOf(['--output-dir', 'out', '--help'], {})).toBeUndefined()
  })
})
