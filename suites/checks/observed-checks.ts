/**
 * Observed checks: where the interface says "not shown", they record what the target chose and never fail.
 * Each returns one sentence describing the choice.
 */
import type { Check } from './check.js'
import { describeAnswer } from './observed.js'
import { bodyOf, codePoints, idOf, integerText, isObject, listedPets, pageSize, show } from './util.js'

/** The status a pet gets when createPet omits it. */
export const statusDefault: Check = {
  id: 'createPet.status.default',
  title: 'Status of a new pet created without one',
  severity: 'observed',
  operationId: 'createPet',
  applies: ({ exchange }) => exchange?.response?.status === 201 && isObject(bodyOf(exchange)),
  run: ({ exchange }) => {
    const status = (bodyOf(exchange) as { status?: unknown }).status
    return [status === undefined ? 'no status' : `status ${show(status as never)}`]
  },
}

/** How the target assigns ids: ascending, dense, beyond 2^53, ... */
export const idScheme: Check = {
  id: 'createPet.id-scheme',
  title: 'How ids are assigned',
  severity: 'observed',
  operationId: 'createPet',
  applies: ({ ids }) => (ids ?? []).filter((id) => integerText(id) !== undefined).length >= 2,
  run: ({ ids }) => {
    const values = ids!.map(integerText).filter((t): t is string => t !== undefined).map(BigInt)
    const steps = values.slice(1).map((v, i) => v - values[i]!)
    const order = steps.every((s) => s > 0n) ? 'ascending' : steps.every((s) => s < 0n) ? 'descending' : 'not monotonic'
    const dense = steps.every((s) => s === 1n) ? ', step 1' : ''
    const big = values.some((v) => v > 2n ** 53n || v < -(2n ** 53n)) ? ', beyond 2^53' : ''
    const negative = values.some((v) => v < 0n) ? ', some negative' : ''
    return [`${order} integers${dense}${big}${negative} (e.g. ${values.slice(0, 3).join(', ')})`]
  },
}

/** Whether a long name is accepted: field size limits are not described. */
export const longName: Check = {
  id: 'createPet.name.long',
  title: 'A long name (field size limits are not described)',
  severity: 'observed',
  operationId: 'createPet',
  applies: ({ exchange, sent }) => exchange?.response !== undefined && isObject(sent) && typeof sent.name === 'string',
  run: ({ exchange, sent }) => [`name of ${codePoints((sent as { name: string }).name)} code points: ${describeAnswer(exchange!)}`],
}

/** Whether a NewPet with a field the schema does not name is accepted. */
export const unknownField: Check = {
  id: 'createPet.unknown-field',
  title: 'A NewPet with an extra, undescribed field',
  severity: 'observed',
  operationId: 'createPet',
  applies: ({ exchange }) => exchange?.response !== undefined,
  run: ({ exchange }) => {
    const body = bodyOf(exchange)
    const kept = exchange!.response!.status === 201 && isObject(body) && 'nickname' in body ? ' (echoed back)' : ''
    return [`${describeAnswer(exchange!)}${kept}`]
  },
}

/** Fields a Pet carries beyond the documented ones. */
export const extraFields: Check = {
  id: 'pet.extra-fields',
  title: 'Fields of a Pet beyond the documented ones',
  severity: 'observed',
  operationId: 'all',
  subject: 'Pet bodies',
  applies: ({ exchange }) => isObject(bodyOf(exchange)) && idOf(bodyOf(exchange)) !== undefined,
  run: ({ exchange }, spec) => {
    const documented = new Set(['id', ...Object.keys(spec.propertiesOf('NewPet'))])
    const extra = Object.keys(bodyOf(exchange) as object).filter((k) => !documented.has(k))
    return extra.length ? [`extra fields: ${extra.join(', ')}`] : []
  },
}

/** The order listPets returns pets in. */
export const ordering: Check = {
  id: 'listPets.ordering',
  title: 'Order of the listed pets',
  severity: 'observed',
  operationId: 'listPets',
  applies: ({ exchange }) => exchange?.response?.status === 200 && (listedPets(exchange)?.length ?? 0) >= 2,
  run: ({ exchange }) => {
    const ids = listedPets(exchange)!.map(idOf).filter((t): t is string => t !== undefined).map(BigInt)
    const steps = ids.slice(1).map((v, i) => v - ids[i]!)
    if (steps.every((s) => s > 0n)) return [`ascending by id (${ids.length} pets, ids ${ids[0]}..${ids.at(-1)})`]
    if (steps.every((s) => s < 0n)) return [`descending by id (${ids.length} pets, ids ${ids[0]}..${ids.at(-1)})`]
    return [`not ordered by id (${ids.length} pets, first ids ${ids.slice(0, 4).join(', ')})`]
  },
}

/** What listPets does with `limit` outside 1..100 or not an integer. */
export const limitOutOfRange: Check = {
  id: 'listPets.limit.out-of-range',
  title: 'listPets with limit outside its documented range',
  severity: 'observed',
  operationId: 'listPets',
  applies: ({ exchange }) => exchange !== undefined,
  run: ({ exchange }, spec) => {
    const pets = listedPets(exchange)
    const max = Number(spec.parameter('listPets', 'limit').maximum)
    const note = pets ? (pets.length === max ? ' (clamped to the maximum?)' : pets.length === pageSize(spec, undefined) ? ' (default page?)' : '') : ''
    return [`${describeAnswer(exchange!)}${note}`]
  },
}

/** What listPets does with a `status` outside the enumeration (other casing included). */
export const statusOutOfRange: Check = {
  id: 'listPets.status.out-of-range',
  title: 'listPets with status outside the enumeration',
  severity: 'observed',
  operationId: 'listPets',
  applies: ({ exchange }) => exchange !== undefined,
  run: ({ exchange }) => [describeAnswer(exchange!)],
}
