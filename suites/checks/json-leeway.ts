import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'

/**
 * Observed: a NewPet in a form JSON leaves to the parser (RFC 8259: a byte-order mark "MAY" be ignored, names
 * "SHOULD" be unique; JSON Schema counts 1.0 as an integer): accepted or refused, as the target chose. When accepted,
 * `createPet.echo` still holds it to the value sent.
 */
export const jsonLeeway = exchangeCheck({
  id: 'createPet.json-leeway',
  title:
    'createPet with JSON whose reading parsers may differ on (a byte-order mark, 1.0 or 1e2 for an integer, a duplicate key)',
  severity: 'observed',
  on: { operation: 'createPet', needs: ['leeway'], credential: 'valid' },
  subject: ({ facts }) => `POST /pets with ${facts.leeway}`,
  run: ({ exchange }) => [describeAnswer(exchange)],
})
