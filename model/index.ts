/** The bottom layer: exchange and result types, the one verdict, the one redaction point. */
export * from './exchange.js'
export * from './result.js'
export * from './verdict.js'
export * from './redact.js'
export * from './bound.js'
export * from './build.js'
export * from './basis.js'
