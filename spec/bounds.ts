/** Integer bounds however a schema writes them (inclusive, exclusive, or both). */
import type { Doc, ParameterSchema } from './shape.js'

/** An integer schema's bounds as written: inclusive, exclusive, or both. */
export interface IntegerBoundsSchema {
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
}

/**
 * The inclusive bounds an integer schema declares, exclusive ones read as the inclusive ones they mean
 * (`exclusiveMaximum: 101` is 100), the tighter one where it declares both; a side it does not bound is absent.
 */
export function declaredBounds(schema: IntegerBoundsSchema): { min?: bigint; max?: bigint } {
  const tighter = (a: bigint | undefined, b: bigint | undefined, pick: (x: bigint, y: bigint) => bigint) =>
    a === undefined ? b : b === undefined ? a : pick(a, b)
  const num = (value: unknown): value is number => typeof value === 'number'
  const min = tighter(
    num(schema.minimum) ? BigInt(Math.ceil(schema.minimum)) : undefined,
    num(schema.exclusiveMinimum) ? BigInt(Math.floor(schema.exclusiveMinimum)) + 1n : undefined,
    (x, y) => (x > y ? x : y),
  )
  const max = tighter(
    num(schema.maximum) ? BigInt(Math.floor(schema.maximum)) : undefined,
    num(schema.exclusiveMaximum) ? BigInt(Math.ceil(schema.exclusiveMaximum)) - 1n : undefined,
    (x, y) => (x < y ? x : y),
  )
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) }
}

/**
 * An integer parameter's range as `minimum` and `maximum`, however the spec writes its bounds, and its `multipleOf`
 * only where it rules some integers out (a whole step of 2 or more).
 */
export function inclusiveBounds(schema: Doc): Pick<ParameterSchema, 'minimum' | 'maximum' | 'multipleOf'> {
  if (schema.type !== 'integer') return {}
  const { min, max } = declaredBounds(schema)
  const step: unknown = schema.multipleOf
  return {
    ...(min === undefined ? {} : { minimum: Number(min) }),
    ...(max === undefined ? {} : { maximum: Number(max) }),
    multipleOf: Number.isInteger(step) && (step as number) > 1 ? (step as number) : undefined,
  }
}
