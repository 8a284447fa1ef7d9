/**
 * Prism as a second opinion: its validating proxy in front of the target (proxy.ts, behind the tap of tap.ts),
 * its verdict on each answer read from `sl-violations` (violations.ts), and the transport that hands that verdict
 * to the engine (opinion.ts).
 */
export { PrismOpinion } from './opinion.js'
export { startPrismProxy, type PrismProxy, type PrismProxyOptions } from './proxy.js'
export { parseViolations, PRISM_CHECKS, violationIn, VIOLATIONS_HEADER } from './violations.js'
