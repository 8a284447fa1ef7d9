import { pointer, type Spec, type SpecPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { requestLine } from './util.js'

/**
 * The spec's HTTP security scheme: its name (`bearerAuth`) and its scheme (`bearer`); a revision that describes none
 * leaves the interface's own words, `Bearer`, and the place where it would describe one.
 */
function httpScheme(spec: Spec): { name?: string; scheme: string } {
  const schemes = Object.entries<{ type?: string; scheme?: string }>(spec.doc.components?.securitySchemes ?? {})
  const [name, { scheme }] = schemes.find(([, s]) => s.type === 'http' && typeof s.scheme === 'string') ?? ['', {}]
  return name && scheme ? { name, scheme } : { scheme: 'bearer' }
}

/** Where the spec describes the scheme. */
function schemePointer(spec: Spec): SpecPointer {
  const { name } = httpScheme(spec)
  return name === undefined ? pointer('components', 'securitySchemes') : pointer('components', 'securitySchemes', name)
}

/** The scheme, which RFC 9110 §11.1 makes case-insensitive. */
const schemeOf = (spec: Spec) => httpScheme(spec).scheme

/** The scheme as each of the two credentials writes it. */
function written(spec: Spec) {
  const scheme = schemeOf(spec)
  return { 'lowercase-scheme': scheme.toLowerCase(), 'uppercase-scheme': scheme.toUpperCase() } as const
}

/**
 * The scheme in another letter case is still Bearer: "It uses a case-insensitive token to identify the
 * authentication scheme" (RFC 9110 §11.1). The interface writes `Bearer`, so refusing `bearer <key>` is advice.
 */
export const authSchemeCase = exchangeCheck({
  id: 'auth.scheme-case',
  title: (spec) =>
    `The Authorization scheme is accepted in another letter case ("${written(spec)['lowercase-scheme']}", "${written(spec)['uppercase-scheme']}"; RFC 9110 §11.1)`,
  severity: 'advice',
  basis: (spec) => [{ rfc: 'RFC 9110 §11.1' }, { spec: schemePointer(spec) }],
  // The operations that create nothing: a create under each scheme spelling would add pets to every run.
  on: { operation: ['listPets', 'getPet'], credential: 'scheme-case' },
  run: ({ exchange, response: { status } }, spec) => {
    if (status !== 401) return []
    const scheme = schemeOf(spec)
    const as = written(spec)[exchange.credential as keyof ReturnType<typeof written>]
    return [
      `${requestLine(exchange)} with "Authorization: ${as} <key>" answered 401; RFC 9110 §11.1: the scheme is case-insensitive, so "${as}" is ${scheme[0]!.toUpperCase()}${scheme.slice(1)}`,
    ]
  },
})
