/**
 * A twin's id schemes as exact bijections over int64: the store keeps its own ids (1, 2, 3...), and the twin shows
 * each as the service would have numbered it, so lookups, order and persistence stay the store's.
 */
import type { IdScheme } from './likeness.js'

const TWO_53 = 2n ** 53n
const TWO_63 = 2n ** 63n
const TWO_64 = 2n ** 64n

/** Odd multipliers: multiplying by one is a bijection modulo a power of two. */
const A = 0x9e3779b97f4a7c15n
const B = 0xbf58476d1ce4e5b9n

/** The inverse of an odd `a` modulo 2^bits (Newton's iteration, 2-adic). */
function inverse(a: bigint, modulus: bigint): bigint {
  let x = a
  for (let i = 0; i < 7; i++) x = (x * (2n - a * x)) % modulus
  return ((x % modulus) + modulus) % modulus
}

/** A scrambling bijection on [0, 2^bits): multiply, xor-shift, multiply. 0 stays 0. */
function scrambler(bits: bigint): { forward: (x: bigint) => bigint; back: (y: bigint) => bigint } {
  const modulus = 1n << bits
  const a = (A % modulus) | 1n
  const b = (B % modulus) | 1n
  const aInv = inverse(a, modulus)
  const bInv = inverse(b, modulus)
  const shift = bits / 2n
  return {
    forward: (x) => {
      let y = (x * a) % modulus
      y ^= y >> shift
      return (y * b) % modulus
    },
    back: (y) => {
      let x = (y * bInv) % modulus
      x ^= (x >> shift) ^ (x >> (2n * shift)) // undoes the xor-shift (three shifts cover any width)
      return (x * aInv) % modulus
    },
  }
}

const POSITIVE = scrambler(63n)
const WHOLE = scrambler(64n)

/** How a scheme shows a store id, and which store id a shown one names (`undefined`: none). */
export interface IdMapping {
  shown(id: bigint): bigint
  stored(id: bigint): bigint | undefined
}

/** The mapping of a scheme. */
export function idMapping(scheme: IdScheme): IdMapping {
  switch (scheme) {
    case 'beyond-2^53':
      return { shown: (id) => id + TWO_53, stored: (id) => (id > TWO_53 ? id - TWO_53 : undefined) }
    case 'descending':
      return { shown: (id) => TWO_63 - id, stored: (id) => (id >= 1n ? TWO_63 - id : undefined) }
    case 'random':
      return {
        shown: (id) => (id >= 1n && id < TWO_63 ? POSITIVE.forward(id) : id),
        stored: (id) => (id >= 1n ? POSITIVE.back(id) : undefined),
      }
    case 'signed':
      return {
        shown: (id) => {
          const y = WHOLE.forward(((id % TWO_64) + TWO_64) % TWO_64)
          return y >= TWO_63 ? y - TWO_64 : y
        },
        stored: (id) => {
          const x = WHOLE.back(((id % TWO_64) + TWO_64) % TWO_64)
          return x >= TWO_63 ? x - TWO_64 : x
        },
      }
  }
}
