import { describeMediaType, undocumentedMediaType } from './beyond.js'
import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'

/**
 * Observed: what the target does with a valid NewPet sent as a media type the spec does not document (a `+json`
 * suffix, a vendor type, another charset, no Content-Type). Accepting or refusing it is the target's choice; a 5xx,
 * a pet stored by a refusal or data without a key are judged by their own checks.
 */
export const mediaType = exchangeCheck({
  id: 'createPet.media-type',
  title: 'A valid NewPet sent as a media type the spec does not document',
  severity: 'observed',
  on: {
    operation: 'createPet',
    needs: ['sent'],
    credential: 'valid',
    when: ({ exchange }, spec) => undocumentedMediaType(exchange, spec),
  },
  subject: ({ exchange }) => `POST /pets with ${describeMediaType(exchange)}`,
  run: ({ exchange }) => [`${describeMediaType(exchange)} -> ${describeAnswer(exchange)}`],
})
