import { defineConfig } from 'vitest/config'

// `npm test`: the kit's own tests, in-process (no child process, browser, Prism or Java; at most 90 s on two
// cores). Runs of the real commands are `*.e2e.test.ts`, in `npm run test:e2e` (vitest.e2e.config.ts).
export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'tmp/**', '**/*.e2e.test.ts'],
    maxWorkers: 2, // vitest's default on two cores is one worker (cores - 1); the tests are in-process, two fit
    // Worker threads start and import faster than forked processes: about 10 s less on the two-core machine. No test
    // here needs a process of its own (none changes the working directory or exits).
    pool: 'threads',
    // The files of a worker share its modules instead of importing them afresh (measured on the two-core machine:
    // imports 29 s -> 5 s summed over files, the run 72 s -> 46 s). The tests leave no global state behind but the
    // spec in use, which the setup file puts back before each file; files pass in any order (--sequence.shuffle).
    isolate: false,
    setupFiles: ['test-support/spec-in-use.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
