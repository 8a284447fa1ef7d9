import { exchangeCheck } from './check.js'
import { parseChallenges } from './http-grammar.js'
import { requestLine } from './util.js'

/** Every 401 carries a `Bearer` challenge with an auth-param (RFC 6750 §3, RFC 9110 §11.6.1), whatever the request. */
export const wwwAuthenticate = exchangeCheck({
  id: 'auth.www-authenticate',
  title: 'Every 401 carries WWW-Authenticate: Bearer with an auth-param (RFC 6750 §3)',
  severity: 'advice',
  basis: [{ rfc: 'RFC 9110 §15.5.2' }, { rfc: 'RFC 6750 §3' }],
  on: { operation: 'any', statuses: [401] },
  run: ({ exchange, response }) => {
    const where = `${requestLine(exchange)} answered 401`
    const value = response.headers['www-authenticate']
    if (value === undefined)
      return [
        `${where} without WWW-Authenticate; RFC 6750 §3 asks for a Bearer challenge, e.g. Bearer realm="petstore"`,
      ]
    const challenges = parseChallenges(value)
    if (!challenges)
      return [`${where} with WWW-Authenticate "${value}", which is not a challenge list (RFC 9110 §11.6.1)`]
    const bearer = challenges.find((c) => c.scheme.toLowerCase() === 'bearer')
    if (!bearer) return [`${where} with WWW-Authenticate "${value}"; no Bearer challenge (RFC 6750 §3)`]
    if (Object.keys(bearer.params).length === 0)
      return [
        `${where} with WWW-Authenticate "${value}"; the Bearer challenge has no auth-param such as realm (RFC 6750 §3)`,
      ]
    return []
  },
})
