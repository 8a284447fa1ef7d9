#!/usr/bin/env node
// Runs the TypeScript sources directly: no build step stands between `npm ci` and the command.
import { register } from 'tsx/esm/api'

register()
await import('../command/stub/cli.ts')
