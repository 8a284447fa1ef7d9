import { spec } from '../../spec/index.js'
import { credentialKind, exchangeCheck } from './check.js'
import { requestLine } from './util.js'

// The scheme of the spec's security scheme (`bearer`), which RFC 9110 §11.1 makes case-insensitive.
const SCHEME: string = Object.values<{ type: string; scheme: string }>(spec().doc.components.securitySchemes).find((s) => s.type === 'http')!.scheme
const WRITTEN = { 'lowercase-scheme': SCHEME.toLowerCase(), 'uppercase-scheme': SCHEME.toUpperCase() } as const

/** Observed: whether the scheme in another letter case is accepted; the interface writes `Bearer`. */
export const authSchemeCase = exchangeCheck({
  id: 'auth.scheme-case',
  title: `Authorization scheme written in another letter case ("${WRITTEN['lowercase-scheme']}", "${WRITTEN['uppercase-scheme']}")`,
  severity: 'observed',
  on: { operation: 'all', when: ({ exchange }) => credentialKind(exchange.credential) === 'scheme-case' },
  subject: ({ exchange }) => `${requestLine(exchange)} with "Authorization: ${WRITTEN[exchange.credential as keyof typeof WRITTEN]} <key>"`,
  run: ({ response: { status } }) => [status === 401 ? 'rejected: 401' : status < 300 ? `accepted: ${status}` : `answered ${status}`],
})
