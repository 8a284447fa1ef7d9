/**
 * Every parameter, negative and at its boundaries. petId: int64 at both ends and beyond, text that is no integer,
 * other spellings of integers, other scripts' digits; limit and status: wrong types, near misses, whitespace,
 * repeated, bare. The interface documents the answer to a petId that identifies no animal (404), and only that:
 * the rest is observed, never a 5xx, with an Error body whenever the status is a documented error status.
 */
import { INT64_MAX, INT64_MIN } from '../../spec/index.js'
import { oddLimits, oddStatuses } from '../values/index.js'
import type { Facts } from '../checks/check.js'
import { idOf, listedPets } from '../checks/util.js'
import { scenario, type Scenario } from '../engine/scenario.js'

/** A petId as written in the path (percent-encoded where it must be), and what it is. */
interface PetIdProbe {
  text: string
  form: NonNullable<Facts['petIdForm']>
}

const NOT_AN_INTEGER = 'a petId that is not an integer'
const BEYOND_INT64 = 'an integer beyond int64'
const SPELLING =
  'another spelling of an integer (sign, leading zeros, padding, fraction, exponent, hexadecimal, other digits)'

/** petIds outside their documented form (a canonical int64), around an id `known` to exist. */
function malformedPetIds(known: bigint): PetIdProbe[] {
  const not = (text: string): PetIdProbe => ({ text, form: { kind: NOT_AN_INTEGER } })
  const beyond = (n: bigint): PetIdProbe => ({ text: String(n), form: { kind: BEYOND_INT64 } })
  const spelled = (text: string, spells: bigint): PetIdProbe => ({
    text,
    form: { kind: SPELLING, spells: String(spells) },
  })
  return [
    // Texts a lenient parser reads a number from (parseInt("7a") is 7): the known id, so a pet would show.
    ...[`${known}a`, `${known}.5`, `${known},2`, `${known}-`, `${known}e-1`].map(not),
    ...['abc', 'true', 'null', '-', '--1', 'NaN', 'Infinity'].map(not),
    beyond(INT64_MAX + 1n),
    beyond(INT64_MIN - 1n),
    beyond(2n ** 64n),
    beyond(2n ** 70n),
    beyond(BigInt('9'.repeat(400))),
    spelled(`00${known}`, known),
    spelled(`+${known}`, known),
    spelled('-0', 0n),
    spelled(`${'0'.repeat(60)}${known}`, known),
    spelled(`${known}.0`, known),
    spelled(`${known}e0`, known),
    // Hexadecimal, as JavaScript's Number() and so Ajv's coercion of an integer parameter (Fastify's) read it.
    spelled(known < 0n ? `-0x${(-known).toString(16)}` : `0x${known.toString(16)}`, known),
    spelled(`%20${known}`, known),
    spelled(`${known}%20`, known),
    // Digits of other scripts: Arabic-Indic and fullwidth (Unicode Nd), which some parsers read as ASCII digits.
    spelled(
      encodeURIComponent(String(known).replace(/[0-9]/g, (d) => String.fromCodePoint(0x0660 + Number(d)))),
      known,
    ),
    spelled(
      encodeURIComponent(String(known).replace(/[0-9]/g, (d) => String.fromCodePoint(0xff10 + Number(d)))),
      known,
    ),
  ]
}

/** Sends getPet with a petId written exactly as given (no encoding on the way), stating what it is. */
function getRaw(s: Scenario, text: string, form?: PetIdProbe['form']) {
  const op = s.spec.operation('getPet')
  return s.send(
    { operationId: 'getPet', method: op.method, path: op.path.replace(/\{[^}]+\}/, text) },
    form ? { facts: { petIdForm: form } } : {},
  )
}

export const petIdEdges = scenario({
  name: 'petIds of every kind to getPet: int64 at both ends, beyond it, not an integer, other spellings',
  area: 'probe',
  operations: ['getPet'],
  uses: ['listPets'],
  states: ['petIdForm'],
  credentials: ['valid', 'invalid'],
  async run(s) {
    const listed = listedPets(await s.listPets([['limit', '10']])) ?? []
    const known = BigInt(idOf(listed[0]) ?? '1')
    // Documented petIds at the edges: 200 with that very pet, or 404 (status-documented, id-matches).
    await Promise.all(
      ['0', '-1', String(INT64_MIN), String(INT64_MAX), String(2n ** 53n + 1n)].map((id) => s.getPet(id)),
    )
    await Promise.all(malformedPetIds(known).map(({ text, form }) => getRaw(s, text, form)))
    // The key comes before the lookup: an id no pet has, without a valid key, is still a 401 (getPet.auth.required).
    const absent = s.run.unknownId(4_242n)
    await Promise.all((['none', 'wrong'] as const).map((credential) => s.getPet(absent, { credential })))
  },
})

export const queryEdges = scenario({
  name: 'listPets with limit and status written every other way: types, near misses, whitespace, repeated, bare',
  area: 'probe',
  operations: ['listPets'],
  async run(s) {
    const [first, second] = s.spec.enumOf('PetStatus') as [string, string]
    await Promise.all([
      ...oddLimits(s.spec).map((limit) => s.listPets([['limit', limit]])),
      ...oddStatuses(s.spec).map((status) => s.listPets([['status', status]])),
    ])
    const raw = (rawQuery: string) =>
      s.send({ operationId: 'listPets', method: 'GET', path: s.spec.operation('listPets').path, rawQuery })
    // Repeated and bare names; `+` for a space; both out of range at once.
    await Promise.all(
      [
        'limit=1&limit=2',
        'limit=5&limit=5',
        'limit',
        `status=${first}&status=${second}`,
        `status=${first}&status=${first}`,
        'status',
        `status=+${first}`,
        'limit=0&status=lost',
      ].map(raw),
    )
  },
})

export const PARAMETERS = [petIdEdges, queryEdges]
