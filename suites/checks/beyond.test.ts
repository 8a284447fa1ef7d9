import { describe, expect, it } from 'vitest'
import type { Exchange } from '../../model/index.js'
import { spec, stringifyJson, type JsonValue } from '../../spec/index.js'
import { bySpec } from './check.js'
import { acceptsValid } from './accepts-valid.js'
import { createPetAuthRequired } from './auth-required.js'
import {
  documentedMediaType,
  parseMediaType,
  refusedBeyondInterface,
  requestContentBasis,
  requestMediaTypes,
} from './beyond.js'
import { contentTypeJson } from './content-type.js'
import { invalidIdRefused } from './invalid-id-refused.js'
import { largeBody } from './large-body.js'
import { mediaType } from './media-type.js'
import { refusedStoresNothing } from './refused-stores-nothing.js'
import { rejectsInvalid } from './rejects-invalid.js'
import { statusDocumented } from './status-documented.js'
import { errorBody, exchangeOf, judge, type ExchangeParts } from './test-support.js'

const MiB = 1024 * 1024
const pet = { name: 'Rex', categoryId: 1n }
const petText = stringifyJson(pet)

/** A createPet exchange whose request carried `body` as `contentType` (`''`: no Content-Type). */
function create(
  contentType: string,
  status: number,
  options: { body?: string; answer?: JsonValue; raw?: string; parts?: ExchangeParts } = {},
): Exchange {
  const answer = options.answer ?? (status === 201 ? { id: 7, ...pet } : errorBody(status))
  const exchange = exchangeOf({
    operationId: 'createPet',
    status,
    ...(options.raw === undefined ? { body: answer } : { raw: options.raw }),
    ...options.parts,
  })
  const headers = { ...exchange.request.headers, ...(contentType ? { 'content-type': contentType } : {}) }
  return { ...exchange, request: { ...exchange.request, headers, body: options.body ?? petText } }
}

describe('the documented request media type', () => {
  it('is read from the spec, with the pointer a failure names', () => {
    expect(requestMediaTypes(spec(), 'createPet')).toEqual(['application/json'])
    expect(requestMediaTypes(spec(), 'listPets')).toEqual([])
    expect(requestContentBasis(spec(), 'createPet')).toEqual([
      { spec: '#/paths/~1pets/post/requestBody/content/application~1json' },
    ])
  })

  it('is application/json as the spec writes it, with a UTF-8 charset in any letter case at most', () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json ; CHARSET="utf-8"',
    ])
      expect(documentedMediaType(spec(), 'createPet', type), type).toBe(true)
    for (const type of [
      'application/vnd.petstore+json',
      'Application/JSON', // the same type (RFC 9110 §8.3.1), refused as written by mainstream validators: observed
      'application/json; charset=iso-8859-1',
      'application/json; profile=x',
      'text/plain',
      'text/json',
      'json',
      '',
    ])
      expect(documentedMediaType(spec(), 'createPet', type), type).toBe(false)
  })

  it('parses parameters, quoted or not', () => {
    expect(parseMediaType('Application/Vnd.A+JSON; Charset="UTF-8"; q')).toEqual({
      essence: 'application/vnd.a+json',
      written: 'Application/Vnd.A+JSON',
      parameters: [
        ['charset', 'UTF-8'],
        ['q', ''],
      ],
    })
    expect(parseMediaType('not a type')).toBeUndefined()
  })
})

describe('refusedBeyondInterface', () => {
  it('names 413 to a body over the floor, 415 to an undocumented type, 414 to a long target, 431 to large headers', () => {
    const large = stringifyJson({ name: 'x'.repeat(MiB), categoryId: 1n })
    expect(refusedBeyondInterface(create('application/json', 413, { body: large }), spec())).toMatch(/^413 to a body/)
    expect(refusedBeyondInterface(create('text/plain', 415), spec())).toMatch(/^415 to a body sent with text\/plain/)
    expect(refusedBeyondInterface(create('', 415), spec())).toMatch(/no Content-Type/)
    const longId = exchangeOf({ operationId: 'getPet', path: `/pets/${'9'.repeat(400)}`, status: 414 })
    expect(refusedBeyondInterface(longId, spec())).toMatch(/^414 to a request target of 406 characters/)
    const big = exchangeOf({ operationId: 'listPets', status: 431 })
    const padded = { ...big, request: { ...big.request, headers: { 'x-padding': 'p'.repeat(16 * 1024) } } }
    expect(refusedBeyondInterface(padded, spec())).toMatch(/^431 to \d+ bytes of header fields/)
  })

  it('names nothing for input within the interface, or another status', () => {
    expect(refusedBeyondInterface(create('application/json', 413), spec())).toBeUndefined()
    expect(refusedBeyondInterface(create('application/json; charset=UTF-8', 415), spec())).toBeUndefined()
    expect(refusedBeyondInterface(exchangeOf({ operationId: 'getPet', status: 414 }), spec())).toBeUndefined()
    expect(refusedBeyondInterface(exchangeOf({ operationId: 'listPets', status: 431 }), spec())).toBeUndefined()
    expect(refusedBeyondInterface(create('text/plain', 400), spec())).toBeUndefined()
    expect(refusedBeyondInterface(create('text/plain', 500), spec())).toBeUndefined()
    // A 415 to a request without a body: no media type was refused.
    expect(refusedBeyondInterface(create('', 415, { body: '' }), spec())).toBeUndefined()
  })
})

describe(`${acceptsValid.id} and the media type`, () => {
  it('wants 201 for application/json written any documented way, and names the request content as its basis', () => {
    expect(judge(acceptsValid, create('application/json; charset=UTF-8', 201), { sent: pet })).toEqual([])
    expect(judge(acceptsValid, create('Application/JSON', 415), { sent: pet })).toBe('n/a')
    expect(judge(acceptsValid, create('application/json;charset=UTF-8', 415), { sent: pet })).toEqual([
      'POST /pets with the valid NewPet {"name":"Rex","categoryId":1} answered 415; documented: 201 Pet',
    ])
    expect(judge(acceptsValid, create('application/json; charset=utf-8', 400), { sent: pet })).toHaveLength(1)
    expect(bySpec(acceptsValid.basis!, spec())[0]).toEqual({
      spec: '#/paths/~1pets/post/requestBody/content/application~1json',
    })
  })

  it('does not judge a media type the spec does not document: refusing it is the target choice', () => {
    for (const type of ['application/vnd.petstore+json', 'application/json; charset=iso-8859-1', 'text/plain', ''])
      for (const status of [400, 415])
        expect(judge(acceptsValid, create(type, status), { sent: pet }), `${type} ${status}`).toBe('n/a')
  })

  it('excuses 413 (and 400) for a name of 1 MiB, never a 5xx', () => {
    const sent = { name: 'x'.repeat(MiB), categoryId: 1n }
    const body = stringifyJson(sent)
    expect(judge(acceptsValid, create('application/json', 413, { body }), { sent })).toMatch(/^not judged: /)
    expect(judge(acceptsValid, create('application/json', 400, { body }), { sent })).toMatch(/^not judged: /)
    expect(judge(acceptsValid, create('application/json', 500, { body }), { sent })).toHaveLength(1)
    expect(judge(acceptsValid, create('application/json', 413), { sent: pet })).toHaveLength(1)
  })
})

describe(mediaType.id, () => {
  it('records what the target did with each undocumented media type', () => {
    expect(judge(mediaType, create('application/vnd.petstore+json', 415), { sent: pet })).toEqual([
      'application/vnd.petstore+json -> 415 Error (code "some_code")',
    ])
    expect(judge(mediaType, create('', 201), { sent: pet })).toEqual(['no Content-Type -> 201 Pet (id 7)'])
    expect(mediaType.subject!({ exchange: create('text/plain', 400) } as never, spec())).toBe(
      'POST /pets with text/plain',
    )
  })

  it('leaves the documented type to createPet.accepts-valid', () => {
    expect(judge(mediaType, create('application/json; charset=utf-8', 201), { sent: pet })).toBe('n/a')
  })
})

describe(refusedStoresNothing.id, () => {
  const vendor = (status: number) => create('application/vnd.petstore+json', status)
  it('fails a refused valid NewPet that was stored all the same', () => {
    const stored = { id: 9, ...pet }
    expect(judge(refusedStoresNothing, vendor(415), { sent: pet, storedAfter: stored })).toEqual([
      'createPet with a valid NewPet of 29 bytes sent with application/vnd.petstore+json answered 415, yet the pet was stored: {"id":9,"name":"Rex","categoryId":1}',
    ])
    expect(judge(refusedStoresNothing, vendor(413), { sent: pet, storedAfter: stored })).toHaveLength(1)
    expect(judge(refusedStoresNothing, vendor(400), { sent: pet, storedAfter: null })).toEqual([])
  })

  it('does not judge an accepted one, one without a look, or one without the key', () => {
    expect(judge(refusedStoresNothing, vendor(201), { sent: pet, storedAfter: { id: 7, ...pet } })).toBe('n/a')
    expect(judge(refusedStoresNothing, vendor(415), { sent: pet })).toBe('n/a')
    const unauthenticated = create('text/plain', 415, { parts: { credential: 'none' } })
    expect(judge(refusedStoresNothing, unauthenticated, { sent: pet, storedAfter: null })).toBe('n/a')
  })
})

describe(largeBody.id, () => {
  const sent = { name: 'x'.repeat(MiB), categoryId: 1n }
  const body = stringifyJson(sent)
  it('records the limit a target applies, and whether an accepted name came back whole', () => {
    expect(judge(largeBody, create('application/json', 413, { body }), { sent })).toEqual([
      '1 MiB -> 413 Error (code "some_code")',
    ])
    const echoed = create('application/json', 201, { body, answer: { id: 3, ...sent } })
    expect(judge(largeBody, echoed, { sent })).toEqual(['1 MiB -> 201 Pet (id 3), name echoed whole'])
    const cut = create('application/json', 201, { body, answer: { id: 3, ...sent, name: 'x' } })
    expect(judge(largeBody, cut, { sent })).toEqual(['1 MiB -> 201 Pet (id 3), name not echoed whole'])
    expect(judge(largeBody, create('application/json', 400, { body }), { invalid: 'wrong type' })).toEqual([
      '1 MiB -> 400 Error (code "some_code")',
    ])
  })

  it('applies to large bodies only', () => {
    expect(judge(largeBody, create('application/json', 201), { sent: pet })).toBe('n/a')
  })
})

describe('HTTP refusals of input beyond the interface are observed, not failed', () => {
  const large = stringifyJson({ name: 'x'.repeat(MiB), categoryId: 'one' })

  it(`${statusDocumented.id}: 413 to 1 MiB, 415 to a vendor type; not to documented input`, () => {
    expect(judge(statusDocumented, create('application/json', 413, { body: large }))).toBe('n/a')
    expect(judge(statusDocumented, create('application/vnd.petstore+json', 415))).toBe('n/a')
    expect(judge(statusDocumented, create('application/json', 415))).toEqual([
      'POST /pets answered 415; documented for createPet: 201, 400, 401',
    ])
    expect(judge(statusDocumented, create('application/json', 413))).toHaveLength(1)
  })

  it(`${contentTypeJson.id}: a framework's HTML page for such a refusal`, () => {
    const html = { raw: '<h1>413</h1>', parts: { headers: { 'content-type': 'text/html' } } }
    expect(judge(contentTypeJson, create('application/json', 413, { body: large, ...html }))).toBe('n/a')
    expect(judge(contentTypeJson, create('application/json', 413, html))).toHaveLength(1)
  })

  it(`${rejectsInvalid.id}: 413 to an invalid body of 1 MiB; 415 only to an undocumented type`, () => {
    expect(judge(rejectsInvalid, create('application/json', 413, { body: large }), { invalid: 'wrong type' })).toMatch(
      /^not judged: /,
    )
    expect(judge(rejectsInvalid, create('text/plain', 415, { body: '{' }), { invalid: 'malformed' })).toMatch(
      /^not judged: /,
    )
    expect(judge(rejectsInvalid, create('application/json', 415, { body: '{' }), { invalid: 'malformed' })).toEqual([
      'POST /pets with the invalid body { answered 415; documented: 400 Error (invalid: malformed)',
    ])
    expect(
      judge(rejectsInvalid, create('application/json', 413, { body: '{' }), { invalid: 'malformed' }),
    ).toHaveLength(1)
  })

  it(`${invalidIdRefused.id}: 414 to a petId of 400 digits, not to a short one`, () => {
    const petIdForm = { kind: 'an integer beyond int64' }
    const long = exchangeOf({ operationId: 'getPet', path: `/pets/${'9'.repeat(400)}`, status: 414 })
    expect(judge(invalidIdRefused, long, { petIdForm })).toMatch(/^not judged: /)
    const short = exchangeOf({ operationId: 'getPet', path: '/pets/1.5', status: 414 })
    expect(judge(invalidIdRefused, short, { petIdForm: { kind: 'a fraction' } })).toHaveLength(1)
  })

  it(`${createPetAuthRequired.id}: 415 to a vendor type sent without a key; 415 to application/json still fails`, () => {
    const parts = { credential: 'none' as const }
    expect(judge(createPetAuthRequired, create('application/vnd.petstore+json', 415, { parts }))).toMatch(
      /^not judged: /,
    )
    expect(judge(createPetAuthRequired, create('application/json', 415, { parts }))).toHaveLength(1)
    expect(judge(createPetAuthRequired, create('application/vnd.petstore+json', 400, { parts }))).toHaveLength(1)
  })
})
