import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'

/** Observed: what another spelling of a documented path gets (a trailing slash, a doubled slash, letter case, percent-encoding). */
export const pathVariant = exchangeCheck({
  id: 'paths.variant',
  title: 'Another spelling of a documented path (trailing slash, doubled slash, letter case, percent-encoding)',
  severity: 'observed',
  on: { operation: 'any', needs: ['pathVariant'] },
  subject: ({ exchange, facts }) => `${facts.pathVariant}${exchange.credential === 'key' ? '' : ' without a key'}`,
  run: ({ exchange }) => [describeAnswer(exchange)],
})
