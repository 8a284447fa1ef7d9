import { exchangeCheck } from './check.js'
import { bodyOf, isObject, requestLine, show } from './util.js'

/** Observed: the status a pet gets when createPet omits it (the default is not described). */
export const statusDefault = exchangeCheck({
  id: 'createPet.status.default',
  title: 'Status of a new pet created without one',
  severity: 'observed',
  inapplicable: (spec) =>
    spec.requiredOf('NewPet').includes('status') ? 'the spec requires status, so no valid NewPet omits it' : undefined,
  on: {
    operation: 'createPet',
    statuses: [201],
    needs: ['sent'],
    when: ({ exchange, facts: { sent } }) => isObject(sent) && sent.status === undefined && isObject(bodyOf(exchange)),
  },
  subject: ({ exchange }) => `${requestLine(exchange)} without status`,
  run: ({ exchange }) => {
    const { status } = bodyOf(exchange) as { status?: Parameters<typeof show>[0] }
    return [status === undefined ? 'no status' : `status ${show(status)}`]
  },
})
