import { spec } from '../spec/index.js'

/** A pet as the bench seeds it and as the bare server answers it. */
export interface BenchPet {
  id: number
  name: string
  categoryId: number
  status: string
}

/**
 * `count` deterministic pets with ids 1..count whose statuses cycle through the spec's enumeration, so a
 * status filter matches every third pet at any store size.
 */
export function benchPets(count: number): BenchPet[] {
  const statuses = spec().enumOf('PetStatus')
  return Array.from({ length: count }, (_, i) => benchPet(i + 1, statuses))
}

/** Pet number `id` of the bench's data set. */
export function benchPet(id: number, statuses: readonly string[] = spec().enumOf('PetStatus')): BenchPet {
  return { id, name: `Pet ${id}`, categoryId: (id % 10) + 1, status: statuses[(id - 1) % statuses.length]! }
}

/** The list the documented filter gives: the first `limit` pets, only those with `status` when set. */
export function listOf(pets: readonly BenchPet[], limit: number, status?: string): BenchPet[] {
  const matching = status === undefined ? pets : pets.filter((p) => p.status === status)
  return matching.slice(0, limit)
}
