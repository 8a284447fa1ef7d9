/**
 * `--replay`: a failing finding's request sent again, and judged again by the same check with the facts it was
 * judged on, as Schemathesis's `st replay` does. Cross-cutting checks judge the new answer too, so a request
 * that now fails differently is not called fixed.
 */
import type { Exchange, Finding, Request } from '../../model/index.js'
import { parseJson, type JsonValue, type Spec } from '../../spec/index.js'
import { judgeExchange } from '../checks/applies.js'
import type { Check, Facts } from '../checks/check.js'
import { CHECKS } from '../checks/index.js'
import type { Transport } from '../transport/transport.js'

/** What replaying one finding showed. */
export interface Replayed {
  outcome: 'fixed' | 'still failing' | 'not replayable'
  /** Why it still fails, or why it cannot be replayed. */
  messages: string[]
  exchange?: Exchange
}

const SENT_BY_TRANSPORT = new Set([
  'accept',
  'user-agent',
  'authorization',
  'content-type',
  'content-length',
  'accept-encoding',
])

/** The request a finding's exchange recorded, relative to the base address it was sent to. */
export function requestOf(finding: Finding, baseUrl: string): Request | undefined {
  const recorded = finding.exchange?.request
  if (!recorded || !finding.replay || !recorded.url.startsWith(baseUrl)) return undefined
  const suffix = recorded.url.slice(baseUrl.length)
  const at = suffix.indexOf('?')
  const headers = Object.fromEntries(
    Object.entries(recorded.headers).filter(([name]) => !SENT_BY_TRANSPORT.has(name.toLowerCase())),
  )
  const contentType = recorded.headers['content-type']
  return {
    ...(finding.exchange?.operationId ? { operationId: finding.exchange.operationId } : {}),
    method: recorded.method,
    path: at < 0 ? suffix : suffix.slice(0, at),
    ...(at < 0 ? {} : { rawQuery: suffix.slice(at + 1) }),
    ...(recorded.body !== undefined ? { body: recorded.body } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
    credential: finding.replay.credential,
  }
}

function factsOf(text: string | undefined): Facts {
  if (text === undefined) return {}
  const facts = parseJson(text) as Record<string, JsonValue>
  if (Array.isArray(facts.takenIds)) return { ...facts, takenIds: new Set(facts.takenIds.map(String)) } as Facts
  return facts as Facts
}

/** Judges an exchange with one check and the facts given; the messages it finds. */
function judgeWith(check: Check, exchange: Exchange, facts: Facts, spec: Spec): string[] {
  if (check.scope === 'run') return []
  return judgeExchange(check, exchange, facts, spec) ?? []
}

/** Sends a finding's request again through `transport` and judges the answer. */
export async function replayFinding(
  finding: Finding,
  previousBaseUrl: string,
  transport: Transport,
  spec: Spec,
): Promise<Replayed> {
  if (finding.source !== 'suite')
    return { outcome: 'not replayable', messages: [`found by ${finding.source}: run the suite with --via-prism again`] }
  const check = (CHECKS as readonly Check[]).find((c) => c.id === finding.checkId)
  const request = requestOf(finding, previousBaseUrl)
  if (!check || check.scope === 'run' || !request)
    return { outcome: 'not replayable', messages: ['the finding carries no request to send again'] }
  const facts = factsOf(finding.replay?.facts)
  // Without the facts it was judged on, the check would not apply to the new answer: that is no fix.
  const missing = (check.scope === 'exchange' ? (check.on.needs ?? []) : []).filter((need) => facts[need] === undefined)
  if (missing.length)
    return {
      outcome: 'not replayable',
      messages: [`the report kept too little to judge it again (${missing.join(', ')})`],
    }
  const exchange = await transport.send(request)
  // The check itself, and every fail-severity check judged on every exchange: a new failure is no fix.
  const judges = (CHECKS as readonly Check[]).filter(
    (c) =>
      c === check ||
      (c.severity === 'fail' && c.scope !== 'run' && (c.on.operation === 'all' || c.on.operation === 'any')),
  )
  const messages = judges.flatMap((c) =>
    judgeWith(c, exchange, c === check ? facts : {}, spec).map((m) => (c === check ? m : `${c.id}: ${m}`)),
  )
  return { outcome: messages.length ? 'still failing' : 'fixed', messages, exchange }
}
