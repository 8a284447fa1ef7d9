import { defineConfig } from 'vitest/config'

// `npm run test:e2e`: the real commands in child processes, Prism, Chromium. Each command is a node process with
// vitest inside, so at most two files run at once on the two-core machine, and timeouts are long.
export default defineConfig({
  test: {
    include: ['**/*.e2e.test.ts'],
    exclude: ['node_modules/**', 'tmp/**'],
    testTimeout: 120_000,
    hookTimeout: 30 * 60_000,
    maxWorkers: 2,
    fileParallelism: true,
  },
})
