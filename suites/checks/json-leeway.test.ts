import { describe, expect, it } from 'vitest'
import { acceptsValid } from './accepts-valid.js'
import { spec } from '../../spec/index.js'
import { subjectOf } from './applies.js'
import { echoesNewPet } from './echo.js'
import { jsonLeeway } from './json-leeway.js'
import { errorBody, exchangeOf, judge } from './test-support.js'

const sent = { name: 'Rex', categoryId: 100n }
const facts = { sent, leeway: 'categoryId written 1e2' }

describe(jsonLeeway.id, () => {
  it('records whether the target accepted JSON whose reading parsers may differ on', () => {
    const refused = exchangeOf({ operationId: 'createPet', status: 400, body: errorBody(400, 'invalid_json') })
    expect(judge(jsonLeeway, refused, facts)).toEqual(['400 Error (code "invalid_json")'])
    expect(subjectOf(jsonLeeway, refused, facts, spec())).toBe('POST /pets with categoryId written 1e2')
    expect(judge(jsonLeeway, refused)).toBe('n/a')
  })
  it('spares such a body the rule that a valid NewPet is accepted, but holds an accepted one to the value sent', () => {
    expect(
      judge(acceptsValid, exchangeOf({ operationId: 'createPet', status: 400, body: errorBody(400) }), facts),
    ).toBe('n/a')
    expect(
      judge(
        echoesNewPet,
        exchangeOf({ operationId: 'createPet', status: 201, body: { id: 1, name: 'Rex', categoryId: 1 } }),
        facts,
      ),
    ).toEqual(['POST /pets created a Pet that differs from what was sent: categoryId 1; expected 100'])
  })
})
