// Runs sample.check.ts in vitest, programmatically, with the conformance reporter handed over as an instance,
// as the command does. Usage: tsx run.ts <output dir>; prints what the reporter prints, exits with the run's code.
import { fileURLToPath } from 'node:url'
import { startVitest } from 'vitest/node'
import { Redactor, exitCode, type RunResult } from '../../../model/index.js'
import ConformanceReporter from '../../index.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const outputDir = process.argv[2] ?? fileURLToPath(new URL('./out', import.meta.url))
let result: RunResult | undefined
const reporter = new ConformanceReporter({
  formats: ['console', 'json', 'html', 'markdown', 'junit'],
  outputDir,
  redactor: new Redactor([process.env.SAMPLE_KEY]),
  color: false,
  progress: 'lines',
  facts: {
    tool: { name: 'petstore-conformance', version: '1.0.0' },
    target: { baseUrl: 'http://127.0.0.1:9/v1', embedded: false },
    runId: 'sample1',
    seed: -42,
    runs: 5,
    recordBudget: 10,
    viaPrism: false,
    strict: false,
    specVersion: '1.0.0',
    operationOrder: ['listPets', 'createPet', 'getPet'],
    notices: [],
    catalogue: [
      { id: 'listPets.limit.max', title: 'limit holds', operationId: 'listPets', severity: 'fail', source: 'suite' },
      {
        id: 'listPets.filter.status',
        title: 'filter holds',
        operationId: 'listPets',
        severity: 'fail',
        source: 'suite',
      },
      {
        id: 'getPet.deprecation.sunset',
        title: 'Sunset header',
        operationId: 'getPet',
        severity: 'advice',
        source: 'suite',
      },
      { id: 'getPet.id.int64', title: 'int64 ids', operationId: 'getPet', severity: 'fail', source: 'suite' },
    ],
  },
  onResult: (run) => void (result = run),
})
const vitest = await startVitest(
  'test',
  [],
  {
    config: false,
    root,
    dir: root,
    include: ['reporters/test-support/vitest-run/sample.check.ts'],
    watch: false,
    pool: 'threads',
    maxWorkers: 1,
    reporters: [reporter],
  } as never,
  { logLevel: 'error' },
)
await vitest.close()
process.exitCode = result ? exitCode(result) : 2
