import { operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { requestLine } from './util.js'

/** getPet of an id no pet has answers 404. */
export const unknown404 = exchangeCheck({
  id: 'getPet.unknown-404',
  title: 'getPet of an unknown id answers 404',
  severity: 'fail',
  basis: (spec) => [{ spec: operationPointer(spec, 'getPet', 'responses', '404') }],
  on: { operation: 'getPet', needs: ['unknown'], credential: 'valid' },
  run: ({ exchange, response }) =>
    response.status === 404
      ? []
      : [`${requestLine(exchange)} of an id no pet has answered ${response.status}; documented: 404 Error`],
})
