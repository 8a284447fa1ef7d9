/**
 * Every scenario of a conformance run, in phases. The scenarios of a phase do not depend on each other and
 * run side by side (the transport bounds the requests in flight); each phase starts when the one before has
 * ended. Refused creates come first, while one listing may still show the whole store. What must have been kept is
 * looked at once everything else has been created; a list read right after each of a few creates comes next, alone,
 * so its creates overlap no other; bodies of 1 MiB come last, so no other listing carries their pet.
 */
import type { ScenarioSpec } from '../engine/scenario.js'
import { AUTH, unauthenticatedCreateStoresNothing } from './auth.js'
import { BODIES, largeBodies, mediaTypes } from './bodies.js'
import { COVERAGE } from './coverage.js'
import { CREATE, invalidExamplesRefused } from './create.js'
import { EDGES } from './edges.js'
import { GET } from './get.js'
import { KEPT, LAST } from './kept.js'
import { LIST, listSemantics } from './list.js'
import { METHODS } from './methods.js'
import { PARAMETERS } from './parameters.js'
import { PATHS } from './paths.js'
import { PROPERTIES } from './properties.js'
import { STATEFUL } from './stateful.js'

/**
 * Scenarios that look for pets that must not exist, best done while the store is small, and the coverage phase (the
 * values at each keyword's edges), which runs on every seed before any random value.
 */
const FIRST: readonly ScenarioSpec[] = [
  unauthenticatedCreateStoresNothing,
  invalidExamplesRefused,
  mediaTypes,
  ...EDGES,
]

/**
 * Scenarios whose pets would weigh on every later listing: a valid NewPet with a 1 MiB name, once stored, comes back
 * in each page that holds it, so it is created after every other listing.
 */
const HEAVY: readonly ScenarioSpec[] = [largeBodies]

/** The phases, in order; the scenarios within one run concurrently. */
export const PHASES: readonly (readonly ScenarioSpec[])[] = [
  // First, while the store still holds only what the target held before the run: refused creates, then one
  // listing that shows the whole store (whatever the ids) unless it already held a full page.
  FIRST,
  // Then, alone while the store is still small: a status with no pet yet, and an unfiltered page with room.
  [listSemantics],
  [
    ...AUTH.filter((s) => !FIRST.includes(s)),
    ...CREATE.filter((s) => !FIRST.includes(s)),
    ...GET,
    ...LIST,
    ...COVERAGE,
    ...PROPERTIES,
    ...STATEFUL,
    ...PARAMETERS,
    ...BODIES.filter((s) => !FIRST.includes(s) && !HEAVY.includes(s)),
    ...METHODS,
    ...PATHS,
  ],
  KEPT,
  LAST,
  HEAVY,
]

/** Every scenario, in the order a report lists them. */
export const SCENARIOS: readonly ScenarioSpec[] = PHASES.flat()
