import { spec, operationPointer, type JsonValue } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { isObject, requestLine, show, undescribedFields, utf8Bytes } from './util.js'

/**
 * Names up to this size must be accepted, counted in UTF-8 bytes (never fewer than UTF-16 units or code
 * points, so a limit counted any of these ways is excused). Field size limits are not described, so a
 * 400 for a longer name is the target's choice (observed), not a failure.
 */
export const NAME_SIZE_FLOOR = 64

/** True when a 400 for this NewPet may be a size limit rather than a broken rule. */
export function mayHitSizeLimit(sent: JsonValue): boolean {
  return isObject(sent) && typeof sent.name === 'string' && utf8Bytes(sent.name) > NAME_SIZE_FLOOR
}

/** A valid NewPet is added: 201. */
export const acceptsValid = exchangeCheck({
  id: 'createPet.accepts-valid',
  title: 'createPet accepts every valid NewPet with 201',
  severity: 'fail',
  basis: [
    { spec: operationPointer(spec(), 'createPet', 'requestBody') },
    { spec: operationPointer(spec(), 'createPet', 'responses', '201') },
  ],
  on: {
    operation: 'createPet',
    needs: ['sent'],
    credential: 'valid',
    // A field the schema does not name may be refused: the interface is silent on it (createPet.unknown-field);
    // so may JSON whose reading parsers differ on (createPet.json-leeway).
    when: ({ facts }, spec) => undescribedFields(spec, facts.sent).length === 0 && facts.leeway === undefined,
  },
  run: ({ exchange, response, facts: { sent } }) => {
    if (response.status === 201 || (response.status === 400 && mayHitSizeLimit(sent))) return []
    return [
      `${requestLine(exchange)} with the valid NewPet ${show(sent).slice(0, 200)} answered ${response.status}; documented: 201 Pet`,
    ]
  },
})
