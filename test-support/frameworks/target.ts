/**
 * What the framework implementations of the Pet Store interface (Express, Fastify) have in common: how a test
 * starts one and what it gets back. Each implementation is written from the interface text alone, the way a team
 * writes a service on that framework; none reads spec/ or imports the stub or the suite.
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'

/** How a framework target is started. */
export interface FrameworkOptions<Mistake extends string> {
  /** Accepted API keys; default `['framework-key']`. */
  keys?: string[]
  /** One natural mistake of the framework, or none for the conformant service. */
  mistake?: Mistake
}

/** A framework target listening on a loopback port. */
export interface FrameworkTarget {
  /** Base address, `/v1` included. */
  url: string
  /** The first accepted key. */
  key: string
  close: () => Promise<void>
}

/** The keys a target accepts, with the default filled in. */
export function keysOf(options: FrameworkOptions<string>): string[] {
  return options.keys?.length ? options.keys : ['framework-key']
}

/** The target's base address once `server` listens on a loopback port. */
export function baseUrl(server: Server): string {
  const { port } = server.address() as AddressInfo
  return `http://127.0.0.1:${port}/v1`
}
