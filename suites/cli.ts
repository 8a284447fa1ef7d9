/** Entry point of `petstore-conformance` (bin/petstore-conformance.js imports it). */
import { main } from './command.js'

process.exit(await main(process.argv.slice(2), process.env))
