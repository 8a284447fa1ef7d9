import { LARGE_BODY_BYTES, requestBodyBytes } from './beyond.js'
import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'
import { bodyOf, isObject, sameJson } from './util.js'

/** `1 MiB`, `70 KiB`, `900 bytes`: a size in words. */
export function size(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`
  return `${bytes} bytes`
}

/**
 * Observed: which limit a target applies to large createPet bodies (the interface states none). A valid one may be
 * added (and must then be echoed, createPet.echo) or refused with 400 or 413; an invalid one refused either way.
 */
export const largeBody = exchangeCheck({
  id: 'createPet.large-body',
  title: `A createPet body over ${size(LARGE_BODY_BYTES)} (size limits are not described)`,
  severity: 'observed',
  on: {
    operation: 'createPet',
    credential: 'valid',
    when: ({ exchange, facts }) =>
      (facts.sent !== undefined || facts.invalid !== undefined) && requestBodyBytes(exchange) > LARGE_BODY_BYTES,
  },
  subject: ({ exchange, facts }) =>
    `POST /pets with ${facts.sent !== undefined ? 'a valid NewPet' : 'an invalid body'} of ${size(requestBodyBytes(exchange))}`,
  run: ({ exchange, response, facts }) => {
    const sent = facts.sent
    const body = bodyOf(exchange)
    const echoed =
      response.status === 201 && isObject(sent) && isObject(body)
        ? sameJson(body.name, sent.name)
          ? ', name echoed whole'
          : ', name not echoed whole'
        : ''
    return [`${size(requestBodyBytes(exchange))} -> ${describeAnswer(exchange)}${echoed}`]
  },
})
