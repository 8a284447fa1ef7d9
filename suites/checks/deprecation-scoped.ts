import { basisOf, operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { deprecatedOperations, requestLine } from './util.js'

/** Only the deprecated operation says it is deprecated: the others carry no Deprecation or Sunset. */
export const deprecationScoped = exchangeCheck({
  id: 'headers.deprecation-scoped',
  title: (spec) =>
    `Deprecation and Sunset appear only on the deprecated ${deprecatedOperations(spec).join(' and ') || 'operations (none)'}`,
  severity: 'advice',
  basis: (spec) =>
    basisOf([
      ...deprecatedOperations(spec).map((op) => ({ spec: operationPointer(spec, op, 'deprecated') })),
      { rfc: 'RFC 9745 §2' },
    ]),
  // Every operation the judged spec does not deprecate: a revision may deprecate another one, or none.
  on: {
    operation: 'all',
    when: ({ operationId }, spec) => !spec.operation(operationId).deprecated,
  },
  inapplicable: (spec, operations) =>
    operations.every((op) => spec.operation(op).deprecated)
      ? `the spec deprecates every operation judged (${operations.join(', ')})`
      : undefined,
  run: ({ exchange, response, operationId }) => {
    const found = ['deprecation', 'sunset'].filter((name) => response.headers[name] !== undefined)
    if (!found.length) return []
    return [
      `${requestLine(exchange)} (${operationId}, not deprecated) answered with ${found.map((n) => `${n} "${response.headers[n]}"`).join(' and ')}`,
    ]
  },
})
