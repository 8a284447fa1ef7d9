import { spec } from '../spec/index.js'

/** One kind of request the bench repeats against every target. */
export interface Workload {
  id: string
  /** Reads and creates have different targets against the node:http ceiling. */
  kind: 'read' | 'create'
  method: 'GET' | 'POST'
  /** Path relative to the target's base address (which carries `/v1`, or not for Prism). */
  path: string
  body?: string
}

/** The id every `getPet` request asks for: one of the seeded pets. */
export const BENCH_PET_ID = 500

/** The body every `createPet` request sends. */
export const NEW_PET_BODY = JSON.stringify({ name: 'Bench', categoryId: 1, status: 'available' })

/** The status the filtered list asks for: the spec's last enumerated value (`sold`). */
export function filterStatus(): string {
  return spec().enumOf('PetStatus').at(-1)!
}

/** The filtered list: the largest page the spec allows, one status. */
export function filteredList(): Workload {
  const limit = spec().parameter('listPets', 'limit').maximum
  return { id: 'list-filtered', kind: 'read', method: 'GET', path: `/pets?limit=${limit}&status=${filterStatus()}` }
}

/** The creation workload. */
export function createPet(): Workload {
  return { id: 'create', kind: 'create', method: 'POST', path: '/pets', body: NEW_PET_BODY }
}

/** The four workloads of the comparison, reads first so they see the seeded store only. */
export function workloads(): Workload[] {
  const limit = spec().parameter('listPets', 'limit').default
  return [
    { id: 'list', kind: 'read', method: 'GET', path: `/pets?limit=${limit}` },
    filteredList(),
    { id: 'get', kind: 'read', method: 'GET', path: `/pets/${BENCH_PET_ID}` },
    createPet(),
  ]
}
