/** Query values built from the spec: `limit` within its range, and `limit` and `status` texts outside it. */
import fc from 'fast-check'
import { INT64_MAX, type Spec } from '../../spec/index.js'

/** A `limit` inside its documented range (a multiple of its `multipleOf`, when it has one). */
export function listLimit(spec: Spec): fc.Arbitrary<number> {
  const { minimum, maximum, multipleOf: step = 1 } = spec.parameter('listPets', 'limit')
  return fc
    .integer({ min: Math.ceil(Number(minimum) / step), max: Math.floor(Number(maximum) / step) })
    .map((k) => k * step)
}

/** `limit` values outside the documented range or not integers: the interface does not say what happens. */
export function outOfRangeLimits(spec: Spec): string[] {
  const { minimum, maximum } = spec.parameter('listPets', 'limit')
  return [String(Number(minimum) - 1), '-1', String(Number(maximum) + 1), '1000000', 'abc', '1.5', '']
}

/** `status` values outside the enumeration: another casing, unknown, empty. */
export function outOfRangeStatuses(spec: Spec): string[] {
  const first = spec.enumOf('PetStatus')[0]!
  return [first.toUpperCase(), first[0]!.toUpperCase() + first.slice(1), 'lost', '']
}

/** `limit` texts a listPets query may carry that are not a documented value, beyond the basic out-of-range ones. */
export function oddLimits(spec: Spec): string[] {
  const { maximum } = spec.parameter('listPets', 'limit')
  return [
    '1.0',
    '1e1',
    '+1',
    '01',
    ' 1',
    '1 ',
    '0x10',
    'true',
    '[1]',
    'NaN',
    String(2n ** 31n),
    String(INT64_MAX + 1n),
    String(-(2n ** 31n) - 1n),
    `${maximum}.0`,
    '\uff11',
  ]
}

/** `status` texts near the enumeration's values: truncated, extended, padded, combined, other case, other types. */
export function oddStatuses(spec: Spec): string[] {
  const [first, second] = spec.enumOf('PetStatus') as [string, string]
  return [
    first.slice(0, -1),
    `${first}e`,
    ` ${first}`,
    `${first} `,
    `${first},${second}`,
    first.toUpperCase(),
    'null',
    '1',
    `[${first}]`,
  ]
}
