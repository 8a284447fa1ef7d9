// Bench-only entry: the stub with the command's default settings (request log on, to stderr), its
// store filled with `--pets N` generated pets through the store API before any request arrives, so a
// million pets start in seconds. Then it collects garbage and prints one line the bench reads:
// `bench-ready {"rss":..,"heapUsed":..,"pets":..}`. Run with --expose-gc.
import { startStub } from '../stub/index.js'
import { benchPet } from './pets.js'
import { spec } from '../spec/index.js'
import { READY_LINE } from './ready-line.js'

function flag(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name)
  return at >= 0 ? argv[at + 1] : undefined
}

/** Full collections until the heap stops shrinking, so RSS reflects live data only. */
function settle(): void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with --expose-gc')
  let before = Number.POSITIVE_INFINITY
  for (let i = 0; i < 10 && process.memoryUsage().heapUsed < before; i++) {
    before = process.memoryUsage().heapUsed
    gc()
  }
}

async function main(argv: string[]): Promise<void> {
  const pets = Number(flag(argv, '--pets') ?? 0)
  const port = Number(flag(argv, '--port') ?? 0)
  const apiKey = flag(argv, '--api-key') ?? 'bench-key'
  // quiet: false is the command's default (startStub's own default is quiet).
  const stub = await startStub({ port, host: '127.0.0.1', apiKeys: [apiKey], seed: false, quiet: false })
  const statuses = spec().enumOf('PetStatus')
  for (let id = 1; id <= pets; id++) {
    const { name, categoryId, status } = benchPet(id, statuses)
    stub.store.add({ name, categoryId, status }) // ids are assigned 1..N, the same pets benchPets gives
  }
  settle()
  const { rss, heapUsed } = process.memoryUsage()
  console.log(READY_LINE + JSON.stringify({ rss, heapUsed, pets, url: stub.url }))
  process.on('SIGTERM', () => void stub.close().then(() => process.exit(0)))
}

await main(process.argv.slice(2))
