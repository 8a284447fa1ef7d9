import { spec } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { requestLine } from './util.js'

// The scheme of the spec's security scheme (`bearer`), which RFC 9110 §11.1 makes case-insensitive.
const SCHEME: string = Object.values<{ type: string; scheme: string }>(spec().doc.components.securitySchemes).find(
  (s) => s.type === 'http',
)!.scheme
const WRITTEN = { 'lowercase-scheme': SCHEME.toLowerCase(), 'uppercase-scheme': SCHEME.toUpperCase() } as const

/**
 * The scheme in another letter case is still Bearer: "It uses a case-insensitive token to identify the
 * authentication scheme" (RFC 9110 §11.1). The interface writes `Bearer`, so refusing `bearer <key>` is advice.
 */
export const authSchemeCase = exchangeCheck({
  id: 'auth.scheme-case',
  title: `The Authorization scheme is accepted in another letter case ("${WRITTEN['lowercase-scheme']}", "${WRITTEN['uppercase-scheme']}"; RFC 9110 §11.1)`,
  severity: 'advice',
  basis: [{ rfc: 'RFC 9110 §11.1' }, { spec: '#/components/securitySchemes/bearerAuth' }],
  // The operations that create nothing: a create under each scheme spelling would add pets to every run.
  on: { operation: ['listPets', 'getPet'], credential: 'scheme-case' },
  run: ({ exchange, response: { status } }) => {
    if (status !== 401) return []
    const written = WRITTEN[exchange.credential as keyof typeof WRITTEN]
    return [
      `${requestLine(exchange)} with "Authorization: ${written} <key>" answered 401; RFC 9110 §11.1: the scheme is case-insensitive, so "${written}" is ${SCHEME[0]!.toUpperCase()}${SCHEME.slice(1)}`,
    ]
  },
})
