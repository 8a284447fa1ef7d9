/** Entry point of `petstore-conformance` (bin/petstore-conformance.js imports it). */
import { main } from './cli.js'

process.exit(await main(process.argv.slice(2), process.env))
