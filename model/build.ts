// placeholder: buildRunResult(records, facts) -> RunResult (owned by the reporters work)
export {}
