import { defineConfig } from 'vitest/config'

// `npm test`: the kit's own tests, in-process (no child process, browser, Prism or Java; at most 90 s on two
// cores). Runs of the real commands are `*.e2e.test.ts`, in `npm run test:e2e` (vitest.e2e.config.ts).
export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'tmp/**', '**/*.e2e.test.ts'],
    // Three workers on two cores: vitest's default is one (cores - 1), but many tests wait (a late answer, a timeout,
    // a socket), and a third worker keeps both cores busy meanwhile. Measured on the two-core machine, back to back:
    // 2 workers 74 to 90 s, 3 workers 67 to 71 s, 4 workers 86 s (each worker imports the modules afresh).
    maxWorkers: 3,
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
