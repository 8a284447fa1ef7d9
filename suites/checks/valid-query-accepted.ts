import { type ParameterSchema, operationPointer, type Spec } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { queryOutsideRange, requestLine } from './util.js'

/** `limit within its bounds`, `status of the enumeration`: the documented values of a query parameter, in words. */
const documentedValues = (name: string, p: ParameterSchema) =>
  p.enum
    ? `every ${name} of the enumeration`
    : p.minimum !== undefined || p.maximum !== undefined
      ? `every ${name} within its bounds`
      : `every ${name}`

/** listPets' documented query parameters, by name. */
const queryOf = (spec: Spec) =>
  Object.entries(spec.operation('listPets').parameters).filter(([, p]) => p.in === 'query')

/** listPets answers 200 to every documented query: each parameter once, with a value its schema allows. */
export const validQueryAccepted = exchangeCheck({
  id: 'listPets.valid-query-accepted',
  title: (spec) =>
    `listPets answers 200 to ${queryOf(spec)
      .map(([name, p]) => documentedValues(name, p))
      .join(' and ')}`,
  severity: 'fail',
  basis: (spec) => [
    { spec: operationPointer(spec, 'listPets', 'parameters') },
    { spec: operationPointer(spec, 'listPets', 'responses', '200') },
  ],
  on: {
    operation: 'listPets',
    credential: 'valid',
    when: ({ exchange, operationId }, spec) => queryOutsideRange(spec, operationId, exchange.request.url).length === 0,
  },
  run: ({ exchange, response }) =>
    response.status === 200
      ? []
      : [`${requestLine(exchange)} (a documented query) answered ${response.status}; documented: 200 Pets`],
})
