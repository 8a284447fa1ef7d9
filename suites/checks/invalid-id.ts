import { exchangeCheck } from './check.js'
import { describeAnswer } from './observed.js'

/** Observed: which of the accepted answers the target gives to a petId outside its documented form. */
export const invalidId = exchangeCheck({
  id: 'getPet.invalid-id',
  title: 'getPet with a petId that is no int64 (not an integer, beyond int64, another spelling)',
  severity: 'observed',
  on: { operation: 'getPet', needs: ['petIdForm'], credential: 'valid' },
  subject: ({ facts }) => `GET /pets/{petId} with ${facts.petIdForm.kind}`,
  run: ({ exchange }) => [describeAnswer(exchange)],
})
