import { refusesUndeclared } from '../values/index.js'
import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'
import { bodyOf, isObject, requestLine, undescribedFields } from './util.js'

/** Observed: whether a NewPet with a field the schema does not name is accepted, and whether it comes back. */
export const unknownField = exchangeCheck({
  id: 'createPet.unknown-field',
  title: 'A NewPet with an extra, undescribed field',
  severity: 'observed',
  // A NewPet closed to undeclared properties leaves no choice to observe: createPet.rejects-invalid sends one.
  inapplicable: (spec) =>
    refusesUndeclared(spec)
      ? "the spec's NewPet refuses undeclared properties; createPet.rejects-invalid judges a body with one"
      : undefined,
  on: {
    operation: 'createPet',
    needs: ['sent'],
    credential: 'valid',
    when: ({ facts }, spec) => undescribedFields(spec, facts.sent).length > 0,
  },
  subject: ({ exchange, facts }, spec) => {
    const fields = undescribedFields(spec, facts.sent)
    return `${requestLine(exchange)} with ${fields.length === 1 ? 'an undescribed field' : 'undescribed fields'} ${fields.map((f) => `"${f}"`).join(', ')}`
  },
  run: ({ exchange, response, facts }, spec) => {
    const body = bodyOf(exchange)
    const echoed =
      response.status === 201 && isObject(body) && undescribedFields(spec, facts.sent).some((field) => field in body)
    return [`${describeAnswer(exchange)}${echoed ? ' (echoed back)' : ''}`]
  },
})
