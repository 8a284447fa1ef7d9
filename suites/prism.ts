/**
 * Prism as a second opinion: Stoplight Prism's validating proxy judges every response of the target
 * against the spec, and its verdict (the `sl-violations` header) becomes findings with `source: 'prism'`.
 *
 * Prism 5.14 does not relay exchanges faithfully: it parses and re-serializes JSON in both directions
 * (integers beyond 2^53 are rounded, duplicate keys merged, whitespace lost), answers some requests itself
 * (invalid JSON, bodies over 10 MB, a GET with a body), replaces a target's 501 with a mock, and turns a
 * dropped connection or a non-JSON body into its own 500. So the proxy is tapped: a front server takes the
 * suite's request and passes it through Prism; Prism's upstream is a back server that sends the suite's
 * exact request to the target. The suite gets the target's exact answer, plus Prism's `sl-violations`
 * (`[]` when Prism judged the response and found nothing; absent when Prism had no opinion).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import { createRequire } from 'node:module'
import net from 'node:net'
import { dirname, join } from 'node:path'
import { isInt64, parseJson, SPEC_PATH, type JsonValue } from '../spec/index.js'
import type { CheckResult, Finding, RecordedExchange } from './model.js'

/** The response header in which Prism reports violations. */
export const VIOLATIONS_HEADER = 'sl-violations'

/** What {@link startPrismProxy} needs. */
export interface PrismProxyOptions {
  /** The target's base URL, `/v1` included, e.g. `http://127.0.0.1:4010/v1`. */
  upstream: string
  /** The OpenAPI document Prism validates against; the project's spec by default. */
  specPath?: string
  /** Loopback port of the proxy's `url`; a free one by default. */
  port?: number
}

/** A running proxy. */
export interface PrismProxy {
  /** Base URL that stands for the target (same path, `/v1` included): the suite appends `/pets` to it. */
  url: string
  /** Prism's own address, for a look at its raw answers (Prism routes without the `/v1` base path). */
  prismUrl: string
  /** Prism's process id. */
  pid: number
  /** Why Prism stopped before `close()`, with the tail of its output; `undefined` while it runs. */
  problem(): string | undefined
  /** Stops Prism and the tap servers; resolves once Prism's process has exited. */
  close(): Promise<void>
}

const TAP_HEADER = 'x-prism-tap'
const START_DEADLINE_MS = 20_000
const STOP_GRACE_MS = 3_000
const POLL_INTERVAL_MS = 100
const OUTPUT_TAIL_CHARS = 4_000
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade'])

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

// ---------------------------------------------------------------------------------------------------
// Violations

/** One entry of Prism's `sl-violations` header. */
export interface PrismViolation {
  location: (string | number)[]
  severity: string
  code?: string | number
  message: string
}

/** The checks under which Prism's response-side violations are reported. */
export const PRISM_CHECKS = [
  { id: 'prism.response-status', title: 'Prism: the response status is documented for the operation' },
  { id: 'prism.response-content-type', title: 'Prism: the response media type is the documented one' },
  { id: 'prism.response-body', title: "Prism: the response body validates against the operation's schema" },
  { id: 'prism.response-headers', title: 'Prism: documented response headers match their schemas' },
] as const

/** Id of one of {@link PRISM_CHECKS}. */
export type PrismCheckId = (typeof PRISM_CHECKS)[number]['id']

// Prism's OpenAPI reader bounds int64 to ±(2^53 - 1), the doubles it can hold exactly (stoplightio/prism#1992).
const PRISM_INT64_BOUND = String(Number.MAX_SAFE_INTEGER)

/**
 * Prism's response-side violations as findings. Request-side ones are dropped: the suite sends bad input on
 * purpose. Prism's Errors and Warnings both fail: the only response-side Warning Prism 5.14 emits is an
 * undocumented non-2xx status, which the interface makes a failure. Two Prism artefacts are dropped: an
 * int64 bound of ±(2^53 - 1) on a value that the exact body shows to be a valid int64, and the
 * `deprecation: true` header Prism itself adds to a deprecated operation's answer.
 */
export function parseViolations(headerValue: string | undefined, exchange: RecordedExchange): Finding[] {
  if (headerValue === undefined || headerValue.trim() === '') return []
  const violations = readViolations(headerValue)
  if (violations === 'truncated') return [truncatedFinding(headerValue, exchange)]
  return violations
    .filter((v) => v.location[0] === 'response' && isJudgement(v))
    .filter((v) => !isPrismArtefact(v, exchange))
    .map((v) => ({
      checkId: prismCheckId(v),
      operationId: exchange.operationId,
      severity: 'fail',
      source: 'prism',
      message: describeViolation(v, exchange),
      exchange,
    }))
}

/** Parses the header; `truncated` when Prism cut it short (it does past 8 KB). Throws on anything else. */
export function readViolations(headerValue: string): PrismViolation[] | 'truncated' {
  if (headerValue.startsWith('Too many violations!')) return 'truncated'
  let parsed: unknown
  try {
    parsed = JSON.parse(headerValue)
  } catch {
    throw new Error(`unreadable ${VIOLATIONS_HEADER} header: ${headerValue.slice(0, 200)}`)
  }
  if (!Array.isArray(parsed)) throw new Error(`${VIOLATIONS_HEADER} is not a JSON array: ${headerValue.slice(0, 200)}`)
  return parsed.filter(isViolation)
}

function isViolation(value: unknown): value is PrismViolation {
  const v = value as PrismViolation
  return typeof v === 'object' && v !== null && Array.isArray(v.location) && typeof v.message === 'string'
}

// Information and Hint are remarks; Prism 5.14 emits none on the response side.
const isJudgement = (v: PrismViolation) => v.severity === 'Error' || v.severity === 'Warning'

function prismCheckId(v: PrismViolation): PrismCheckId {
  if (v.message.startsWith('Unable to match the returned status code')) return 'prism.response-status'
  if (v.message.startsWith('The received media type')) return 'prism.response-content-type'
  if (v.location[1] === 'header') return 'prism.response-headers'
  return 'prism.response-body'
}

function isPrismArtefact(v: PrismViolation, exchange: RecordedExchange): boolean {
  if (isInt64Bound(v)) return exactInt64At(v, exchange) === 'valid'
  // Prism adds `deprecation: true` when a deprecated operation's answer has none, then flags its own header.
  if (v.location[1] === 'header' && String(v.location[2]).toLowerCase() === 'deprecation') {
    return headerOf(exchange, 'deprecation') === undefined
  }
  return false
}

const isInt64Bound = (v: PrismViolation) =>
  (v.code === 'maximum' || v.code === 'minimum') && v.location[1] === 'body' && v.message.endsWith(PRISM_INT64_BOUND)

/** Whether the value a body violation points at is, read exactly, a valid int64. */
function exactInt64At(v: PrismViolation, exchange: RecordedExchange): 'valid' | 'invalid' | 'unknown' {
  const value = valueAt(exactBody(exchange), v.location.slice(2))
  if (typeof value === 'bigint') return isInt64(value) ? 'valid' : 'invalid'
  if (typeof value === 'number' && Number.isSafeInteger(value)) return 'valid'
  return 'unknown'
}

function exactBody(exchange: RecordedExchange): JsonValue | undefined {
  try {
    return exchange.response ? parseJson(exchange.response.rawBody) : undefined
  } catch {
    return undefined
  }
}

function valueAt(value: JsonValue | undefined, path: (string | number)[]): JsonValue | undefined {
  let at: JsonValue | undefined = value
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined
    at = Array.isArray(at) ? at[Number(key)] : Object.hasOwn(at, String(key)) ? at[String(key)] : undefined
  }
  return at
}

function headerOf(exchange: RecordedExchange, name: string): string | undefined {
  const headers = exchange.response?.headers ?? {}
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name)
  return key === undefined ? undefined : headers[key]
}

function describeViolation(v: PrismViolation, exchange: RecordedExchange): string {
  const code = v.code === undefined ? '' : ` ${v.code}`
  const exact = isInt64Bound(v) && exactInt64At(v, exchange) === 'invalid' ? ' (read exactly, the value is outside int64)' : ''
  return `${v.message}${exact} [Prism ${v.severity}${code} at ${v.location.join('.')}]`
}

/** Prism's severity, code and location as a finding's message states them (see `describeViolation`). */
export function violationIn(message: string): { severity: string; code?: string; where: string } | undefined {
  const match = /\[Prism (\w+)(?: (\S+))? at (\S+)\]$/.exec(message)
  if (!match) return undefined
  return { severity: match[1]!, ...(match[2] !== undefined ? { code: match[2] } : {}), where: match[3]! }
}

function truncatedFinding(headerValue: string, exchange: RecordedExchange): Finding {
  const shown = headerValue.split('"location":["response"').length - 1
  return {
    checkId: 'prism.response-body',
    operationId: exchange.operationId,
    severity: 'fail',
    source: 'prism',
    message: `Prism reported more violations than its header holds (${shown} response-side ones in the part it kept)`,
    exchange,
  }
}

/**
 * One result per Prism check over a run. `judged` counts the exchanges Prism gave a verdict on (those
 * whose answer carried `sl-violations`); with none, the checks are skipped, not passed.
 */
export function prismCheckResults(findings: Finding[], judged: number): CheckResult[] {
  return PRISM_CHECKS.map(({ id, title }) => {
    const own = findings.filter((f) => f.source === 'prism' && f.checkId === id)
    return {
      id,
      title,
      operationId: 'all',
      severity: 'fail',
      source: 'prism',
      outcome: judged === 0 ? 'skipped' : own.length > 0 ? 'failed' : 'passed',
      findings: own,
      exchanges: judged,
      durationMs: 0,
    }
  })
}

// ---------------------------------------------------------------------------------------------------
// The proxy

/**
 * Starts Prism's validating proxy in front of `upstream`, with the tap that keeps exchanges exact.
 * Resolves once Prism forwards requests; rejects with the tail of Prism's output when it cannot start.
 */
export async function startPrismProxy(options: PrismProxyOptions): Promise<PrismProxy> {
  const upstream = parseUpstream(options.upstream)
  const specPath = options.specPath ?? SPEC_PATH
  if (!existsSync(specPath)) throw new Error(`no OpenAPI document at ${specPath}`)
  const tap = createTap(upstream)
  try {
    const backPort = await listen(tap.back, 0)
    const frontPort = await listen(tap.front, options.port ?? 0)
    const prism = await launchPrism(specPath, `http://127.0.0.1:${backPort}`, tap.probe)
    tap.setPrism(prism.port)
    let closing: Promise<void> | undefined
    return {
      url: `http://127.0.0.1:${frontPort}${basePath(upstream)}`,
      prismUrl: `http://127.0.0.1:${prism.port}`,
      pid: prism.pid,
      problem: prism.problem,
      close: () => (closing ??= Promise.all([prism.stop(), tap.close()]).then(() => undefined)),
    }
  } catch (error) {
    await tap.close()
    throw error
  }
}

function parseUpstream(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new Error(`not a URL: ${text}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`not an http(s) URL: ${text}`)
  return url
}

/** The upstream's path without a trailing slash: `/v1`, or `` for a bare origin. */
const basePath = (upstream: URL) => upstream.pathname.replace(/\/+$/, '')

/** Prism routes without the base path (it joins the upstream's path itself): `/v1/pets?x` -> `/pets?x`. */
export function prismPath(path: string, base: string): string {
  if (base === '' || !(path === base || path.startsWith(`${base}/`) || path.startsWith(`${base}?`))) return path
  const rest = path.slice(base.length)
  return rest.startsWith('/') ? rest : `/${rest}`
}

function createTap(upstream: URL) {
  const relays = new Map<string, Relay>()
  const probeId = `probe-${randomUUID()}`
  const targetAgent = upstream.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true })
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
    call.answer.then((answer) => ('error' in answer ? req.socket.destroy() : writeAnswer(res, forPrism(answer), []))).catch(() => req.socket.destroy())
  })

  // The front server stands for the target: the suite's requests go through Prism, the target's answers come back exact.
  const front = http.createServer((req, res) => {
    res.sendDate = false // no header the target did not send
    readBody(req)
      .then(async (body) => {
        const id = String(nextId++)
        const relay: Relay = { request: { method: req.method ?? 'GET', path: req.url ?? '/', rawHeaders: req.rawHeaders, body } }
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
          writeAnswer(res, answer, verdictHeader(forwarded ? prismAnswer : undefined, answer.status))
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
      { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port || undefined, method: request.method, path: request.path, headers, agent },
      (res) => {
        readBody(res).then(
          (body) => resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', rawHeaders: res.rawHeaders, body }),
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
  const headers = [...relayHeaders(answer.rawHeaders, answer.body.length), ...extra]
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
    const rawHeaders = ['host', `127.0.0.1:${port}`, ...relayHeaders(request.rawHeaders, request.body.length, ['host', TAP_HEADER]), TAP_HEADER, id]
    outgoing = http.request(
      { host: '127.0.0.1', port, method: request.method, path: prismPath(request.path, base), headers: rawHeaders, agent },
      (res) => {
        readBody(res).then(
          (body) => resolve({ status: res.statusCode ?? 0, headers: res.headers, problem: readProblem(res.headers, body) }),
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
 * its own). When Prism could not relay the target's answer (a body that is not JSON), its own error is
 * given in the header's form, so it reads as what it is: Prism rejecting the response.
 */
export function verdictHeader(prism: PrismAnswer | undefined, targetStatus: number): string[] {
  if (!prism || targetStatus === 501) return []
  const value = prism.headers[VIOLATIONS_HEADER]
  if (typeof value === 'string') return [VIOLATIONS_HEADER, value]
  if (prism.problem && prism.status !== targetStatus) {
    // e.g. `invalid json response body at http://127.0.0.1:PORT/v1/pets reason: ...`: the address is the tap's.
    const title = String(prism.problem.title ?? 'Prism could not relay the response').replace(/ at https?:\/\/\S+/, '')
    const violation: PrismViolation = { location: ['response', 'body'], severity: 'Error', code: prism.problem.type, message: title }
    return [VIOLATIONS_HEADER, JSON.stringify([violation])]
  }
  return [VIOLATIONS_HEADER, '[]']
}

function probePrism(port: number, probeId: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', headers: { [TAP_HEADER]: probeId }, agent: false }, (res) => {
      res.resume()
      resolve(res.statusCode === 204)
    })
    req.setTimeout(1_000, () => req.destroy())
    req.on('error', () => resolve(false))
  })
}

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port))
  })
}

function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve()
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}

function freePort(): Promise<number> {
  const server = net.createServer()
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Prism's command-line entry point, resolved from node_modules so no shell or PATH is involved. */
export function prismBin(): string {
  const require = createRequire(import.meta.url)
  const manifest = require.resolve('@stoplight/prism-cli/package.json')
  const { bin } = require(manifest) as { bin: { prism: string } }
  return join(dirname(manifest), bin.prism)
}

interface RunningPrism {
  port: number
  pid: number
  problem(): string | undefined
  stop(): Promise<void>
}

async function launchPrism(specPath: string, upstream: string, ready: (port: number) => Promise<boolean>): Promise<RunningPrism> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchPrismOnce(specPath, upstream, await freePort(), ready)
    } catch (error) {
      // Another process may take the free port before Prism binds it; a new port settles that.
      if (attempt >= 3 || !/EADDRINUSE|address already in use/i.test(String(error))) throw error
    }
  }
}

async function launchPrismOnce(specPath: string, upstream: string, port: number, ready: (port: number) => Promise<boolean>): Promise<RunningPrism> {
  const args = [prismBin(), 'proxy', specPath, upstream, '--port', String(port), '--host', '127.0.0.1']
  // One process (no cluster worker), and only errors logged: Prism formats every info line, which costs time.
  args.push('--no-multiprocess', '--verboseLevel', 'error', '--errors=false')
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } })
  let output = ''
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-OUTPUT_TAIL_CHARS))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const tail = () => output.trim().split('\n').slice(-15).join('\n')
  // The first line of an error says why, for callers that show only that line.
  const why = () => {
    const lines = output.trim().split('\n').map((l) => l.trim())
    return lines.find((l) => /^\w*Error\b|EADDRINUSE/.test(l)) ?? lines.at(-1) ?? 'no output'
  }
  let exit: string | undefined
  let stopping = false
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = `Prism exited (${signal ?? `code ${code}`})`
      resolve()
    })
    child.once('error', (error) => {
      exit = `Prism could not be started: ${error.message}`
      resolve()
    })
  })
  const killOnExit = () => child.kill('SIGKILL') // this process is leaving without close(): take Prism along
  process.once('exit', killOnExit)
  const stop = async () => {
    stopping = true
    process.removeListener('exit', killOnExit)
    await stopChild(child, exited)
  }

  const deadline = Date.now() + START_DEADLINE_MS
  while (!(await ready(port))) {
    if (exit) {
      await stop()
      throw new Error(`${exit} before it was ready (spec ${specPath}): ${why()}\n${tail()}`)
    }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`Prism did not start within ${START_DEADLINE_MS / 1000} s (spec ${specPath}): ${why()}\n${tail()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS))
  }
  return {
    port,
    pid: child.pid!,
    problem: () => (exit && !stopping ? `${exit}:\n${tail()}` : undefined),
    stop,
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
  await exited
  clearTimeout(timer)
}
