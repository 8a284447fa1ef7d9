import { defineConfig } from 'vitest/config'

// `npm test`: the kit's own tests. The conformance checks in suites/conformance/ run only through the
// petstore-conformance command, which points them at a target.
export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'suites/conformance/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
