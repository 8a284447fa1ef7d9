import { exchangeCheck } from './check.js'
import { bodyOf, idOf, isObject } from './util.js'

/** Observed: fields a Pet carries beyond the documented ones. */
export const extraFields = exchangeCheck({
  id: 'pet.extra-fields',
  title: 'Fields of a Pet beyond the documented ones',
  severity: 'observed',
  // The operations that answer one Pet.
  on: { operation: ['createPet', 'getPet'], when: ({ exchange }) => idOf(bodyOf(exchange)) !== undefined },
  subject: () => 'Pet bodies',
  run: ({ exchange }, spec) => {
    const body = bodyOf(exchange)
    const documented = new Set(['id', ...Object.keys(spec.propertiesOf('NewPet'))])
    const extra = isObject(body) ? Object.keys(body).filter((k) => !documented.has(k)) : []
    return extra.length ? [`extra fields: ${extra.join(', ')}`] : []
  },
})
