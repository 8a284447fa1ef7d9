import { everyResponse } from '../../spec/index.js'
import { refusedBeyondInterface } from './beyond.js'
import { exchangeCheck } from './check.js'
import { documented, requestLine } from './util.js'

const JSON_MEDIA_TYPE = /^application\/([a-z0-9!#$&^_.-]+\+)?json\s*(;|$)/i

/** Responses say `Content-Type: application/json`, as every documented response does. */
export const contentTypeJson = exchangeCheck({
  id: 'response.content-type',
  title: 'Responses are application/json',
  severity: 'fail',
  basis: (spec) => everyResponse(spec, 'content'),
  on: {
    operation: 'all',
    // A 5xx is its own failure; an empty body of an undocumented status has no type to judge; HTTP's refusal of
    // input beyond the interface (413, 414, 415, 431) is often a framework's or a proxy's page, in its own type.
    when: ({ exchange, response, operationId }, spec) =>
      response.status < 500 &&
      (response.rawBody !== '' || documented(spec, operationId, response.status)) &&
      refusedBeyondInterface(exchange, spec) === undefined,
  },
  run: ({ exchange, response }) => {
    const type = response.headers['content-type']
    if (type !== undefined && JSON_MEDIA_TYPE.test(type.trim())) return []
    const got = type === undefined ? 'no Content-Type' : `Content-Type "${type}"`
    return [`${requestLine(exchange)} answered ${response.status} with ${got}; documented: application/json`]
  },
})
