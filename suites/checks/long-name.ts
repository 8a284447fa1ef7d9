import { mayHitSizeLimit } from './accepts-valid.js'
import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'
import { codePoints, isObject, requestLine, utf8Bytes } from './util.js'

/** The name a NewPet carries, or '' when it has none. */
const nameOf = (sent: Parameters<typeof isObject>[0]) =>
  isObject(sent) && typeof sent.name === 'string' ? sent.name : ''

/** Observed: what the target does with a name beyond the size every target must accept (limits are not described). */
export const longName = exchangeCheck({
  id: 'createPet.name.long',
  title: 'A long name (field size limits are not described)',
  severity: 'observed',
  inapplicable: (spec) => {
    const max = spec.propertiesOf('NewPet').name?.maxLength
    return max === undefined
      ? undefined
      : `the spec bounds name at ${max} characters: a longer one is invalid, and every one within must be taken`
  },
  on: {
    operation: 'createPet',
    needs: ['sent'],
    credential: 'valid',
    when: ({ facts }, spec) => mayHitSizeLimit(facts.sent, spec),
  },
  subject: ({ exchange, facts }) =>
    `${requestLine(exchange)} with a name of ${utf8Bytes(nameOf(facts.sent))} UTF-8 bytes`,
  run: ({ exchange, facts }) => [`name of ${codePoints(nameOf(facts.sent))} code points: ${describeAnswer(exchange)}`],
})
