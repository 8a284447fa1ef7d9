/**
 * `npm run mock` and `npm run mock:dynamic`: Prism's command line with the arguments given, found the way
 * `--via-prism` finds it (node_modules, no shell or PATH). Prism is an optional peer dependency: without it,
 * one line saying how to install it, and exit 2. Stop signals are passed on, and Prism's exit is ours.
 */
import { spawn } from 'node:child_process'
import { prismBin } from '../suites/prism/launch.js'

let bin: string
try {
  bin = prismBin()
} catch (error) {
  process.stderr.write(`prism: ${(error as Error).message}\n`)
  process.exit(2)
}
const child = spawn(process.execPath, [bin, ...process.argv.slice(2)], { stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
