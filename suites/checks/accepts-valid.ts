import { operationPointer, type JsonValue, type Spec } from '../../spec/index.js'
import { refusedBeyondInterface, requestContentBasis, undocumentedMediaType } from './beyond.js'
import { exchangeCheck, notJudged } from './check.js'
import { isObject, requestLine, show, undescribedFields, utf8Bytes } from './util.js'

/**
 * Names up to this size must be accepted, counted in UTF-8 bytes (never fewer than UTF-16 units or code
 * points, so a limit counted any of these ways is excused). Field size limits are not described, so a
 * 400 for a longer name is the target's choice (observed), not a failure.
 */
export const NAME_SIZE_FLOOR = 64

/**
 * True when a 400 for this NewPet may be a size limit rather than a broken rule: its name is past the size floor and
 * the spec sets no maxLength for it (a revision that does has described the limit, and every name within it is valid).
 */
export function mayHitSizeLimit(sent: JsonValue, spec: Spec): boolean {
  return (
    isObject(sent) &&
    typeof sent.name === 'string' &&
    utf8Bytes(sent.name) > NAME_SIZE_FLOOR &&
    spec.propertiesOf('NewPet').name?.maxLength === undefined
  )
}

/**
 * A valid NewPet sent as the documented media type is added: 201. That is `application/json`, in any letter case, also
 * with `charset=utf-8`; any other type (`+json`, a vendor type, another charset, none) is the target's choice
 * (createPet.media-type). A name past the size floor may meet a size limit: 400, or HTTP's 413 for a large body.
 */
export const acceptsValid = exchangeCheck({
  id: 'createPet.accepts-valid',
  title: 'createPet accepts every valid NewPet sent as application/json with 201',
  severity: 'fail',
  basis: (spec) => [
    ...requestContentBasis(spec, 'createPet'),
    { spec: operationPointer(spec, 'createPet', 'responses', '201') },
  ],
  on: {
    operation: 'createPet',
    needs: ['sent'],
    credential: 'valid',
    // A field the schema does not name may be refused: the interface is silent on it (createPet.unknown-field);
    // so may JSON whose reading parsers differ on (createPet.json-leeway).
    when: ({ exchange, facts }, spec) =>
      undescribedFields(spec, facts.sent).length === 0 &&
      facts.leeway === undefined &&
      !undocumentedMediaType(exchange, spec),
  },
  run: ({ exchange, response, facts: { sent } }, spec) => {
    if (response.status === 201) return []
    if ((response.status === 400 || response.status === 413) && mayHitSizeLimit(sent, spec))
      return notJudged(
        `${requestLine(exchange)} answered ${response.status} to a name past the size floor: a size limit`,
      )
    const beyond = refusedBeyondInterface(exchange, spec)
    if (beyond !== undefined) return notJudged(`${requestLine(exchange)}: ${beyond}`)
    return [
      `${requestLine(exchange)} with the valid NewPet ${show(sent).slice(0, 200)} answered ${response.status}; documented: 201 Pet`,
    ]
  },
})
