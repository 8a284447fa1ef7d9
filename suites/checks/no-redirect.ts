import { everyOperation } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { requestLine } from './util.js'

/** True for a redirection status (RFC 9110 §15.4). */
export const isRedirect = (status: number): boolean => status >= 300 && status < 400

/**
 * A documented operation is answered, not redirected: its request at the documented path gets one of the statuses the
 * spec lists for it, and a 3xx (a router's `301 Location: /v1/pets/`) is none of them unless a revision lists it. The
 * suite never follows a redirect; other spellings of a path (a trailing slash) are the target's choice, observed.
 */
export const noRedirect = exchangeCheck({
  id: 'response.no-redirect',
  title: 'A documented operation is answered at its documented path, never redirected (3xx)',
  severity: 'fail',
  basis: (spec) => everyOperation(spec, 'responses'),
  on: { operation: 'all' },
  run: ({ exchange, response, operationId }, spec) => {
    const documented = spec.statuses(operationId)
    if (!isRedirect(response.status) || documented.includes(String(response.status))) return []
    const location = response.headers['location']
    const to = location === undefined ? 'without Location' : `to Location: ${location}`
    return [
      `${requestLine(exchange)} answered ${response.status}, a redirect ${to}; documented for ${operationId}: ${documented.join(', ')} at the documented path`,
    ]
  },
})
