import { describe, expect, it } from 'vitest'
import type { Likeness } from '../../stub/index.js'
import { banner } from './banner.js'
import { resolveConfig } from './config.js'

const SECRET = 'ci-secret-4f7a1c'
const ADMIN = 'admin-secret-9e2b'

/** A likeness read from a report someone wrote to show the keys: in its base URL, a reason and a warning. */
const crafted: Likeness = {
  source: { tool: 'petstore-conformance', version: '1.0.0', specVersion: '1.0.0', baseUrl: `http://x/${SECRET}` },
  traits: {} as Likeness['traits'],
  adopted: [],
  notMimicked: [{ checkId: 'listPets.ordering', reason: `the service said ${ADMIN}` }],
  warnings: [`a key: ${SECRET}`],
}

describe('the start message', () => {
  it('shows no key it keeps secret, even where a --like report wrote one', () => {
    const config = resolveConfig(['--admin-key', ADMIN], { PETSTORE_API_KEYS: SECRET })
    const text = banner({ ...config, like: crafted }, 'http://127.0.0.1:4010/v1', 3, 'the seed')
    expect(text).toContain('Like: the service at http://x/[redacted]')
    expect(text).toContain('not mimicked listPets.ordering: the service said [redacted]')
    expect(text).not.toContain(SECRET)
    expect(text).not.toContain(ADMIN)
  })

  it('leaves a key given on the command line as it is: the message shows it anyway', () => {
    const config = resolveConfig(['--api-key', 'shown-key'], {})
    const text = banner({ ...config, like: { ...crafted, warnings: ['about shown-key'] } }, 'http://h/v1', 0, 'x')
    expect(text).toContain('warning: about shown-key')
  })
})
