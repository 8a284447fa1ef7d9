import type { Check } from './check.js'
import { documented, requestLine } from './util.js'

const JSON_MEDIA_TYPE = /^application\/([a-z0-9!#$&^_.-]+\+)?json\s*(;|$)/i

/** Responses say `Content-Type: application/json`, as every documented response does. */
export const contentTypeJson: Check = {
  id: 'response.content-type',
  title: 'Responses are application/json',
  severity: 'fail',
  operationId: 'all',
  applies: ({ exchange }, spec) => {
    const response = exchange?.response
    if (!response || response.status >= 500) return false
    return response.rawBody !== '' || documented(spec, exchange!.operationId, response.status)
  },
  run: ({ exchange }) => {
    const type = exchange!.response!.headers['content-type']
    if (type !== undefined && JSON_MEDIA_TYPE.test(type.trim())) return []
    const got = type === undefined ? 'no Content-Type' : `Content-Type "${type}"`
    return [`${requestLine(exchange!)} answered ${exchange!.response!.status} with ${got}; documented: application/json`]
  },
}
