/** The engine: a run over one target, its scenarios' handle on it, and what it is told. */
export * from './config.js'
export { NotSent, Run, RUN_LEVEL, type RunTransport } from './run.js'
export { Judge, type Replay } from './judge.js'
export { Recorder } from './recorder.js'
export {
  catalogue,
  catalogueSize,
  feeds,
  needed,
  selectedChecks,
  Selection,
  type Choice,
  type Sends,
} from './selection.js'
export { runScenario, Scenario, scenario, type ScenarioSpec, type SendOptions } from './scenario.js'
export { fitNewPet, markLabel, renderInvalid, runPrefix } from './naming.js'
