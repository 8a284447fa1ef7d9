import { exchangeCheck } from './check.js'
import { idOf, listedPets, requestLine } from './util.js'

/** Observed: the order listPets returns pets in (ordering is not described), read on unfiltered full-size pages. */
export const ordering = exchangeCheck({
  id: 'listPets.ordering',
  title: 'Order of the listed pets',
  severity: 'observed',
  inapplicable: (spec) => {
    const max = Number(spec.parameter('listPets', 'limit').maximum)
    return max < 2 ? `the spec caps limit at ${max}: no page lists two pets to show an order` : undefined
  },
  on: {
    operation: 'listPets',
    statuses: [200],
    needs: ['limit'],
    // The largest page, unfiltered, shows the most; smaller pages would only repeat it.
    when: ({ exchange, facts }, spec) =>
      facts.status === undefined &&
      facts.limit === Number(spec.parameter('listPets', 'limit').maximum) &&
      (listedPets(exchange)?.length ?? 0) >= 2,
  },
  subject: ({ exchange }) => `order of ${requestLine(exchange)}`,
  run: ({ exchange }) => {
    const ids = listedPets(exchange)!
      .map(idOf)
      .filter((t): t is string => t !== undefined)
      .map(BigInt)
    const steps = ids.slice(1).map((v, i) => v - ids[i]!)
    if (steps.every((s) => s > 0n)) return ['ascending by id']
    if (steps.every((s) => s < 0n)) return ['descending by id']
    return [`not ordered by id (first ids ${ids.slice(0, 4).join(', ')})`]
  },
})
