/** A likeness in words: what a twin adopted and could not mimic, for the start message and the admin route. */
import { inert } from './answer.js'
import type { Adopted, IdScheme, Likeness, NotMimicked, Order } from './likeness.js'

/** How a twin numbers its pets, in words. */
export function idWords(ids: IdScheme | undefined): string {
  switch (ids) {
    case undefined:
      return 'ids ascending from the seed (as the stub)'
    case 'beyond-2^53':
      return 'ids ascending beyond 2^53'
    case 'descending':
      return 'ids descending from 2^63 - 1'
    case 'random':
      return 'ids scattered over the positive int64 range'
    case 'signed':
      return 'ids scattered over the whole int64 range, negative ones included'
  }
}

/** The order a twin lists its pets in, in words. */
export function orderWords(order: Order | undefined): string {
  switch (order) {
    case undefined:
      return 'in the order pets were added'
    case 'newest-first':
      return 'newest first'
    case 'by-id':
      return 'sorted by id'
    case 'by-id-descending':
      return 'sorted by id, largest first'
    case 'scattered':
      return 'in a fixed order that follows neither id nor creation'
  }
}

/** The likeness as JSON data, for the admin route and the start message. */
export function likenessSummary(like: Likeness): {
  source: Likeness['source']
  adopted: Adopted[]
  notMimicked: NotMimicked[]
  warnings: string[]
} {
  return { source: like.source, adopted: like.adopted, notMimicked: like.notMimicked, warnings: like.warnings }
}

/** A few lines saying what a twin adopted and what it could not mimic, for the start message. */
export function likenessLines(like: Likeness): string[] {
  const lines = [
    `Like: the service at ${like.source.baseUrl ?? 'an unnamed target'} (report of ${like.source.tool} ${like.source.version}${like.source.startedAt ? `, ${like.source.startedAt}` : ''}): ${like.adopted.length} choices adopted, ${like.notMimicked.length} not mimicked`,
  ]
  const checks = [...new Set(like.adopted.map((a) => a.checkId))]
  for (const id of checks) {
    const items = like.adopted.filter((a) => a.checkId === id)
    lines.push(
      `  adopted ${id}: ${items.length === 1 ? items[0]!.choice : `${items.length} answers (${items[0]!.choice}, ...)`}`,
    )
  }
  for (const item of like.notMimicked)
    lines.push(`  not mimicked ${item.checkId}${item.subject ? ` (${item.subject})` : ''}: ${item.reason}`)
  for (const warning of like.warnings) lines.push(`  warning: ${warning}`)
  return lines.map(inert)
}
