/** Runs a command to its end for the report tests, collecting what it printed. */
import { spawn } from 'node:child_process'

/** How a finished command ended and what it printed. */
export interface Finished {
  code: number | null
  stdout: string
  stderr: string
}

/** Environment of the child: the parent's, less colour forcing, plus `extra` (undefined deletes). */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.FORCE_COLOR // the reports must choose plain text by themselves when output is not a terminal
  delete env.NO_COLOR
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}

/** Runs `command args` in `cwd` and resolves when it exits; stdin is closed. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
