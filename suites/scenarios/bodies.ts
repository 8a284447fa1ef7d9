/**
 * createPet bodies, wider: every class of Unicode in names, categoryId at each int64 edge, `application/json` written
 * other ways (letter case, a UTF-8 charset): each added (201), echoed exactly and read back. Malformed JSON and
 * numbers a NewPet must not carry: 400, nothing stored. JSON whose reading parsers may differ on, media types the
 * spec does not document and bodies of 1 MiB: observed, never a 5xx, nothing stored by a refusal, and held to the
 * value sent when accepted. Size limits stay observed (a name far past the size floor).
 */
import type { Exchange } from '../../model/index.js'
import { stringifyJson, type JsonValue } from '../../spec/index.js'
import {
  categoryIdEdges,
  invalidNumbers,
  JSON_REQUEST_TYPES,
  leewayNumbers,
  malformedJson,
  OTHER_REQUEST_TYPES,
} from '../values/index.js'
import { size } from '../checks/large-body.js'
import { idOf } from '../checks/util.js'
import { scenario, type Scenario } from '../engine/scenario.js'
import { lookForStored, NEW_PET_FIXTURES as fixtures, sentinel } from './probes.js'

/** A name this run can be traced by, then `rest`. */
const named = (s: Scenario, rest: string) => `${s.prefix}${rest}`

/** Reads a created pet back (getPet.returns-created judges it), when the target created one. */
async function readBack(s: Scenario, exchange: Exchange): Promise<void> {
  const id = exchange.response?.status === 201 && exchange.json.kind === 'json' ? idOf(exchange.json.value) : undefined
  if (id !== undefined) await s.getPet(id)
}

export const widerValidBodies = scenario({
  name: 'createPet adds every class of Unicode name, categoryId at each int64 edge and application/json written other ways, echoes each exactly, and getPet returns it',
  area: 'probe',
  operations: ['createPet'],
  uses: ['getPet'],
  states: ['sent'],
  async run(s) {
    const statuses = s.spec.enumOf('PetStatus')
    const bodies: { body: JsonValue; contentType?: string }[] = [
      ...fixtures.names.map(({ name }, i) => ({
        body: { name: named(s, name), categoryId: BigInt(i), status: statuses[i % statuses.length]! },
      })),
      ...categoryIdEdges(s.spec).map((categoryId) => ({ body: { name: named(s, `edge ${categoryId}`), categoryId } })),
      ...JSON_REQUEST_TYPES.map((contentType, i) => ({
        body: { name: named(s, `as ${contentType}`), categoryId: 40n + BigInt(i), status: statuses[i]! },
        contentType,
      })),
      // Far past the size floor: a 400 here is a size limit, observed (createPet.name.long); a 201 must echo it all.
      { body: { name: named(s, 'long '.repeat(3200)), categoryId: 50n } },
    ]
    for (const { body, contentType } of bodies) {
      const { exchange } = await s.createValid(body, contentType ? { contentType } : {})
      await readBack(s, exchange)
    }
  },
})

export const malformedBodiesRefused = scenario({
  name: 'malformed JSON and categoryIds beyond int64 or with a fraction, written every way: createPet refuses them with 400 and stores nothing',
  area: 'probe',
  operations: ['createPet'],
  uses: ['listPets', 'getPet'],
  states: ['sent', 'invalid', 'storedAfter'],
  async run(s) {
    const marker = named(s, 'raw-')
    const before = await sentinel(s, 'raw-before')
    const sent = new Map<string, Exchange>()
    const base = (tag: string) => stringifyJson({ name: `${marker}${tag}-Rex`, categoryId: 1n })
    for (const [i, shape] of malformedJson().entries())
      sent.set(`m${i}`, await s.createInvalid(shape.render(base(`m${i}`)), shape.why))
    for (const [i, number] of invalidNumbers(s.spec).entries()) {
      const tag = `n${i}`
      sent.set(
        tag,
        await s.createInvalid(base(tag).replace(/"categoryId":1\}$/, `"categoryId":${number.text}}`), number.why),
      )
    }
    await lookForStored(s, marker, sent, before, ['createPet.invalid-stores-nothing'])
  },
})

export const jsonLeeway = scenario({
  name: 'createPet with JSON whose reading parsers may differ on: a byte-order mark, integers written 1.0 or 1e2, a duplicate key; nothing stored by a refusal',
  area: 'probe',
  operations: ['createPet'],
  uses: ['listPets', 'getPet'],
  states: ['sent', 'leeway', 'storedAfter'],
  async run(s) {
    const marker = named(s, 'leeway-')
    const before = await sentinel(s, 'leeway-before')
    const sent = new Map<string, Exchange>()
    const bom = { name: `${marker}b-after a byte-order mark`, categoryId: 60n }
    const withBom = await s.createPet(undefined, {
      raw: `\uFEFF${stringifyJson(bom)}`,
      facts: { sent: bom, leeway: 'a byte-order mark before the JSON text (RFC 8259 §8.1: a parser MAY ignore it)' },
    })
    sent.set('b', withBom)
    await readBack(s, withBom)
    for (const [i, { why, text, value }] of leewayNumbers(s.spec).entries()) {
      const body = { name: `${marker}n${i}-${why}`, categoryId: value }
      const raw = stringifyJson(body).replace(/"categoryId":-?[0-9]+\}$/, `"categoryId":${text}}`)
      const exchange = await s.createPet(undefined, { raw, facts: { sent: body, leeway: why } })
      sent.set(`n${i}`, exchange)
      await readBack(s, exchange)
    }
    // Which of two names wins is the parser's choice (RFC 8259 §4: names SHOULD be unique): observed only.
    const twice = `{"name":${JSON.stringify(`${marker}d-first of two names`)},"name":${JSON.stringify(`${marker}d-second of two names`)},"categoryId":61}`
    sent.set(
      'd',
      await s.createPet(undefined, {
        raw: twice,
        facts: { leeway: 'a duplicate key (RFC 8259 §4: names SHOULD be unique)' },
      }),
    )
    // Accepting or refusing each is the target's choice; a refusal must still store nothing.
    await lookForStored(s, marker, sent, before, ['createPet.refused-stores-nothing'])
  },
})

/** True when the target answered with an error status: a refusal. */
const refused = (exchange: Exchange) => (exchange.response?.status ?? 0) >= 400

export const mediaTypes = scenario({
  name: 'createPet with media types the spec does not document (a vendor +json type, another charset, text/plain, none): observed; never a 5xx, nothing stored by a refusal or without a key',
  area: 'probe',
  operations: ['createPet'],
  uses: ['listPets', 'getPet'],
  states: ['sent', 'storedAfter'],
  credentials: ['valid', 'invalid'],
  async run(s) {
    const marker = named(s, 'media-')
    const before = await sentinel(s, 'media-before')
    const sent = new Map<string, Exchange>()
    const as = (contentType: string) => `as ${contentType || 'no Content-Type'}`
    for (const [i, contentType] of OTHER_REQUEST_TYPES.entries()) {
      const body = { name: `${marker}t${i}-${as(contentType)}`, categoryId: 80n + BigInt(i) }
      const { exchange } = await s.createValid(body, { contentType })
      sent.set(`t${i}`, exchange)
      await readBack(s, exchange)
    }
    // Without a key: 401, or HTTP's own refusal of the media type; either way nothing stored and no pet shown.
    const unauthenticated = [
      { contentType: OTHER_REQUEST_TYPES[0], credential: 'none' },
      { contentType: '', credential: 'wrong' },
    ] as const
    for (const [i, { contentType, credential }] of unauthenticated.entries()) {
      const body = { name: `${marker}u${i}-${as(contentType)}`, categoryId: 1n }
      sent.set(`u${i}`, await s.createPet(body, { contentType, credential }))
    }
    await lookForStored(s, marker, sent, before, ['createPet.refused-stores-nothing', 'createPet.auth.stores-nothing'])
    if (![...sent].some(([tag, exchange]) => tag.startsWith('t') && refused(exchange)))
      s.premiseMissing(['createPet.refused-stores-nothing'], 'the target refused none of the media types sent')
  },
})

/** The size of the large bodies sent: far past the limits servers and proxies apply by default (64 KiB to 1 MiB). */
export const LARGE_BODY = 1024 * 1024

export const largeBodies = scenario({
  name: 'createPet with bodies of 1 MiB, a valid NewPet (a name of 1 MiB) and an invalid one: the limit applied is observed; never a 5xx, nothing stored by a refusal',
  area: 'probe',
  operations: ['createPet'],
  uses: ['listPets', 'getPet'],
  states: ['sent', 'invalid', 'storedAfter'],
  async run(s) {
    const marker = named(s, 'large-')
    const before = await sentinel(s, 'large-before')
    const sent = new Map<string, Exchange>()
    const valid = { name: `${marker}v-`.padEnd(LARGE_BODY, 'x'), categoryId: 90n }
    const { exchange } = await s.createValid(valid)
    sent.set('v', exchange)
    const invalid = stringifyJson({ name: `${marker}i-`.padEnd(LARGE_BODY, 'x'), categoryId: 'not an integer' })
    sent.set('i', await s.createInvalid(invalid, `a body of ${LARGE_BODY} bytes whose categoryId is a string`))
    await readBack(s, exchange)
    if ([...sent.values()].some((e) => !e.response))
      s.premiseMissing(
        ['createPet.large-body'],
        `the target closed the connection on the bodies of ${size(LARGE_BODY)} before answering (see transport.ok's observations)`,
      )
    await lookForStored(s, marker, sent, before, [
      'createPet.refused-stores-nothing',
      'createPet.invalid-stores-nothing',
    ])
    if (!refused(exchange))
      s.premiseMissing(
        ['createPet.refused-stores-nothing'],
        exchange.response
          ? 'the target took a valid NewPet of 1 MiB'
          : 'the target closed the connection on a valid NewPet of 1 MiB before answering',
      )
  },
})

export const BODIES = [widerValidBodies, malformedBodiesRefused, jsonLeeway, mediaTypes, largeBodies]
