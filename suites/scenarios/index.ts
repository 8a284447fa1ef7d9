/**
 * Every scenario of a conformance run, in phases. The scenarios of a phase do not depend on each other and
 * run side by side (the transport bounds the requests in flight); each phase starts when the one before has
 * ended. What must have been kept is looked at once everything else has been created; a list read right after
 * each of a few creates comes last, alone, so its creates overlap no other.
 */
import type { ScenarioSpec } from '../engine/scenario.js'
import { AUTH } from './auth.js'
import { BODIES } from './bodies.js'
import { COVERAGE } from './coverage.js'
import { CREATE } from './create.js'
import { GET } from './get.js'
import { KEPT, LAST } from './kept.js'
import { LIST } from './list.js'
import { METHODS } from './methods.js'
import { PARAMETERS } from './parameters.js'
import { PATHS } from './paths.js'
import { PROPERTIES } from './properties.js'
import { STATEFUL } from './stateful.js'

/** The phases, in order; the scenarios within one run concurrently. */
export const PHASES: readonly (readonly ScenarioSpec[])[] = [
  [
    ...AUTH,
    ...CREATE,
    ...GET,
    ...LIST,
    ...COVERAGE,
    ...PROPERTIES,
    ...STATEFUL,
    ...PARAMETERS,
    ...BODIES,
    ...METHODS,
    ...PATHS,
  ],
  KEPT,
  LAST,
]

/** Every scenario, in the order a report lists them. */
export const SCENARIOS: readonly ScenarioSpec[] = PHASES.flat()
