import type { Check } from './check.js'

/** Observed: whether `bearer` (lower case) is accepted; RFC 9110 makes schemes case-insensitive, the interface writes `Bearer`. */
export const authSchemeCase: Check = {
  id: 'auth.scheme-case',
  title: 'Authorization scheme written in lower case ("bearer")',
  severity: 'observed',
  operationId: 'all',
  applies: ({ exchange }) => exchange?.response !== undefined,
  run: ({ exchange }) => {
    const status = exchange!.response!.status
    return [status === 401 ? 'rejected: 401' : status < 300 ? `accepted: ${status}` : `answered ${status}`]
  },
}
