import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { pathToFileURL } from 'node:url'
import { benchPets, listOf, type BenchPet } from './pets.js'
import { filterStatus } from './workloads.js'
import { spec } from '../spec/index.js'

const BASE = '/v1'

/** A precomputed answer: its body and that body's length in bytes. */
export interface BareAnswer {
  body: string
  length: number
}

/** The precomputed answers of the bare server, by method and URL. */
export interface BareRoutes {
  get: Map<string, BareAnswer>
  created: BareAnswer
}

/**
 * Answers for the bench's workloads, computed once from `pets`: the two lists, every pet by id, and one
 * created pet. The bodies are the bytes a conforming service would send for the same store.
 */
export function bareRoutes(pets: readonly BenchPet[]): BareRoutes {
  const listLimit = spec().parameter('listPets', 'limit')
  const status = filterStatus()
  const get = new Map<string, BareAnswer>([
    [`${BASE}/pets?limit=${listLimit.default}`, json(listOf(pets, Number(listLimit.default)))],
    [`${BASE}/pets?limit=${listLimit.maximum}&status=${status}`, json(listOf(pets, listLimit.maximum!, status))],
  ])
  for (const pet of pets) get.set(`${BASE}/pets/${pet.id}`, json(pet))
  const created = json({ id: pets.length + 1, name: 'Bench', categoryId: 1, status: 'available' })
  return { get, created }
}

// Strings, not Buffers: node:http joins a string body to the header text; a Buffer costs a second chunk.
function json(value: unknown): BareAnswer {
  const body = JSON.stringify(value)
  return { body, length: Buffer.byteLength(body) }
}

function send(res: ServerResponse, status: number, answer: BareAnswer): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': answer.length })
  res.end(answer.body)
}

const NOT_FOUND = json({ code: 'not_found', message: 'no such route', status: 404 })

/**
 * The ceiling for Node on this machine: a `node:http` server that answers the bench's routes with
 * precomputed bodies and does no other work (it reads a POST body but neither parses nor stores it).
 */
export function createBareServer(routes: BareRoutes): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && req.url === `${BASE}/pets`) {
      req.on('data', () => {}) // drain the body, as any server must before answering
      req.on('end', () => send(res, 201, routes.created))
      return
    }
    const body = req.method === 'GET' ? routes.get.get(req.url ?? '') : undefined
    send(res, body ? 200 : 404, body ?? NOT_FOUND)
  })
}

async function main(argv: string[]): Promise<void> {
  const flag = (name: string, fallback: number) => {
    const at = argv.indexOf(name)
    return at >= 0 ? Number(argv[at + 1]) : fallback
  }
  const server = createBareServer(bareRoutes(benchPets(flag('--pets', 1000))))
  process.on('SIGTERM', () => process.exit(0)) // a normal exit, so `node --cpu-prof` writes its profile
  server.listen(flag('--port', 0), '127.0.0.1', () => {
    const address = server.address()
    console.log(
      `bare server listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : '?'}${BASE}`,
    )
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2))
