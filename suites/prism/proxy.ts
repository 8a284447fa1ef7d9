/**
 * Prism as a second opinion: Stoplight Prism's validating proxy (`prism proxy`) judges every response of the
 * target against the spec. The proxy runs behind a tap (tap.ts) that keeps every exchange exact, and each answer
 * comes back with Prism's verdict in its `sl-violations` header (violations.ts).
 */
import { existsSync } from 'node:fs'
import type http from 'node:http'
import type net from 'node:net'
import { SPEC_PATH } from '../../spec/index.js'
import { launchPrism } from './launch.js'
import { basePath, createTap } from './tap.js'

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
  /** Prism's process id. */
  pid: number
  /** Why Prism stopped before `close()`, with the tail of its output; `undefined` while it runs. */
  problem(): string | undefined
  /** Stops Prism and the tap servers; resolves once Prism's process has exited. */
  close(): Promise<void>
}

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

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port))
  })
}
