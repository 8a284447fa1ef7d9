import { exchangeCheck } from './check.js'
import { idOf, listedPets, requestLine } from './util.js'

/** Observed: the order listPets returns pets in (ordering is not described). */
export const ordering = exchangeCheck({
  id: 'listPets.ordering',
  title: 'Order of the listed pets',
  severity: 'observed',
  on: { operation: 'listPets', statuses: [200], when: ({ exchange }) => (listedPets(exchange)?.length ?? 0) >= 2 },
  subject: ({ exchange }) => `order of ${requestLine(exchange)}`,
  run: ({ exchange }) => {
    const ids = listedPets(exchange)!.map(idOf).filter((t): t is string => t !== undefined).map(BigInt)
    const steps = ids.slice(1).map((v, i) => v - ids[i]!)
    if (steps.every((s) => s > 0n)) return [`ascending by id (${ids.length} pets, ids ${ids[0]}..${ids.at(-1)})`]
    if (steps.every((s) => s < 0n)) return [`descending by id (${ids.length} pets, ids ${ids[0]}..${ids.at(-1)})`]
    return [`not ordered by id (${ids.length} pets, first ids ${ids.slice(0, 4).join(', ')})`]
  },
})
