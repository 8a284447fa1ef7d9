/**
 * The Pet Store interface on mainstream frameworks, as test targets: each conformant with the framework's defaults
 * where the interface is silent, and each with natural mistakes of its framework, every mistake naming the check of
 * the suite meant to catch it. None shares code with the stub or the suite, or reads spec/.
 */
import { EXPRESS_MISTAKES, startExpress } from './express.js'
import { FASTIFY_MISTAKES, startFastify } from './fastify.js'
import type { FrameworkOptions, FrameworkTarget } from './target.js'

export type { FrameworkOptions, FrameworkTarget } from './target.js'

/** A framework: how to start its service, and its mistakes by name with the check that catches each. */
export interface Framework {
  start: (options?: FrameworkOptions<string>) => Promise<FrameworkTarget>
  mistakes: Readonly<Record<string, string>>
}

/** Every framework target by name. */
export const FRAMEWORKS = {
  'Express 5': { start: startExpress as Framework['start'], mistakes: EXPRESS_MISTAKES },
  'Fastify 5': { start: startFastify as Framework['start'], mistakes: FASTIFY_MISTAKES },
} satisfies Record<string, Framework>

/** One case per framework and mistake, with the check meant to catch it. */
export const MISTAKE_CASES = Object.entries(FRAMEWORKS).flatMap(([framework, { mistakes }]) =>
  Object.entries(mistakes).map(([mistake, catches]) => ({ framework: framework as FrameworkName, mistake, catches })),
)

/** The name of one of {@link FRAMEWORKS}. */
export type FrameworkName = keyof typeof FRAMEWORKS

/**
 * Adds `count` pets over HTTP, of every status and none, so that a run finds pets held before it (as a service in
 * use does) and judges that they are kept.
 */
export async function holdPets(target: FrameworkTarget, count: number): Promise<void> {
  const statuses = [undefined, 'available', 'pending', 'sold']
  for (let i = 0; i < count; i++) {
    const status = statuses[i % statuses.length]
    const response = await fetch(`${target.url}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
      body: `{"name":"held ${i}","categoryId":${i === 0 ? '9007199254740993' : i}${status ? `,"status":"${status}"` : ''}}`,
    })
    if (response.status !== 201) throw new Error(`holding pet ${i}: ${response.status} ${await response.text()}`)
  }
}
