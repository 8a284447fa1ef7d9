/**
 * Test files share their worker's modules (`isolate: false` in vitest.config.ts), so the one piece of state a file
 * may leave behind is put back before each file: the spec in use, which a run given a revision sets.
 */
import { useSpec } from '../spec/index.js'

useSpec(undefined)
