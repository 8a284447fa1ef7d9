/**
 * A small, conformant Pet Store that chooses differently wherever the interface is silent: id scheme,
 * out-of-range handling, default status, ordering, extra fields, size of the store, rate limiting.
 * The suite must pass every variant; the teeth test proves it does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseJson, spec, stringifyJson, type JsonValue } from '../spec/index.js'

/** Where a variant departs from the kit's stub, each within the interface. */
export interface Variant {
  /** How ids are assigned. */
  ids?: 'sequential' | 'beyond-2^53' | 'random' | 'descending'
  /** Out-of-range limit/status: 400 (like the stub), clamp to the range / ignore, or an empty page. */
  outOfRange?: 'reject' | 'clamp'
  /** Status given to a pet created without one; undefined keeps none. */
  defaultStatus?: string
  /** Order of listPets. */
  order?: 'ascending' | 'descending' | 'shuffled'
  /** Extra server-side fields on every Pet. */
  extraFields?: boolean
  /** Pets already in the store at start. */
  preexisting?: number
  /** Answer every Nth request with 429 and Retry-After: 1. */
  rateLimitEvery?: number
  /** Send the RFC headers (Deprecation, Sunset, WWW-Authenticate). */
  headers?: boolean
  /** Accept `bearer` in lower case. */
  caseInsensitiveScheme?: boolean
  /** Answer every request this late. */
  delayMs?: number
}

/** Conformant targets that choose differently wherever the interface is silent. */
export const VARIANTS: Record<string, Variant> = {
  'ids beyond 2^53, clamping, default status "available", newest first, extra fields': {
    ids: 'beyond-2^53',
    outOfRange: 'clamp',
    defaultStatus: 'available',
    order: 'descending',
    extraFields: true,
    headers: true,
  },
  'random ids, shuffled order, 3000 pets already there': { ids: 'random', order: 'shuffled', preexisting: 3000, outOfRange: 'clamp' },
  'empty at start, descending ids, default status "pending", no headers, lower-case scheme accepted': {
    ids: 'descending',
    defaultStatus: 'pending',
    caseInsensitiveScheme: true,
  },
  'rate-limited (429 with Retry-After), 150 pets already there': { rateLimitEvery: 97, preexisting: 150 },
}

/** A running variant. */
export interface VariantTarget {
  url: string
  close(): Promise<void>
}

type Pet = { id: bigint; name: string; categoryId: JsonValue; status?: string; [extra: string]: JsonValue | undefined }

/** Starts a variant on a free loopback port. */
export async function startVariant(variant: Variant, apiKey: string): Promise<VariantTarget> {
  const s = spec()
  const validNewPet = s.schema('NewPet')
  const statuses = s.enumOf('PetStatus')
  const limitParam = s.parameter('listPets', 'limit')
  const pets: Pet[] = []
  let counter = 0n
  let requests = 0
  const nextId = (): bigint => {
    counter++
    switch (variant.ids ?? 'sequential') {
      case 'beyond-2^53':
        return 2n ** 60n + counter * 7n
      case 'random':
        return (BigInt(Math.floor(Math.random() * 2 ** 31)) << 31n) | BigInt(Math.floor(Math.random() * 2 ** 31))
      case 'descending':
        return 2n ** 62n - counter
      default:
        return counter
    }
  }
  for (let i = 0; i < (variant.preexisting ?? 0); i++) {
    pets.push({ id: nextId(), name: `seed-${i}`, categoryId: i, status: statuses[i % statuses.length] })
  }

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(stringifyJson(body))
  }
  const error = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) =>
    send(res, status, { code, message: code.replace(/_/g, ' '), status }, headers)
  const show = (pet: Pet) => (variant.extraFields ? { ...pet, createdAt: '2024-01-01T00:00:00Z', tags: [] } : pet)

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    requests++
    if (variant.rateLimitEvery && requests % variant.rateLimitEvery === 0) return error(res, 429, 'slow_down', { 'retry-after': '1' })
    const url = new URL(req.url ?? '/', 'http://x')
    if (!url.pathname.startsWith('/v1/')) return error(res, 404, 'not_found')
    const path = url.pathname.slice(3)
    const auth = req.headers.authorization ?? ''
    const scheme = variant.caseInsensitiveScheme ? /^bearer /i : /^Bearer /
    const challenge: Record<string, string> = variant.headers ? { 'www-authenticate': 'Bearer realm="petstore"' } : {}
    if (!scheme.test(auth) || auth.slice(7) !== apiKey) return error(res, 401, 'unauthorized', challenge)
    if (path === '/pets' && req.method === 'GET') {
      let limit = Number(limitParam.default)
      const limitText = url.searchParams.get('limit')
      if (limitText !== null) {
        const n = Number(limitText)
        const ok = limitText !== '' && Number.isInteger(n) && n >= Number(limitParam.minimum) && n <= Number(limitParam.maximum)
        if (!ok && variant.outOfRange !== 'clamp') return error(res, 400, 'invalid_limit')
        limit = ok ? n : Number.isFinite(n) ? Math.min(Number(limitParam.maximum), Math.max(Number(limitParam.minimum), Math.trunc(n))) : Number(limitParam.default)
      }
      const status = url.searchParams.get('status')
      if (status !== null && !statuses.includes(status) && variant.outOfRange !== 'clamp') return error(res, 400, 'invalid_status')
      let chosen = status !== null && statuses.includes(status) ? pets.filter((p) => p.status === status) : pets
      if (variant.order === 'descending') chosen = [...chosen].reverse()
      if (variant.order === 'shuffled') chosen = [...chosen].sort((a, b) => Number((a.id * 7919n) % 1009n) - Number((b.id * 7919n) % 1009n))
      return send(res, 200, chosen.slice(0, limit).map(show))
    }
    if (path === '/pets' && req.method === 'POST') {
      let body: JsonValue
      try {
        body = parseJson(raw)
      } catch {
        return error(res, 400, 'invalid_body')
      }
      if (validNewPet(body).length) return error(res, 400, 'invalid_pet')
      const input = body as { name: string; categoryId: JsonValue; status?: string }
      const pet: Pet = { id: nextId(), name: input.name, categoryId: input.categoryId }
      const status = input.status ?? variant.defaultStatus
      if (status !== undefined) pet.status = status
      pets.push(pet)
      return send(res, 201, show(pet))
    }
    const match = /^\/pets\/(-?\d+)$/.exec(path)
    if (match && req.method === 'GET') {
      const deprecation: Record<string, string> = variant.headers ? { deprecation: '@1764892800', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' } : {}
      const pet = pets.find((p) => p.id === BigInt(match[1]!))
      return pet ? send(res, 200, show(pet), deprecation) : error(res, 404, 'not_found', deprecation)
    }
    return error(res, 404, 'not_found')
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => setTimeout(() => handle(req, res, Buffer.concat(chunks).toString('utf8')), variant.delayMs ?? 0))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
