/** Entry point of `petstore-conformance` (bin/petstore-conformance.js imports it). */
import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'

/** The young generation's cap (two semi-spaces of 4 MB), as the worker's `--max-semi-space-size=4`. */
const YOUNG_GENERATION_BYTES = 8 * 2 ** 20

// The young generation would double up to 32 MB, each page of it resident: once it reaches the cap it stops growing
// (a V8 flag read whenever it would grow, so it holds though set after start-up, which a node flag cannot be).
// About 19 MB less resident memory for the command, for some 50 ms more of scavenges on a default run (docs/bench.md).
const observer = new PerformanceObserver(() => {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
  if (young && young.space_size < YOUNG_GENERATION_BYTES) return
  setFlagsFromString('--semi-space-growth-factor=1')
  observer.disconnect()
})
observer.observe({ entryTypes: ['gc'] })

// Imported once the observer is in place: the command's modules are what grows the young generation first.
const { main } = await import('./cli.js')
process.exit(await main(process.argv.slice(2), process.env))
