/** The engine: a run over one target, its scenarios' handle on it, and what it is told. */
export * from './config.js'
export { feeds, needed, NotSent, Run, RUN_LEVEL, type RunTransport, type Sends } from './run.js'
export { Recorder } from './recorder.js'
export { runScenario, Scenario, scenario, type ScenarioSpec, type SendOptions } from './scenario.js'
export { fitNewPet, markLabel, renderInvalid, runPrefix } from './naming.js'
