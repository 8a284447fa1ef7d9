import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'

/** Observed: what a method no operation of the path documents gets (405, 401, 404, 204 for OPTIONS, ...). */
export const undocumentedMethod = exchangeCheck({
  id: 'methods.undocumented',
  title: 'A method the spec documents on no operation of the path (PUT, PATCH, DELETE, TRACE, HEAD, OPTIONS)',
  severity: 'observed',
  on: { operation: 'any', needs: ['otherMethod'] },
  subject: ({ exchange, facts }) =>
    `${exchange.request.method} ${facts.otherMethod}${exchange.credential === 'key' ? '' : ' without a key'}`,
  run: ({ exchange, response }) => {
    const allow = response.headers['allow']
    return [`${describeAnswer(exchange)}${allow === undefined ? '' : ` (Allow: ${allow})`}`]
  },
})
