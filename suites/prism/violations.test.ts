// Prism's recorded verdicts, read without a Prism process: which violations fail, under which check, and which
// are Prism's own artefacts.
import { describe, expect, it } from 'vitest'
import type { RecordedExchange } from '../../model/index.js'
import { openOutsideDocumentedInput, parseViolations, violationIn } from './violations.js'
import { listExchange } from './test-support.js'

// Header values as Prism 5.14.2 sent them (recorded through `prism proxy spec/petstore.yaml`).
const RECORDED = {
  requestOnly: JSON.stringify([
    {
      location: ['request', 'query', 'limit'],
      severity: 'Error',
      code: 'minimum',
      message: 'Request query parameter limit must be >= 1',
    },
    { location: ['request'], severity: 'Error', code: 401, message: 'Invalid security scheme used' },
    { location: ['request'], severity: 'Warning', message: 'Selected route not found' },
  ]),
  badEnum: JSON.stringify([
    {
      location: ['request', 'query', 'status'],
      severity: 'Error',
      code: 'enum',
      message: 'Request query parameter status must be equal to one of the allowed values: available, pending, sold',
    },
    {
      location: ['response', 'body', '0', 'status'],
      severity: 'Error',
      code: 'enum',
      message: 'Response body property 0.status must be equal to one of the allowed values: available, pending, sold',
    },
  ]),
  undocumentedStatus: JSON.stringify([
    {
      location: ['response'],
      severity: 'Warning',
      message: 'Unable to match the returned status code with those defined in the document: 200,400,401',
    },
  ]),
  outOfRangeAnswered: JSON.stringify([
    {
      location: ['request', 'query', 'limit'],
      severity: 'Error',
      code: 'minimum',
      message: 'Request query parameter limit must be >= 1',
    },
    {
      location: ['response'],
      severity: 'Warning',
      message: 'Unable to match the returned status code with those defined in the document: 200,401',
    },
  ]),
  textContentType: JSON.stringify([
    {
      location: ['response'],
      severity: 'Error',
      message:
        'The received media type "text/plain" does not match the one specified in the current response: application/json',
    },
    { location: ['response', 'body'], severity: 'Error', code: 'type', message: 'Response body must be array' },
  ]),
  int64Max: JSON.stringify([
    {
      location: ['response', 'body', '0', 'categoryId'],
      severity: 'Error',
      code: 'maximum',
      message: 'Response body property 0.categoryId must be <= 9007199254740991',
    },
  ]),
  int64Min: JSON.stringify([
    {
      location: ['response', 'body', '0', 'categoryId'],
      severity: 'Error',
      code: 'minimum',
      message: 'Response body property 0.categoryId must be >= -9007199254740991',
    },
  ]),
  deprecationPattern: JSON.stringify([
    {
      location: ['response', 'header', 'deprecation'],
      severity: 'Error',
      code: 'pattern',
      message: 'Response header parameter deprecation must match pattern "^@-?[0-9]+$"',
    },
  ]),
}

const listOf = (categoryId: string) => `[{"id":1,"name":"Rex","categoryId":${categoryId},"status":"available"}]`

describe('parseViolations', () => {
  it('finds nothing without a header, in an empty one, or in request-side violations only', () => {
    const ex = listExchange(listOf('1'))
    expect(parseViolations(undefined, ex)).toEqual([])
    expect(parseViolations('', ex)).toEqual([])
    expect(parseViolations('[]', ex)).toEqual([])
    expect(parseViolations(RECORDED.requestOnly, ex)).toEqual([])
  })

  it("turns a response-side Error into a failing finding naming Prism's code, message and where", () => {
    const ex = listExchange('[{"id":1,"name":"Rex","categoryId":1,"status":"lost"}]')
    const findings = parseViolations(RECORDED.badEnum, ex)
    expect(findings).toEqual([
      {
        checkId: 'prism.response-body',
        operationId: 'listPets',
        severity: 'fail',
        source: 'prism',
        message: expect.stringMatching(
          /0\.status must be equal to one of the allowed values.*\[Prism Error enum at response\.body\.0\.status\]/,
        ),
        exchange: ex,
      },
    ])
  })

  it('fails an undocumented status, which Prism only warns about when it is not a 2xx', () => {
    const [finding, ...rest] = parseViolations(RECORDED.undocumentedStatus, listExchange('{}', {}, 500))
    expect(rest).toEqual([])
    expect(finding).toMatchObject({ checkId: 'prism.response-status', severity: 'fail', source: 'prism' })
    expect(finding!.message).toContain('[Prism Warning at response]')
  })

  it('leaves the status open where the interface does: in answer to a query outside the documented input', () => {
    const refused = (query: string) => ({
      ...listExchange('{"code":"invalid_limit","message":"m","status":400}', undefined, 400),
      request: { method: 'GET', url: `http://127.0.0.1:1/v1/pets?${query}`, headers: {} },
    })
    expect(parseViolations(RECORDED.outOfRangeAnswered, refused('limit=0'))).toEqual([])
    const statusOnly = JSON.stringify([JSON.parse(RECORDED.outOfRangeAnswered)[1]]) // Prism lets `limit=` through
    expect(parseViolations(statusOnly, refused('limit='))).toEqual([])
    expect(parseViolations(statusOnly, refused('limit=5')).map((f) => f.checkId)).toEqual(['prism.response-status'])
  })

  it('sorts media-type and body violations under their own check ids', () => {
    const ids = parseViolations(
      RECORDED.textContentType,
      listExchange(listOf('1'), { 'content-type': 'text/plain' }),
    ).map((f) => f.checkId)
    expect(ids).toEqual(['prism.response-content-type', 'prism.response-body'])
  })

  it("drops Prism's ±(2^53 - 1) int64 bound when the exact value is a valid int64, and keeps it when it is not", () => {
    expect(parseViolations(RECORDED.int64Max, listExchange(listOf('9223372036854775807')))).toEqual([])
    expect(parseViolations(RECORDED.int64Min, listExchange(listOf('-9223372036854775808')))).toEqual([])
    const [outside] = parseViolations(RECORDED.int64Max, listExchange(listOf('9223372036854775808')))
    expect(outside?.message).toContain('read exactly, the value is outside int64')
    expect(parseViolations(RECORDED.int64Max, listExchange(listOf('1e300')))).toHaveLength(1)
  })

  it('drops the deprecation header Prism adds itself, and keeps a bad one the target sent', () => {
    const withoutHeader = { ...listExchange('{}'), operationId: 'getPet' as const }
    expect(parseViolations(RECORDED.deprecationPattern, withoutHeader)).toEqual([])
    const sentByTarget = listExchange('{}', { 'content-type': 'application/json', Deprecation: 'true' })
    expect(parseViolations(RECORDED.deprecationPattern, sentByTarget).map((f) => f.checkId)).toEqual([
      'prism.response-headers',
    ])
  })

  it('reports a header Prism cut short as one finding, and refuses a header it cannot read', () => {
    const cut = `Too many violations! [${'{"location":["response","body","0"],"severity":"Error","code":"type","message":"x"},'.repeat(3)}`
    const findings = parseViolations(cut, listExchange('[]'))
    expect(findings).toHaveLength(1)
    expect(findings[0]!.message).toContain('3 response-side')
    expect(() => parseViolations('{not json', listExchange('[]'))).toThrow(/unreadable sl-violations/)
  })
})

describe('HTTP refusals of input beyond the interface', () => {
  const create = (contentType: string, body: string, status: number, type = 'text/html'): RecordedExchange => ({
    operationId: 'createPet',
    request: { method: 'POST', url: 'http://127.0.0.1:1/v1/pets', headers: { 'content-type': contentType }, body },
    response: { status, headers: { 'content-type': type }, rawBody: '<h1>refused</h1>' },
    durationMs: 1,
  })
  const statusAndType = JSON.stringify([
    {
      location: ['response'],
      severity: 'Warning',
      message: 'Unable to match the returned status code with those defined in the document: 201,400,401',
    },
    {
      location: ['response'],
      severity: 'Error',
      message:
        'The received media type "text/html" does not match the one specified in the current response: application/json',
    },
  ])

  it('does not fail a 415 to an undocumented media type, or a 413 to a body of 1 MiB, whatever its media type', () => {
    const vendor = create('application/vnd.petstore+json', '{"name":"a","categoryId":1}', 415)
    expect(parseViolations(statusAndType, vendor)).toEqual([])
    const large = create('application/json', JSON.stringify({ name: 'x'.repeat(1 << 20), categoryId: 1 }), 413)
    expect(parseViolations(statusAndType, large)).toEqual([])
  })

  it('still fails a 415 to application/json and a 413 to a small body', () => {
    const checks = (exchange: RecordedExchange) => parseViolations(statusAndType, exchange).map((f) => f.checkId)
    const both = ['prism.response-status', 'prism.response-content-type']
    expect(checks(create('application/json; charset=utf-8', '{"name":"a","categoryId":1}', 415))).toEqual(both)
    expect(checks(create('application/json', '{"name":"a","categoryId":1}', 413))).toEqual(both)
  })
})

describe('violationIn', () => {
  it("reads Prism's severity, code and location back from a finding's message", () => {
    const [enumFinding] = parseViolations(RECORDED.badEnum, listExchange('[]'))
    expect(violationIn(enumFinding!.message)).toEqual({
      severity: 'Error',
      code: 'enum',
      where: 'response.body.0.status',
    })
    const [statusFinding] = parseViolations(RECORDED.undocumentedStatus, listExchange('{}', {}, 500))
    expect(violationIn(statusFinding!.message)).toEqual({ severity: 'Warning', where: 'response' })
    expect(violationIn('status 500; documented: 200, 400, 401')).toBeUndefined()
  })
})

// In the shape Prism 5.14 sends for `GET /v1/pets/1.5` (a petId that is no int64) answered 400 with an Error body.
const PET_ID_NOT_INT64 = JSON.stringify([
  {
    location: ['request', 'path', 'petId'],
    severity: 'Error',
    code: 'type',
    message: 'Request path parameter petId must be integer',
  },
  {
    location: ['response'],
    severity: 'Warning',
    message: 'Unable to match the returned status code with those defined in the document: 200,401,404',
  },
])

const getExchange = (path: string, status: number, operationId?: 'getPet'): RecordedExchange => ({
  ...(operationId ? { operationId } : {}),
  request: { method: 'GET', url: `http://127.0.0.1:1/v1${path}`, headers: {} },
  response: { status, headers: { 'content-type': 'application/json' }, rawBody: '{"code":400,"message":"bad id"}' },
  durationMs: 1,
})

describe('Prism, outside the documented input', () => {
  const judged = (exchange: RecordedExchange, facts: Parameters<typeof openOutsideDocumentedInput>[2]) =>
    parseViolations(PET_ID_NOT_INT64, exchange).filter((f) => !openOutsideDocumentedInput(f.checkId, exchange, facts))

  it("leaves the status open on a petId that is no int64, a path variant and another method, as the suite's checks do", () => {
    const exchange = getExchange('/pets/1.5', 400, 'getPet')
    expect(parseViolations(PET_ID_NOT_INT64, exchange).map((f) => f.checkId)).toEqual(['prism.response-status'])
    expect(judged(exchange, { petIdForm: { kind: 'a fraction' } })).toEqual([])
    expect(judged(getExchange('/%70ets', 404), { pathVariant: 'a percent-encoded letter' })).toEqual([])
    expect(judged(getExchange('/pets', 404), { otherMethod: '/pets' })).toEqual([])
    expect(judged(exchange, { outOfRange: ['limit'] })).toEqual([])
  })

  it('still fails the same answer within the documented input, and a 5xx whatever the input', () => {
    expect(judged(getExchange('/pets/15', 400, 'getPet'), {}).map((f) => f.checkId)).toEqual(['prism.response-status'])
    expect(judged(getExchange('/pets/1.5', 500, 'getPet'), { petIdForm: { kind: 'a fraction' } })).toHaveLength(1)
  })

  it("keeps body and header findings on a documented operation's answer, and leaves them open where none was called", () => {
    const exchange = getExchange('/pets/1.5', 404, 'getPet')
    for (const checkId of ['prism.response-body', 'prism.response-headers']) {
      expect(openOutsideDocumentedInput(checkId, exchange, { petIdForm: { kind: 'a fraction' } })).toBe(false)
      // `GET /v1/pets/` answered with the list: Prism reads it as getPet and wants a Pet.
      const variant = getExchange('/pets/', 200)
      expect(openOutsideDocumentedInput(checkId, variant, { pathVariant: 'a trailing slash' })).toBe(true)
      expect(openOutsideDocumentedInput(checkId, { ...variant, operationId: 'getPet' }, {})).toBe(false)
    }
  })
})
