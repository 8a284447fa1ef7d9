#!/usr/bin/env node
// The compiled command (`npm run build` writes dist/; `npm ci` in a clone and `npm pack` run the build).
import '../dist/command/stub/cli.js'
