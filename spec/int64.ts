/** The bounds of a signed 64-bit integer (OpenAPI `format: int64`), kept in one place. */

/** The smallest int64: -2^63. */
export const INT64_MIN = -(2n ** 63n)

/** The largest int64: 2^63 - 1. */
export const INT64_MAX = 2n ** 63n - 1n

/** True when `value` is an integer that fits in a signed 64-bit integer. */
export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX
}
