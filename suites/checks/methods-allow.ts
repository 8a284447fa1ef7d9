import { exchangeCheck } from './check.js'
import { requestLine } from './util.js'

// RFC 9110 §5.6.2: a method is a token.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** The methods an `Allow` value lists, or undefined when it is no list of tokens (RFC 9110 §10.2.1). Empty is allowed. */
export function allowedMethods(value: string): string[] | undefined {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  return items.every((item) => TOKEN.test(item)) ? items : undefined
}

/** A 405 says which methods the resource supports: `Allow` (RFC 9110 §15.5.6, "MUST generate an Allow header field"). */
export const methodsAllow = exchangeCheck({
  id: 'methods.allow',
  title: '405 Method Not Allowed carries an Allow header (RFC 9110 §15.5.6)',
  severity: 'advice',
  basis: [{ rfc: 'RFC 9110 §15.5.6' }],
  on: { operation: 'any', statuses: [405] },
  run: ({ exchange, response }) => {
    const where = `${requestLine(exchange)} answered 405`
    const value = response.headers['allow']
    if (value === undefined)
      return [
        `${where} without Allow; RFC 9110 §15.5.6: the origin server MUST generate an Allow header field listing the methods the resource supports`,
      ]
    const methods = allowedMethods(value)
    if (!methods) return [`${where} with Allow "${value}", which is not a list of methods (RFC 9110 §10.2.1)`]
    if (methods.includes(exchange.request.method))
      return [`${where} with Allow "${value}", which lists the method refused`]
    return []
  },
})
