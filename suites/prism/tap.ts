/**
 * The tap around Prism's proxy. Prism 5.14 does not relay exchanges faithfully: it parses and re-serializes JSON
 * in both directions (integers beyond 2^53 are rounded, duplicate keys merged, whitespace lost), answers some
 * requests itself (invalid JSON, bodies over 10 MB, a GET with a body), replaces a target's 501 with a mock, and
 * turns a dropped connection or a non-JSON body into its own 500. So a front server takes the suite's request and
 * passes it through Prism; Prism's upstream is a back server that sends the suite's exact request to the target.
 * The suite gets the target's exact answer, plus Prism's `sl-violations` (`[]` when Prism judged the response and
 * found nothing; absent when Prism had no opinion).
 */
import { randomUUID } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'
import { VIOLATIONS_HEADER, type PrismViolation } from './violations.js'

const TAP_HEADER = 'x-prism-tap'
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
])

/** The suite's request, exactly as it came. */
interface CapturedRequest {
  method: string
  /** Path and query as sent, e.g. `/v1/pets?limit=5`. */
  path: string
  rawHeaders: string[]
  body: Buffer
}

/** The target's answer, exactly as it came. */
interface TargetReply {
  status: number
  statusMessage: string
  rawHeaders: string[]
  body: Buffer
}

/** The target's answer, or why none came. */
type TargetAnswer = TargetReply | { error: string }

/** One request on its way through Prism. */
interface Relay {
  request: CapturedRequest
  /** Set by the back server when Prism forwarded the request to it. */
  answer?: Promise<TargetAnswer>
  abort?: () => void
}

/** The upstream's path without a trailing slash: `/v1`, or `` for a bare origin. */
export const basePath = (upstream: URL) => upstream.pathname.replace(/\/+$/, '')

/** Prism routes without the base path (it joins the upstream's path itself): `/v1/pets?x` -> `/pets?x`. */
export function prismPath(path: string, base: string): string {
  if (base === '' || !(path === base || path.startsWith(`${base}/`) || path.startsWith(`${base}?`))) return path
  const rest = path.slice(base.length)
  return rest.startsWith('/') ? rest : `/${rest}`
}

/** The tap for `upstream`: `front` stands for the target, `back` is the upstream Prism is started with. */
export function createTap(upstream: URL) {
  const relays = new Map<string, Relay>()
  const probeId = `probe-${randomUUID()}`
  const targetAgent =
    upstream.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true })
  const prismAgent = new http.Agent({ keepAlive: true })
  let prismPort = 0
  let nextId = 0

  const send = (request: CapturedRequest) => sendToTarget(upstream, targetAgent, request)

  // The back server is Prism's upstream: it answers Prism with what the target answers to the suite's exact request.
  const back = http.createServer((req, res) => {
    req.resume()
    const id = req.headers[TAP_HEADER]
    if (id === probeId) return void res.writeHead(204).end()
    const relay = typeof id === 'string' ? relays.get(id) : undefined
    if (!relay) return void res.writeHead(421).end() // not sent through the front server
    // Sent once per request, whatever Prism does: the target never sees a request twice.
    const call = relay.answer ? { answer: relay.answer, abort: relay.abort } : send(relay.request)
    relay.answer = call.answer
    relay.abort = call.abort
    // A target that fails the request makes Prism's request fail the same way.
    call.answer
      .then((answer) => ('error' in answer ? req.socket.destroy() : writeAnswer(res, forPrism(answer), [])))
      .catch(() => req.socket.destroy())
  })

  // The front server stands for the target: the suite's requests go through Prism, the target's answers come back exact.
  const front = http.createServer((req, res) => {
    res.sendDate = false // no header the target did not send
    readBody(req)
      .then(async (body) => {
        const id = String(nextId++)
        const relay: Relay = {
          request: { method: req.method ?? 'GET', path: req.url ?? '/', rawHeaders: req.rawHeaders, body },
        }
        relays.set(id, relay)
        const prism = askPrism(prismPort, prismAgent, relay.request, basePath(upstream), id)
        let gone = false
        res.on('close', () => {
          if (res.writableFinished) return
          gone = true // the suite gave up (its timeout): let go of Prism and the target too
          prism.abort()
          relay.abort?.()
        })
        try {
          const prismAnswer = await prism.answer
          if (gone) return
          // Prism answered by itself (invalid JSON, over 10 MB, GET with a body) or is gone: the target answers directly.
          const forwarded = relay.answer !== undefined
          const answer = await (relay.answer ?? send(relay.request).answer)
          if ('error' in answer) return void req.socket.destroy() // the target failed the request: so does the proxy
          writeAnswer(
            res,
            answer,
            verdictHeader(forwarded ? prismAnswer : undefined, { method: relay.request.method, status: answer.status }),
          )
        } finally {
          relays.delete(id)
        }
      })
      .catch(() => req.socket.destroy())
  })

  return {
    front,
    back,
    setPrism: (port: number) => void (prismPort = port),
    /** True once Prism at `port` forwards a request to the back server. */
    probe: (port: number) => probePrism(port, probeId),
    close: async () => {
      for (const relay of relays.values()) relay.abort?.()
      targetAgent.destroy()
      prismAgent.destroy()
      await Promise.all([closeServer(front), closeServer(back)])
    },
  }
}

function readBody(stream: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', () => resolve(Buffer.concat(chunks)))
    stream.on('error', reject)
  })
}

/** Raw headers to pass on: hop-by-hop ones dropped, a de-chunked body given its length. */
function relayHeaders(rawHeaders: string[], bodyLength: number, drop: readonly string[] = []): string[] {
  const kept: string[] = []
  let chunked = false
  let sized = false
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase()
    if (name === 'transfer-encoding') chunked = true
    if (name === 'content-length') sized = true
    if (HOP_BY_HOP.has(name) || drop.includes(name)) continue
    kept.push(rawHeaders[i]!, rawHeaders[i + 1]!)
  }
  if ((chunked || bodyLength > 0) && !sized) kept.push('content-length', String(bodyLength))
  return kept
}

function sendToTarget(upstream: URL, agent: http.Agent, request: CapturedRequest) {
  const transport = upstream.protocol === 'https:' ? https : http
  const headers = ['host', upstream.host, ...relayHeaders(request.rawHeaders, request.body.length, ['host'])]
  let outgoing: http.ClientRequest | undefined
  const answer = new Promise<TargetAnswer>((resolve) => {
    const fail = (error: Error) => resolve({ error: error.message })
    outgoing = transport.request(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port || undefined,
        method: request.method,
        path: request.path,
        headers,
        agent,
      },
      (res) => {
        readBody(res).then(
          (body) =>
            resolve({
              status: res.statusCode ?? 0,
              statusMessage: res.statusMessage ?? '',
              rawHeaders: res.rawHeaders,
              body,
            }),
          fail,
        )
        res.on('close', () => res.complete || fail(new Error('the connection closed before the body was complete')))
      },
    )
    outgoing.on('error', fail)
    outgoing.end(request.body)
  })
  return { answer, abort: () => outgoing?.destroy() }
}

/** The target's answer as Prism gets it: without `Location`, which Prism's fetch would follow (and judge another answer). */
function forPrism(answer: TargetReply): TargetReply {
  const rawHeaders = answer.rawHeaders.filter((_, i, all) => all[i - (i % 2)]!.toLowerCase() !== 'location')
  return { ...answer, rawHeaders }
}

function writeAnswer(res: http.ServerResponse, answer: TargetReply, extra: string[]): void {
  // Only Prism speaks in its header: one the target sent would pass for a verdict (or spoil Prism's).
  const headers = [...relayHeaders(answer.rawHeaders, answer.body.length, [VIOLATIONS_HEADER]), ...extra]
  res.writeHead(answer.status, answer.statusMessage || undefined, headers)
  res.end(answer.body)
}

/** What Prism answered the front server: status, headers, and the body when it is a problem of Prism's own. */
export interface PrismAnswer {
  status: number
  headers: http.IncomingHttpHeaders
  problem?: { type?: string; title?: string }
}

function askPrism(port: number, agent: http.Agent, request: CapturedRequest, base: string, id: string) {
  let outgoing: http.ClientRequest | undefined
  const answer = new Promise<PrismAnswer | undefined>((resolve) => {
    // Given raw headers, Node adds no Host of its own.
    const rawHeaders = [
      'host',
      `127.0.0.1:${port}`,
      ...relayHeaders(request.rawHeaders, request.body.length, ['host', TAP_HEADER]),
      TAP_HEADER,
      id,
    ]
    outgoing = http.request(
      {
        host: '127.0.0.1',
        port,
        method: request.method,
        path: prismPath(request.path, base),
        headers: rawHeaders,
        agent,
      },
      (res) => {
        readBody(res).then(
          (body) =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, problem: readProblem(res.headers, body) }),
          () => resolve(undefined),
        )
      },
    )
    outgoing.on('error', () => resolve(undefined))
    outgoing.end(request.body)
  })
  return { answer, abort: () => outgoing?.destroy() }
}

function readProblem(headers: http.IncomingHttpHeaders, body: Buffer): PrismAnswer['problem'] {
  if (!String(headers['content-type']).startsWith('application/problem+json')) return undefined
  try {
    return JSON.parse(body.toString('utf8')) as PrismAnswer['problem']
  } catch {
    return {}
  }
}

/**
 * Prism's verdict for the suite. `[]` says Prism judged the answer and found nothing; none when Prism did
 * not judge the target (it answered by itself, or the target answered 501, on which Prism judges a mock of
 * its own; or the request was a HEAD, whose bodiless answer Prism tries to read as JSON and cannot). When Prism
 * could not relay the target's answer (a body that is not JSON), its own error is given in the header's form, so
 * it reads as what it is: Prism rejecting the response.
 */
export function verdictHeader(prism: PrismAnswer | undefined, target: { method: string; status: number }): string[] {
  const targetStatus = target.status
  if (!prism || targetStatus === 501 || target.method.toUpperCase() === 'HEAD') return []
  const value = prism.headers[VIOLATIONS_HEADER]
  if (typeof value === 'string') return [VIOLATIONS_HEADER, value]
  if (prism.problem && prism.status !== targetStatus) {
    // e.g. `invalid json response body at http://127.0.0.1:PORT/v1/pets reason: ...`: the address is the tap's.
    const title = String(prism.problem.title ?? 'Prism could not relay the response').replace(/ at https?:\/\/\S+/, '')
    const violation: PrismViolation = {
      location: ['response', 'body'],
      severity: 'Error',
      code: prism.problem.type,
      message: title,
    }
    return [VIOLATIONS_HEADER, JSON.stringify([violation])]
  }
  return [VIOLATIONS_HEADER, '[]']
}

function probePrism(port: number, probeId: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: '/', headers: { [TAP_HEADER]: probeId }, agent: false },
      (res) => {
        res.resume()
        resolve(res.statusCode === 204)
      },
    )
    req.setTimeout(1_000, () => req.destroy())
    req.on('error', () => resolve(false))
  })
}

function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve()
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}
