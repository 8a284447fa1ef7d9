import type { Check } from './check.js'
import { isObject, requestLine, show, utf8Bytes } from './util.js'

/**
 * Names up to this size must be accepted, counted in UTF-8 bytes (never fewer than UTF-16 units or code
 * points, so a limit counted any of these ways is excused). Field size limits are not described, so a
 * 400 for a longer name is the target's choice (observed), not a failure.
 */
export const NAME_SIZE_FLOOR = 64

/** True when a 400 for this NewPet may be a size limit rather than a broken rule. */
export function mayHitSizeLimit(sent: unknown): boolean {
  return isObject(sent as never) && typeof (sent as { name: unknown }).name === 'string' && utf8Bytes((sent as { name: string }).name) > NAME_SIZE_FLOOR
}

/** A valid NewPet is added: 201. */
export const acceptsValid: Check = {
  id: 'createPet.accepts-valid',
  title: 'createPet accepts every valid NewPet with 201',
  severity: 'fail',
  operationId: 'createPet',
  applies: ({ exchange }) => exchange?.response !== undefined,
  run: ({ exchange, sent }) => {
    const status = exchange!.response!.status
    if (status === 201 || (status === 400 && mayHitSizeLimit(sent))) return []
    const body = show(sent).slice(0, 200)
    return [`${requestLine(exchange!)} with the valid NewPet ${body} answered ${status}; documented: 201 Pet`]
  },
}
